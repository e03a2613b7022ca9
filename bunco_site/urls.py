"""Top-level URLs: the app's pages and the admin."""

from django.contrib import admin
from django.urls import include, path

from clubs.views import setup as club_setup

urlpatterns = [
    # Before the parties' pages: a club's code typed at /join/ opens its club; any other code
    # goes on to the party code's join (parties.views.setup.join), unchanged.
    path("join/", club_setup.join),
    path("", include("clubs.urls")),
    path("", include("parties.urls")),
    path("i18n/", include("django.conf.urls.i18n")),  # set_language: the switch on every page
    path("admin/", admin.site.urls),
]
