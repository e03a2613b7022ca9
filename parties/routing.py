"""Websocket routes; the live-play consumers are added with live play."""

websocket_urlpatterns = []
