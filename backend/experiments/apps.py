from django.apps import AppConfig


class ExperimentsConfig(AppConfig):
    name = "experiments"

    def ready(self) -> None:
        from devices.signals import device_revoking
        from experiments.receivers import device_unfinished_runs

        device_revoking.connect(device_unfinished_runs, dispatch_uid="experiments.device_busy")
