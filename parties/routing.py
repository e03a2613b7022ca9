"""Websocket routes."""

from django.urls import path

from parties.consumers import PartyConsumer

websocket_urlpatterns = [
    path("ws/parties/<int:party_id>/", PartyConsumer.as_asgi()),
]
