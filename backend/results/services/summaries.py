"""The statistics of a run: per device, over all devices, and over its repeats."""

from __future__ import annotations

import zlib
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from datetime import datetime
from uuid import UUID

import numpy as np
from django.core.cache import cache
from iotsecbench_contract.mechanisms import NONE

from experiments.models import Run, RunStatus
from measurements.models import Outcome
from measurements.selectors import NS_PER_MS
from results.selectors import run_repeats, runs_device_means_ns
from results.services.interleaved import (
    PairedOverhead,
    Part,
    mechanism_devices,
    part_run_of,
    rotation,
    run_paired_overhead,
)
from results.services.round_trips import DeviceRoundTrips, run_round_trips_load
from results.statistics import (
    BOOTSTRAP_SEED,
    MeanInterval,
    Summary,
    mean_interval,
    mean_of_means,
    summarize,
)

ALL_DEVICES_LABEL = "All devices"
STATISTICS_MEMO_KEY = "results:run-statistics:v2:{run_id}"
# A day: enough for the views of a run's page; a completed run's statistics never change.
STATISTICS_MEMO_SECONDS = 24 * 3600
_REJECTED = (Outcome.REJECTED_SIGNATURE, Outcome.REJECTED_REPLAY, Outcome.DECRYPT_ERROR)


@dataclass(frozen=True)
class DeviceStatistics:
    """One device's (or all devices', device_id None) counts and round-trip statistics."""

    device_id: UUID | None
    device_name: str
    records: int
    lost: int
    rejected_signature: int
    rejected_replay: int
    decrypt_error: int
    summary: Summary

    @property
    def rejected(self) -> int:
        return self.rejected_signature + self.rejected_replay + self.decrypt_error


@dataclass(frozen=True)
class RepeatRun:
    run_id: UUID
    created_at: datetime
    mean_ms: float


@dataclass(frozen=True)
class Repeats:
    """The completed runs of the same experiment and spec: the t interval of their combined
    means (each the mean of its device means)."""

    interval: MeanInterval
    runs: list[RepeatRun]


@dataclass(frozen=True)
class MechanismStatistics:
    """An interleaved run's statistics of one mechanism's messages, and its overhead against
    the run's own ``none`` messages paired by rotation cycle (None without ``none``)."""

    mechanism: str
    devices: list[DeviceStatistics]
    all_devices: DeviceStatistics
    overhead: PairedOverhead | None
    # As RunStatistics.mean_of_device_means_ms, over this mechanism's messages.
    mean_of_device_means_ms: float | None = None


@dataclass(frozen=True)
class RunStatistics:
    run_id: UUID
    status: str
    devices: list[DeviceStatistics]
    all_devices: DeviceStatistics
    mean_of_device_means_ms: float | None
    repeats: Repeats
    # An interleaved run's statistics per mechanism of its rotation ([]: not interleaved);
    # `devices` and `all_devices` above mix its mechanisms.
    mechanisms: list[MechanismStatistics] = field(default_factory=list)


def _device_statistics(
    device_id: UUID | None, name: str, counts: dict[str, int], values: np.ndarray
) -> DeviceStatistics:
    return DeviceStatistics(
        device_id=device_id,
        device_name=name,
        records=sum(counts.values()),
        lost=counts.get(Outcome.LOST, 0),
        rejected_signature=counts.get(Outcome.REJECTED_SIGNATURE, 0),
        rejected_replay=counts.get(Outcome.REJECTED_REPLAY, 0),
        decrypt_error=counts.get(Outcome.DECRYPT_ERROR, 0),
        summary=summarize(values),
    )


