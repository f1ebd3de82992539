"""What the worker computes when a messaging run completes, so that the first view of its
pages and of its experiment's results reads it instead of computing it (docs/results.md,
"Experiment results", Speed): its round trips (results.models.RoundTripCache, with the
wire sizes), its statistics and plot data (the memos of results.services.summaries and
distribution, the page's default query) and its figures for the experiment's results
(results.services.run_replicates: stage 2 of the two-stage bootstrap)."""

from __future__ import annotations

from uuid import UUID

from experiments.models import Run, RunStatus
from results.services.distribution import run_distribution_compute
from results.services.round_trips import run_round_trips_warm
from results.services.run_replicates import runs_replicates
from results.services.summaries import run_statistics_compute


def run_results_warm(*, run_id: UUID | str) -> int:
    """Fill every cache of a completed messaging run; the number of devices read (0 when
    there is nothing to cache: not done, or a benchmark run)."""
    loaded = run_round_trips_warm(run_id=run_id)
    if not loaded:
        return 0
    run = (
        Run.objects.filter(pk=run_id, status=RunStatus.DONE)
        .prefetch_related("run_devices__device")
        .first()
    )
    if run is None:
        return 0
    run_statistics_compute(run=run)
    run_distribution_compute(run=run)  # the page's default query
    runs_replicates(runs=[run])
    return loaded
