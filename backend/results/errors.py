from core.exceptions import ApplicationError


class RunHasNoRoundTrips(ApplicationError):
    """The run is not a messaging run (a cipher benchmark or throughput run has no round
    trips): its results are the benchmark summary of the run page."""

    code = "run_has_no_round_trips"
    status_code = 400
