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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from iotsecbench_contract.interleave import FIELD

from experiments.models import Run
from measurements.models import MessageRecord, Outcome
from results.hierarchical import Replicates, hierarchical_replicates
from results.services.round_trips import run_round_trips_load
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
    devices = run_round_trips_load(run=run, with_seq=True)
    cycles: list[np.ndarray] = []
    values: list[FloatArray] = []
    for device in devices:
        seq = device.trips.seq.astype(np.int64)
        mine = seq % part.k == part.index
        cycles.append(seq[mine] // part.k)
        values.append(device.rtt_ms[mine])
    lost = MessageRecord.objects.filter(
        run_device__run=run, mechanism=part.mechanism, outcome=Outcome.LOST
    ).count()
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
