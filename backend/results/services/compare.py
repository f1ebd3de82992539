"""Runs side by side, and the overhead of each pair that differs in exactly one parameter.

A pair is one run a side within one repeat, or the runs of both sides aggregated over their
repeats when each side has two or more (results.pairing). Aggregated pairs get the
two-stage (hierarchical) interval of the experiment results page, which sees run-to-run
variation; one-run pairs get a message-level interval and say that it cannot see it. No
message-level test across runs: messages of two runs are not independent samples of one
condition, and such a test reports run-to-run noise as highly significant (issue #20).

An interleaved run is compared by its mechanisms (docs/results.md, "Interleaved runs"): its
statistics carry its per-mechanism figures (RunStatistics.mechanisms), and it enters the
pairing as one side per mechanism of its rotation, that mechanism's messages only
(results.pairing: a side pairs with the same mechanism of another run). Two runs of which
neither has a mechanism of the other are said so in ``unmatched``.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
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
from results.services.interleaved import mechanism_devices, rotation, run_parts
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
NO_MATCH_TEXT = (
    "No mechanism to match: {plain} is {security}; {interleaved} interleaves {rotation}."
)
NO_COMMON_TEXT = (
    "No mechanism in common: {a} interleaves {rotation_a}; {b} interleaves {rotation_b}."
)

# A side of the pairing: a run, or one mechanism's messages of an interleaved run.
SideKey = tuple[UUID, str | None]


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
    # The mechanism whose messages an interleaved side gives (None: neither side is one).
    mechanism: str | None = None
    mechanism_text: str = ""

    @property
    def baseline_run_id(self) -> UUID:
        return self.baseline_run_ids[0]

    @property
    def treatment_run_id(self) -> UUID:
        return self.treatment_run_ids[0]


@dataclass(frozen=True)
class Unmatched:
    """Two runs, one of them interleaved, of which neither has a mechanism of the other."""

    run_ids: list[UUID]
    message: str


@dataclass(frozen=True)
class Comparison:
    runs: list[ComparedRun]
    pairs: list[PairComparison]
    resamples: int
    draw_max: int
    seed: int
    unmatched: list[Unmatched] = field(default_factory=list)


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
    verdict that says what the interval can see, and 1 / overhead when it is above zero.
    An interleaved run's sides are its mechanisms' messages (module docstring)."""
    loaded: dict[SideKey, list[DeviceRoundTrips]] = {}
    compared, candidates = [], []
    labels = run_labels(runs)
    for run in runs:
        names = rotation(run.spec)
        devices = run_round_trips_load(run=run, with_seq=bool(names))
        split = mechanism_devices(run, devices, names) if names else {}
        compared.append(
            ComparedRun(
                run_id=run.pk,
                experiment_id=run.experiment_id,
                experiment_name=run.experiment.name,
                label=labels[run.pk],
                repeat=run.repeat,
                treatment=treatment(run.spec),
                conditions=conditions(run.spec),
                statistics=run_statistics_compute(run=run, devices=devices, split=split or None),
            )
        )
        device_ids = frozenset(rd.device_id for rd in run.run_devices.all())
        for spec, part in run_parts(run.spec):
            key: SideKey = (run.pk, part.mechanism if part else None)
            loaded[key] = split[part.mechanism] if part else devices
            candidates.append(
                Candidate(
                    key=key,
                    kind=run.experiment.kind,
                    spec=spec,
                    device_ids=device_ids,
                    repeat=run.repeat,
                )
            )
    return Comparison(
        runs=compared,
        pairs=[_pair_compare(pair, loaded, labels) for pair in pairs(candidates)],
        resamples=BOOTSTRAP_RESAMPLES,
        draw_max=BOOTSTRAP_DRAW_MAX,
        seed=BOOTSTRAP_SEED,
        unmatched=_unmatched(runs, labels),
    )


