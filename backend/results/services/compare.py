"""Runs side by side, and the overhead of each pair that differs only in what is compared."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID

import numpy as np

from experiments.models import Run
from results.pairing import Candidate, conditions, pairs, treatment
from results.services.round_trips import DeviceRoundTrips, run_round_trips_load
from results.services.summaries import RunStatistics, run_statistics_compute
from results.statistics import (
    BOOTSTRAP_DRAW_MAX,
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    bootstrap_difference,
    mann_whitney,
    max_rate_hz,
    mean_of_means,
)

# Every run's round trips are in memory at once (8 bytes per delivered message: a million-
# message run is 8 MB) and every pair costs a bootstrap: eight runs is a page of figures.
COMPARE_RUNS_MAX = 8


@dataclass(frozen=True)
class ComparedRun:
    run_id: UUID
    experiment_id: UUID
    experiment_name: str
    treatment: dict[str, Any]
    conditions: dict[str, Any]
    statistics: RunStatistics


@dataclass(frozen=True)
class Difference:
    key: str
    baseline: str | None  # None: the key is not in that run's spec
    treatment: str | None


@dataclass(frozen=True)
class PairComparison:
    """treatment - baseline. Means are the combined means (mean of device means); None
    where a side has no delivered message."""

    baseline_run_id: UUID
    treatment_run_id: UUID
    differs_in: list[Difference]
    baseline_mean_ms: float | None
    treatment_mean_ms: float | None
    overhead_ms: float | None
    ci_low_ms: float | None
    ci_high_ms: float | None
    relative_overhead_pct: float | None
    mann_whitney_u: float | None
    p_value: float | None
    max_rate_hz: float | None


@dataclass(frozen=True)
class Comparison:
    runs: list[ComparedRun]
    pairs: list[PairComparison]
    resamples: int
    draw_max: int
    seed: int


def runs_compare(*, runs: list[Run]) -> Comparison:
    """Statistics of each run, and for each automatically paired two (results.pairing): the
    difference of combined means with a bootstrap interval, the relative overhead, a
    two-sided Mann-Whitney U test on the delivered round trips, and 1 / overhead."""
    loaded = {run.pk: run_round_trips_load(run=run, with_seq=False) for run in runs}
    compared = [
        ComparedRun(
            run_id=run.pk,
            experiment_id=run.experiment_id,
            experiment_name=run.experiment.name,
            treatment=treatment(run.spec),
            conditions=conditions(run.spec),
            statistics=run_statistics_compute(run=run, devices=loaded[run.pk]),
        )
        for run in runs
    ]
    candidates = [
        Candidate(
            key=run.pk,
            kind=run.experiment.kind,
            spec=run.spec,
            device_ids=frozenset(rd.device_id for rd in run.run_devices.all()),
        )
        for run in runs
    ]
    return Comparison(
        runs=compared,
        pairs=[
            _pair_compare(pair.baseline, pair.treatment, pair.differs_in, loaded)
            for pair in pairs(candidates)
        ],
        resamples=BOOTSTRAP_RESAMPLES,
        draw_max=BOOTSTRAP_DRAW_MAX,
        seed=BOOTSTRAP_SEED,
    )


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _pair_compare(
    baseline: UUID,
    treated: UUID,
    differs_in: dict[str, tuple[Any, Any]],
    loaded: dict[UUID, list[DeviceRoundTrips]],
) -> PairComparison:
    base = [d.rtt_ms for d in loaded[baseline] if d.rtt_ms.size]
    other = [d.rtt_ms for d in loaded[treated] if d.rtt_ms.size]
    differences = [Difference(k, _text(a), _text(b)) for k, (a, b) in differs_in.items()]
    if not base or not other:  # nothing delivered on a side: nothing to compare
        return PairComparison(
            baseline_run_id=baseline,
            treatment_run_id=treated,
            differs_in=differences,
            baseline_mean_ms=mean_of_means(base),
            treatment_mean_ms=mean_of_means(other),
            overhead_ms=None,
            ci_low_ms=None,
            ci_high_ms=None,
            relative_overhead_pct=None,
            mann_whitney_u=None,
            p_value=None,
            max_rate_hz=None,
        )
    difference = bootstrap_difference(base, other)
    base_mean = float(np.mean([g.mean() for g in base]))
    other_mean = float(np.mean([g.mean() for g in other]))
    test = mann_whitney(np.concatenate(other), np.concatenate(base))
    return PairComparison(
        baseline_run_id=baseline,
        treatment_run_id=treated,
        differs_in=differences,
        baseline_mean_ms=base_mean,
        treatment_mean_ms=other_mean,
        overhead_ms=difference.estimate,
        ci_low_ms=difference.ci_low,
        ci_high_ms=difference.ci_high,
        relative_overhead_pct=100 * difference.estimate / base_mean if base_mean else None,
        mann_whitney_u=test.u,
        p_value=test.p_value,
        max_rate_hz=max_rate_hz(difference.estimate),
    )
