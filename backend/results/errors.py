from core.exceptions import ApplicationError


class RunHasNoRoundTrips(ApplicationError):
    """The run is not a messaging run (a cipher benchmark or throughput run has no round
    trips): its results are the benchmark summary of the run page."""

    code = "run_has_no_round_trips"
    status_code = 400


class RunHasNoDeliveredMessages(ApplicationError):
    """The run has no delivered message yet (none stored, or every one lost or rejected):
    there are no measured wire bytes to break down into a message's parts."""

    code = "run_has_no_delivered_messages"
    status_code = 400
