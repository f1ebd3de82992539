from django.apps import AppConfig


class MeasurementsConfig(AppConfig):
    name = "measurements"

    def ready(self) -> None:
        from experiments.signals import run_needs_summary
        from measurements.receivers import run_summary_compute

        run_needs_summary.connect(run_summary_compute, dispatch_uid="measurements.summary")
