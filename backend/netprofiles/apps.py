from django.apps import AppConfig


class NetprofilesConfig(AppConfig):
    name = "netprofiles"
    default_auto_field = "django.db.models.BigAutoField"