def run_statistics_compute(
    *,
    run: Run,
    devices: list[DeviceRoundTrips] | None = None,
    split: dict[str, list[DeviceRoundTrips]] | None = None,
) -> RunStatistics:
    """Statistics of the run's round trips in ms (results.statistics has the definitions).
    `devices` are the run's loaded round trips when the caller has them already, and
    `split` an interleaved run's `devices` per mechanism (interleaved.mechanism_devices)
    when it has made them too.

    A completed run's own statistics never change (its records are final): they are kept
    in Django's cache (per web process with the default local-memory cache), because one
    view of the run page asks for them twice (statistics table, methods paragraph). Its
    repeats are read afresh every time: a new repeat may have completed since."""
    memo_key = STATISTICS_MEMO_KEY.format(run_id=run.pk)
    if devices is None and run.status == RunStatus.DONE:
        memo = cache.get(memo_key)
        if isinstance(memo, RunStatistics):
            return replace(memo, repeats=run_repeats_compute(run=run))
    names = rotation(run.spec)
    if devices is None or (names and any(d.trips.seq.size != d.rtt_ms.size for d in devices)):
        devices = run_round_trips_load(run=run, with_seq=bool(names))
        split = None  # made of other devices: split again below
    per_device = [
        # Unsorted: summarize puts only the ranks it reads in place (no full sort).
        _device_statistics(d.device_id, d.device_name, d.trips.outcomes, d.rtt_ms)
        for d in devices
    ]
    statistics = RunStatistics(
        run_id=run.pk,
        status=run.status,
        devices=per_device,
        all_devices=_pooled(devices),
        mean_of_device_means_ms=mean_of_means([d.rtt_ms for d in devices]),
        repeats=run_repeats_compute(run=run),
        mechanisms=_mechanism_statistics(run, devices, names, split) if names else [],
    )
    if run.status == RunStatus.DONE:
        cache.set(memo_key, statistics, timeout=STATISTICS_MEMO_SECONDS)
    return statistics


def _pooled(devices: list[DeviceRoundTrips]) -> DeviceStatistics:
    """The statistics over all of `devices`' messages."""
    totals = {
        outcome: sum(d.trips.outcomes.get(outcome, 0) for d in devices)
        for outcome in Outcome.values
    }
    # Partitioned in summarize, not sorted: ~24 ms for a million values against ~70 ms.
    pooled = np.concatenate([d.rtt_ms for d in devices]) if devices else np.empty(0)
    return _device_statistics(None, ALL_DEVICES_LABEL, totals, pooled)


def _mechanism_statistics(
    run: Run,
    devices: list[DeviceRoundTrips],
    names: list[str],
    split: dict[str, list[DeviceRoundTrips]] | None,
) -> list[MechanismStatistics]:
    """Per mechanism of an interleaved run's rotation: its messages' statistics per device
    and over all devices, and its paired overhead against the run's ``none`` messages
    (results.services.interleaved: the pairing of the experiment's results)."""
    if split is None:
        split = mechanism_devices(run, devices, names)
    k = len(names)
    parts = {name: part_run_of(devices, Part(i, k, name), lost=0) for i, name in enumerate(names)}
    out = []
    for name in names:
        overhead = None
        if NONE in names and name != NONE:
            seed = BOOTSTRAP_SEED + zlib.crc32(f"{run.pk}-{name}".encode())
            overhead = run_paired_overhead(parts, name, NONE, seed=seed)
        per_device = [
            _device_statistics(d.device_id, d.device_name, d.trips.outcomes, d.rtt_ms)
            for d in split[name]
        ]
        out.append(
            MechanismStatistics(
                name,
                per_device,
                _pooled(split[name]),
                overhead,
                mean_of_means([d.rtt_ms for d in split[name]]),
            )
        )
    return out


def run_repeats_compute(*, run: Run) -> Repeats:
    """From the summaries stored when each repeat completed: no records are read."""
    repeats = run_repeats(run=run)
    device_means = runs_device_means_ns(run_ids=[r.pk for r in repeats])
    runs = []
    for repeat in repeats:
        combined = mean_of_means([[m] for m in device_means.get(repeat.pk, [])])
        if combined is not None:
            runs.append(RepeatRun(repeat.pk, repeat.created_at, combined / NS_PER_MS))
    return Repeats(interval=mean_interval([r.mean_ms for r in runs]), runs=runs)


def repeats_within(repeats: Repeats, *, run_ids: Collection[UUID]) -> Repeats:
    """The repeats among `run_ids` only, their interval recomputed: what a shared page may
    show of a run's repeats (sharing), never the runs that were not shared."""
    runs = [r for r in repeats.runs if r.run_id in run_ids]
    return Repeats(interval=mean_interval([r.mean_ms for r in runs]), runs=runs)
