from django.apps import AppConfig


class PowerConfig(AppConfig):
    name = "power"
    default_auto_field = "django.db.models.BigAutoField"
