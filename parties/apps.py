"""The Django app that persists and announces a Bunco party."""

from django.apps import AppConfig


class PartiesConfig(AppConfig):
    name = "parties"
    default_auto_field = "django.db.models.BigAutoField"
