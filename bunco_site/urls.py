"""Top-level URLs: the app's pages and the admin."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("", include("parties.urls")),
    path("i18n/", include("django.conf.urls.i18n")),  # set_language: the switch on every page
    path("admin/", admin.site.urls),
]
