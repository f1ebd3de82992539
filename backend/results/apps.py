from django.apps import AppConfig


class ResultsConfig(AppConfig):
    name = "results"

    def ready(self) -> None:
        from experiments.signals import run_done
        from results.receivers import run_round_trips_warm_soon

        run_done.connect(run_round_trips_warm_soon, dispatch_uid="results.warm_round_trips")