def _unmatched(runs: Sequence[Run], labels: dict[UUID, str]) -> list[Unmatched]:
    """Every two runs, one interleaved at least, with no mechanism in common."""
    out = []
    for i, a in enumerate(runs):
        for b in runs[i + 1 :]:
            ra, rb = rotation(a.spec), rotation(b.spec)
            if not ra and not rb:
                continue
            mechanisms_a = ra or [str(a.spec.get("security"))]
            mechanisms_b = rb or [str(b.spec.get("security"))]
            if set(mechanisms_a) & set(mechanisms_b):
                continue
            if ra and rb:
                message = NO_COMMON_TEXT.format(
                    a=labels[a.pk],
                    rotation_a=", ".join(ra),
                    b=labels[b.pk],
                    rotation_b=", ".join(rb),
                )
            else:
                plain, interleaved = (b, a) if ra else (a, b)
                message = NO_MATCH_TEXT.format(
                    plain=labels[plain.pk],
                    security=plain.spec.get("security"),
                    interleaved=labels[interleaved.pk],
                    rotation=", ".join(ra or rb),
                )
            out.append(Unmatched([a.pk, b.pk], message))
    return out


def _text(value: Any) -> str | None:
    if isinstance(value, list):  # an interleaved run's rotation
        return ", ".join(map(str, value))
    return None if value is None else str(value)


def _side_label(keys: Sequence[SideKey], labels: dict[UUID, str]) -> str:
    ids = [run_id for run_id, _ in keys]
    mechanism = keys[0][1]
    if len(ids) == 1:
        label = labels[ids[0]]
    else:
        # The runs of one side differ only in their repeat: drop it, say how many.
        first = labels[ids[0]].rsplit(" · repeat ", 1)[0]
        label = f"{first} · {len(ids)} repeats"
    return f"{label} · {mechanism}" if mechanism else label


def _mechanism_text(pair: Pair) -> tuple[str | None, str]:
    """The mechanism an interleaved side gives, and what the pair compares in words."""
    base, other = pair.baseline[0][1], pair.treatment[0][1]
    mechanism = base or other
    if mechanism is None:
        return None, ""
    if base and other:
        return mechanism, f"Mechanism {mechanism}: both sides' {mechanism} messages only."
    return (
        mechanism,
        f"Matched mechanism {mechanism}: the interleaved side's {mechanism} messages only.",
    )


def _verdict(low: float, high: float) -> str:
    if low > 0:
        return VERDICT_SLOWER
    if high < 0:
        return VERDICT_FASTER
    return VERDICT_NO_DIFFERENCE


def _pair_compare(
    pair: Pair, loaded: dict[SideKey, list[DeviceRoundTrips]], labels: dict[UUID, str]
) -> PairComparison:
    base_ids, other_ids = list(pair.baseline), list(pair.treatment)
    mechanism, mechanism_text = _mechanism_text(pair)
    common: dict[str, Any] = {
        "baseline_run_ids": [run_id for run_id, _ in base_ids],
        "treatment_run_ids": [run_id for run_id, _ in other_ids],
        "baseline_label": _side_label(base_ids, labels),
        "treatment_label": _side_label(other_ids, labels),
        "repeat": pair.repeat,
        "parameter": pair.parameter,
        "differs_in": [Difference(k, _text(a), _text(b)) for k, (a, b) in pair.differs_in.items()],
        "mechanism": mechanism,
        "mechanism_text": mechanism_text,
    }
    if pair.repeat is None:
        return _aggregated(common, [base_ids, other_ids], loaded)
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
    common: dict[str, Any],
    keys: list[list[SideKey]],
    loaded: dict[SideKey, list[DeviceRoundTrips]],
) -> PairComparison:
    """Two runs or more a side: the experiment results' two-stage bootstrap of each side."""
    sides = []
    for side in keys:
        values = [np.concatenate([d.rtt_ms for d in loaded[k]] or [np.empty(0)]) for k in side]
        # Each side its own seed (from its runs): the two sides' resamples are independent.
        ids = [str(run_id) for run_id, _ in side]
        mechanism = side[0][1]
        seed = BOOTSTRAP_SEED + zlib.crc32(
            ",".join(sorted(ids) + ([mechanism] if mechanism else [])).encode()
        )
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
