"""Top-level URLs: the app's pages and the admin."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("", include("parties.urls")),
    path("admin/", admin.site.urls),
]
