"""What a cell of an experiment's results needs of each completed run, computed once per run:
its delivered and lost messages, mean and median, and its stage 2 of the two-stage bootstrap
(results.hierarchical.run_stage_two, with the run's own seed). Kept in Django's cache; the
worker fills it when a run completes (results.tasks.run_round_trips_warm_task), so the
experiment's first results view only draws stage 1 over it (docs/results.md, "Experiment
results", Speed).

A completed run's records never change, so neither does this; a run is only summarised here
once its status is done.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

import numpy as np
from django.core.cache import cache

from experiments.models import Run, RunStatus
from measurements.models import Outcome
from results.hierarchical import HIERARCHICAL_DRAW_MAX, StageTwo, run_stage_two
from results.services.round_trips import run_round_trips_load
from results.statistics import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED

# v: bump when the figures or the bootstrap's parameters change.
RUN_REPLICATES_KEY = "results:run-replicates:v1:{run_id}"
RUN_REPLICATES_SECONDS = 30 * 24 * 3600


@dataclass(frozen=True)
class RunReplicates:
    run_id: UUID
    messages: int  # delivered, all devices
    lost: int
    mean_ms: float | None
    median_ms: float | None
    stage_two: StageTwo | None  # None: nothing delivered


def run_seed(run_id: UUID) -> int:
    """A run's own bootstrap seed: its stage 2 is the same whichever cell view draws it."""
    return BOOTSTRAP_SEED + zlib.crc32(str(run_id).encode())


def _compute(run: Run) -> RunReplicates:
    devices = run_round_trips_load(run=run, with_seq=False)
    delivered = np.concatenate([d.rtt_ms for d in devices]) if devices else np.empty(0)
    lost = sum(d.trips.outcomes.get(Outcome.LOST, 0) for d in devices)
    has = bool(delivered.size)
    return RunReplicates(
        run_id=run.pk,
        messages=int(delivered.size),
        lost=lost,
        mean_ms=float(delivered.mean()) if has else None,
        median_ms=float(np.median(delivered)) if has else None,
        stage_two=run_stage_two(
            delivered,
            seed=run_seed(run.pk),
            resamples=BOOTSTRAP_RESAMPLES,
            draw_max=HIERARCHICAL_DRAW_MAX,
        ),
    )


def runs_replicates(*, runs: Sequence[Run]) -> list[RunReplicates]:
    """Each completed run's figures, in the order given: from the cache (one round trip for
    all), computed and stored for the runs missing from it."""
    keys = {run.pk: RUN_REPLICATES_KEY.format(run_id=run.pk) for run in runs}
    found = cache.get_many(list(keys.values()))
    out = []
    fresh = {}
    for run in runs:
        cached = found.get(keys[run.pk])
        if not isinstance(cached, RunReplicates):
            cached = _compute(run)
            if run.status == RunStatus.DONE:
                fresh[keys[run.pk]] = cached
        out.append(cached)
    if fresh:
        cache.set_many(fresh, timeout=RUN_REPLICATES_SECONDS)
    return out
