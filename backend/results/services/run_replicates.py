"""What a cell of an experiment's results needs of each completed run, computed once per run:
its delivered and lost messages, mean and median, and its stage 2 of the two-stage bootstrap
(results.hierarchical.run_stage_two, with the run's own seed). Kept in Django's cache; the
worker fills it when a run completes (results.tasks.run_round_trips_warm_task), so the
experiment's first results view only draws stage 1 over it (docs/results.md, "Experiment
results", Speed).

When it is missing (the cache emptied, the worker's work lost) every missing run is read at
once: one query of the round-trip cache rows of all their devices, one aggregate over the
records of the devices missing from it, one insert of those rows (docs/benchmarks.md,
"Experiment results": the cold first view). A completed run's records never change, so
neither does this; a run is only summarised here once its status is done.
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
from measurements.selectors import NS_PER_MS, RoundTrips, run_devices_round_trips
from results.hierarchical import HIERARCHICAL_DRAW_MAX, StageTwo, run_stage_two
from results.selectors import round_trip_cache
from results.services.round_trips import round_trip_cache_store
from results.statistics import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED

# v: bump when the figures or the bootstrap's parameters change.
RUN_REPLICATES_KEY = "results:run-replicates:v2:{run_id}"
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


def _summarise(run: Run, trips: Sequence[RoundTrips]) -> RunReplicates:
    delivered = np.concatenate([t.rtt_ns for t in trips]) / NS_PER_MS if trips else np.empty(0)
    lost = sum(t.outcomes.get(Outcome.LOST, 0) for t in trips)
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


def _compute(runs: Sequence[Run]) -> list[RunReplicates]:
    """The runs' figures from their round trips: the cached rows of completed runs' devices,
    the records of the others (stored for completed runs), each in one query for all runs."""
    devices = {run.pk: [rd.pk for rd in run.run_devices.all()] for run in runs}
    done = [rd for run in runs if run.status == RunStatus.DONE for rd in devices[run.pk]]
    trips = round_trip_cache(run_device_ids=done, with_seq=False) if done else {}
    missing = [rd for ids in devices.values() for rd in ids if rd not in trips]
    if missing:
        fresh = run_devices_round_trips(run_device_ids=missing)
        empty = RoundTrips(
            seq=np.empty(0, np.int32),
            rtt_ns=np.empty(0, np.int64),
            outcomes=dict.fromkeys(Outcome.values, 0),
        )
        loaded = {rd: fresh.get(rd, empty) for rd in missing}
        storable = set(done)
        to_store = {rd: t for rd, t in loaded.items() if rd in storable}
        if to_store:
            round_trip_cache_store(trips=to_store)
        trips.update(loaded)
    return [_summarise(run, [trips[rd] for rd in devices[run.pk]]) for run in runs]


def runs_replicates(*, runs: Sequence[Run]) -> list[RunReplicates]:
    """Each run's figures, in the order given: from the cache (one round trip for all),
    computed together and stored (completed runs) for the runs missing from it."""
    keys = {run.pk: RUN_REPLICATES_KEY.format(run_id=run.pk) for run in runs}
    found = cache.get_many(list(keys.values()))
    missing = [run for run in runs if not isinstance(found.get(keys[run.pk]), RunReplicates)]
    computed = {r.run_id: r for r in _compute(missing)} if missing else {}
    fresh = {keys[run.pk]: computed[run.pk] for run in missing if run.status == RunStatus.DONE}
    if fresh:
        cache.set_many(fresh, timeout=RUN_REPLICATES_SECONDS)
    return [computed.get(run.pk) or found[keys[run.pk]] for run in runs]
