"""Websocket routes."""

from django.urls import path

from parties import converters  # noqa: F401 - registers the "id" converter
from parties.live.consumers import PartyConsumer

websocket_urlpatterns = [
    path("ws/parties/<id:party_id>/", PartyConsumer.as_asgi()),
]
