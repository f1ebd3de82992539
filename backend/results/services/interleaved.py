"""An interleaved run's results split per mechanism (docs/results.md, "Interleaved runs").

An interleaved run (spec ``interleave_mechanisms``, iotsecbench_contract.interleave) secures
message ``seq`` with ``rotation[seq % k]``. Its results are k cells, one per mechanism:
each cell's spec is the run's with ``security`` set to that mechanism (the rotation kept, so
it is never pooled with a run of that mechanism alone), and its values are the round trips
of the messages of that place in the rotation. Messages are split by ``seq % k``, the rule
the agent applied (the round-trip cache keeps ``seq``); the lost messages of a mechanism
are counted from the records' stored ``mechanism`` column.

The overhead of a mechanism against the ``none`` part of the same runs is **paired by
rotation cycle**: message ``c·k + i`` (mechanism i) against message ``c·k + j`` (the
baseline's place) of the same cycle ``c``, where both were delivered; the interval is the
two-stage bootstrap of those differences (runs, then cycles within runs), so drift along
the run cancels out of every pair.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from django.db.models import Count
from iotsecbench_contract.interleave import FIELD

from experiments.models import Run
from measurements.models import MessageRecord, Outcome
from measurements.selectors import RoundTrips
from results.hierarchical import Replicates, hierarchical_replicates
from results.services.round_trips import DeviceRoundTrips, run_round_trips_load
from results.statistics import FloatArray

# Above any device's cycle count (a run has at most a million messages).
_DEVICE_CYCLES = 1 << 32


@dataclass(frozen=True)
class Part:
    """The place ``index`` of an interleaved run's rotation of ``k`` mechanisms."""

    index: int
    k: int
    mechanism: str


@dataclass(frozen=True)
class PartRun:
    """One run's messages of one part: delivered round trips (ms) with their rotation cycle
    (``seq // k``), and the part's lost messages."""

    cycles: np.ndarray = field(repr=False)
    rtt_ms: FloatArray = field(repr=False)
    lost: int


def rotation(spec: Mapping[str, Any]) -> list[str]:
    """The run's rotation ([]: not interleaved)."""
    value = spec.get(FIELD) or []
    return [str(v) for v in value]


def run_parts(spec: Mapping[str, Any]) -> list[tuple[dict[str, Any], Part | None]]:
    """The cells' specs a run contributes to: its own (not interleaved), or one per
    mechanism of its rotation, each with ``security`` = that mechanism."""
    names = rotation(spec)
    if not names:
        return [(dict(spec), None)]
    return [
        ({**spec, "security": name}, Part(index, len(names), name))
        for index, name in enumerate(names)
    ]


def part_run_load(run: Run, part: Part) -> PartRun:
    """The round trips of ``run``'s messages secured with ``part``'s mechanism."""
    lost = MessageRecord.objects.filter(
        run_device__run=run, mechanism=part.mechanism, outcome=Outcome.LOST
    ).count()
    return part_run_of(run_round_trips_load(run=run, with_seq=True), part, lost=lost)


def part_run_of(devices: Sequence[DeviceRoundTrips], part: Part, *, lost: int) -> PartRun:
    """The part's messages of a run's loaded round trips (loaded with ``seq``)."""
    cycles: list[np.ndarray] = []
    values: list[FloatArray] = []
    for device in devices:
        seq = device.trips.seq.astype(np.int64)
        mine = seq % part.k == part.index
        cycles.append(seq[mine] // part.k)
        values.append(device.rtt_ms[mine])
    if not devices:
        return PartRun(np.empty(0, np.int64), np.empty(0), lost)
    # Several devices of one run: each device's cycles are moved to its own range, the same
    # for every part, so that pairs stay within one device's sequence.
    shifted = [c + n * _DEVICE_CYCLES for n, c in enumerate(cycles)]
    return PartRun(np.concatenate(shifted), np.concatenate(values), lost)


def paired_differences(
    treatment: Sequence[PartRun], baseline: Sequence[PartRun], *, seed: int
) -> Replicates | None:
    """The two-stage bootstrap of ``treatment - baseline`` per rotation cycle, run by run
    (the two sequences are the same runs, in the same order); None without a pair."""
    diffs = []
    for t, b in zip(treatment, baseline, strict=True):
        _, ti, bi = np.intersect1d(t.cycles, b.cycles, assume_unique=True, return_indices=True)
        diffs.append(t.rtt_ms[ti] - b.rtt_ms[bi])
    return hierarchical_replicates(diffs, seed=seed)


def mechanism_devices(
    run: Run, devices: Sequence[DeviceRoundTrips], names: Sequence[str]
) -> dict[str, list[DeviceRoundTrips]]:
    """Per mechanism of the rotation ``names``: each device's messages of that mechanism
    (``seq % k``, loaded with ``seq``), with the device's record counts of that mechanism
    by outcome (the stored ``MessageRecord.mechanism``)."""
    counts: dict[tuple[int, str], dict[str, int]] = defaultdict(
        lambda: dict.fromkeys(Outcome.values, 0)
    )
    rows = (
        MessageRecord.objects.filter(run_device__run=run)
        .order_by()
        .values_list("run_device_id", "mechanism", "outcome")
        .annotate(n=Count("*"))
    )
    for run_device_id, mechanism, outcome, n in rows:
        counts[(run_device_id, str(mechanism))][outcome] = n
    k = len(names)
    split: dict[str, list[DeviceRoundTrips]] = {}
    for index, name in enumerate(names):
        split[name] = []
        for device in devices:
            mine = device.trips.seq.astype(np.int64) % k == index
            trips = RoundTrips(
                seq=device.trips.seq[mine],
                rtt_ns=device.trips.rtt_ns[mine],
                outcomes=counts[(device.run_device_id, name)],
            )
            split[name].append(
                replace(device, trips=trips, rtt_ms=device.rtt_ms[mine], mechanism=name)
            )
    return split


@dataclass(frozen=True)
class PairedOverhead:
    """A mechanism's round trip minus the baseline's (``none``) of the same rotation cycles
    of one run (paired_differences), ms."""

    baseline: str
    pairs: int
    overhead_ms: float
    ci_low_ms: float
    ci_high_ms: float
    level: str


def run_paired_overhead(
    parts: Mapping[str, PartRun], mechanism: str, baseline: str, *, seed: int
) -> PairedOverhead | None:
    """The paired overhead of ``mechanism`` against ``baseline`` within one run (its parts
    by mechanism); None without a delivered pair."""
    treatment, base = parts[mechanism], parts[baseline]
    replicates = paired_differences([treatment], [base], seed=seed)
    pairs = np.intersect1d(treatment.cycles, base.cycles, assume_unique=True).size
    if replicates is None or not pairs:
        return None
    low, high = replicates.mean_interval()
    return PairedOverhead(baseline, int(pairs), replicates.mean, low, high, replicates.level)
