"""The addresses pages show: the one phones use, and where players type the party code."""

from django.conf import settings
from django.urls import reverse


def site_url(request):
    """The address that goes into links and QR codes: the one phones use (settings.BASE_URL,
    which the party server sets to the laptop's Wi-Fi address), not necessarily the one this
    request came to (the host's own browser may be on 127.0.0.1)."""
    return settings.BASE_URL or request.build_absolute_uri("/")


def join_url(request):
    """Where players without a link type the party code."""
    return site_url(request).rstrip("/") + reverse("parties:join")
