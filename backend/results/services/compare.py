"""Runs side by side, and the overhead of each pair that differs in exactly one parameter.

A pair is one run a side within one repeat, or the runs of both sides aggregated over their
repeats when each side has two or more (results.pairing). Aggregated pairs get the
two-stage (hierarchical) interval of the experiment results page, which sees run-to-run
variation; one-run pairs get a message-level interval and say that it cannot see it. No
message-level test across runs: messages of two runs are not independent samples of one
condition, and such a test reports run-to-run noise as highly significant (issue #20).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import numpy as np

from experiments.models import Run
from results.hierarchical import (
    LEVEL_MESSAGES,
    LEVEL_RUNS,
    cell_difference,
    hierarchical_replicates,
)
from results.pairing import Candidate, Pair, conditions, pairs, treatment
from results.services.experiment_results import (
    VERDICT_FASTER,
    VERDICT_NO_DIFFERENCE,
    VERDICT_SLOWER,
)
from results.services.round_trips import DeviceRoundTrips, run_round_trips_load
from results.services.summaries import RunStatistics, run_statistics_compute
from results.statistics import (
    BOOTSTRAP_DRAW_MAX,
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    bootstrap_difference,
    max_rate_hz,
    mean_of_means,
)

# Every run's round trips are in memory at once (8 bytes per delivered message: a million-
# message run is 8 MB) and every pair costs a bootstrap: eight runs is a page of figures.
COMPARE_RUNS_MAX = 8

_ONE_RUN = (
    "at the message level only: one run a side cannot show run-to-run variation, which is "
    "often larger (compare two repeats or more of each side)"
)
VERDICT_TEXT = {
    (VERDICT_SLOWER, LEVEL_RUNS): "slower than the baseline beyond run-to-run variation",
    (VERDICT_FASTER, LEVEL_RUNS): "faster than the baseline beyond run-to-run variation",
    (VERDICT_NO_DIFFERENCE, LEVEL_RUNS): "no difference detectable beyond run-to-run variation",
    (VERDICT_SLOWER, LEVEL_MESSAGES): f"slower than the baseline {_ONE_RUN}",
    (VERDICT_FASTER, LEVEL_MESSAGES): f"faster than the baseline {_ONE_RUN}",
    (VERDICT_NO_DIFFERENCE, LEVEL_MESSAGES): f"no difference detectable {_ONE_RUN}",
}
NOTHING_DELIVERED_TEXT = "nothing to compare: a side delivered no message"


@dataclass(frozen=True)
class ComparedRun:
    run_id: UUID
    experiment_id: UUID
    experiment_name: str
    label: str
    repeat: int
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
    """treatment - baseline of the sides' means (ms); None where a side delivered nothing.
    One run a side: combined means (mean of device means), message-level interval. Two runs
    or more a side: means of run means, two-stage interval over runs."""

    baseline_run_ids: list[UUID]
    treatment_run_ids: list[UUID]
    baseline_label: str
    treatment_label: str
    repeat: int | None  # None: aggregated over repeats
    parameter: str
    differs_in: list[Difference]
    interval_level: str
    baseline_mean_ms: float | None
    treatment_mean_ms: float | None
    overhead_ms: float | None
    ci_low_ms: float | None
    ci_high_ms: float | None
    relative_overhead_pct: float | None
    verdict: str | None
    verdict_text: str
    max_rate_hz: float | None  # only when the whole interval lies above zero

    @property
    def baseline_run_id(self) -> UUID:
        return self.baseline_run_ids[0]

    @property
    def treatment_run_id(self) -> UUID:
        return self.treatment_run_ids[0]


@dataclass(frozen=True)
class Comparison:
    runs: list[ComparedRun]
    pairs: list[PairComparison]
    resamples: int
    draw_max: int
    seed: int


def run_labels(runs: Sequence[Run]) -> dict[UUID, str]:
    """Each run's label (Run.label), after its experiment's name when the runs come from
    more than one experiment."""
    several = len({run.experiment_id for run in runs}) > 1
    return {
        run.pk: f"{run.experiment.name} · {run.label}" if several else run.label for run in runs
    }


def runs_compare(*, runs: list[Run]) -> Comparison:
    """Statistics of each run, and for each automatically paired two sides
    (results.pairing): the difference of means with its interval, the relative overhead, a
    verdict that says what the interval can see, and 1 / overhead when it is above zero."""
    loaded = {run.pk: run_round_trips_load(run=run, with_seq=False) for run in runs}
    labels = run_labels(runs)
    compared = [
        ComparedRun(
            run_id=run.pk,
            experiment_id=run.experiment_id,
            experiment_name=run.experiment.name,
            label=labels[run.pk],
            repeat=run.repeat,
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
            repeat=run.repeat,
        )
        for run in runs
    ]
    return Comparison(
        runs=compared,
        pairs=[_pair_compare(pair, loaded, labels) for pair in pairs(candidates)],
        resamples=BOOTSTRAP_RESAMPLES,
        draw_max=BOOTSTRAP_DRAW_MAX,
        seed=BOOTSTRAP_SEED,
    )


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _side_label(ids: Sequence[UUID], labels: dict[UUID, str]) -> str:
    if len(ids) == 1:
        return labels[ids[0]]
    # The runs of one side differ only in their repeat: drop it, say how many.
    first = labels[ids[0]].rsplit(" · repeat ", 1)[0]
    return f"{first} · {len(ids)} repeats"


def _verdict(low: float, high: float) -> str:
    if low > 0:
        return VERDICT_SLOWER
    if high < 0:
        return VERDICT_FASTER
    return VERDICT_NO_DIFFERENCE


def _pair_compare(
    pair: Pair, loaded: dict[UUID, list[DeviceRoundTrips]], labels: dict[UUID, str]
) -> PairComparison:
    base_ids, other_ids = list(pair.baseline), list(pair.treatment)
    common: dict[str, Any] = {
        "baseline_run_ids": base_ids,
        "treatment_run_ids": other_ids,
        "baseline_label": _side_label(base_ids, labels),
        "treatment_label": _side_label(other_ids, labels),
        "repeat": pair.repeat,
        "parameter": pair.parameter,
        "differs_in": [Difference(k, _text(a), _text(b)) for k, (a, b) in pair.differs_in.items()],
    }
    if pair.repeat is None:
        return _aggregated(common, loaded)
    base = [d.rtt_ms for d in loaded[base_ids[0]] if d.rtt_ms.size]
    other = [d.rtt_ms for d in loaded[other_ids[0]] if d.rtt_ms.size]
    if not base or not other:
        return _nothing(common, LEVEL_MESSAGES, mean_of_means(base), mean_of_means(other))
    difference = bootstrap_difference(base, other)
    base_mean = float(np.mean([g.mean() for g in base]))
    other_mean = float(np.mean([g.mean() for g in other]))
    return _measured(
        common,
        LEVEL_MESSAGES,
        base_mean,
        other_mean,
        (difference.estimate, difference.ci_low, difference.ci_high),
    )


def _aggregated(
    common: dict[str, Any], loaded: dict[UUID, list[DeviceRoundTrips]]
) -> PairComparison:
    """Two runs or more a side: the experiment results' two-stage bootstrap of each side."""
    sides = []
    for ids in (common["baseline_run_ids"], common["treatment_run_ids"]):
        values = [np.concatenate([d.rtt_ms for d in loaded[i]] or [np.empty(0)]) for i in ids]
        # Each side its own seed (from its runs): the two sides' resamples are independent.
        seed = BOOTSTRAP_SEED + zlib.crc32(",".join(sorted(map(str, ids))).encode())
        sides.append(hierarchical_replicates(values, seed=seed))
    base, other = sides
    if base is None or other is None:
        return _nothing(
            common, LEVEL_RUNS, base.mean if base else None, other.mean if other else None
        )
    diff = cell_difference(base, other)
    return _measured(
        common, diff.level, base.mean, other.mean, (diff.estimate, diff.ci_low, diff.ci_high)
    )


def _measured(
    common: dict[str, Any],
    level: str,
    base_mean: float,
    other_mean: float,
    difference: tuple[float, float, float],
) -> PairComparison:
    estimate, low, high = difference
    verdict = _verdict(low, high)
    return PairComparison(
        **common,
        interval_level=level,
        baseline_mean_ms=base_mean,
        treatment_mean_ms=other_mean,
        overhead_ms=estimate,
        ci_low_ms=low,
        ci_high_ms=high,
        relative_overhead_pct=100 * estimate / base_mean if base_mean else None,
        verdict=verdict,
        verdict_text=VERDICT_TEXT[(verdict, level)],
        max_rate_hz=max_rate_hz(estimate) if low > 0 else None,
    )


def _nothing(
    common: dict[str, Any], level: str, base_mean: float | None, other_mean: float | None
) -> PairComparison:
    return PairComparison(
        **common,
        interval_level=level,
        baseline_mean_ms=base_mean,
        treatment_mean_ms=other_mean,
        overhead_ms=None,
        ci_low_ms=None,
        ci_high_ms=None,
        relative_overhead_pct=None,
        verdict=None,
        verdict_text=NOTHING_DELIVERED_TEXT,
        max_rate_hz=None,
    )
