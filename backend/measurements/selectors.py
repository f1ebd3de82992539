from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypedDict
from uuid import UUID

import numpy as np
import numpy.typing as npt
import psycopg
from django.db import connection
from django.db.models import F, QuerySet
from django.shortcuts import get_object_or_404
from psycopg.adapt import Loader

from devices.models import Device
from experiments.models import Run, RunDevice
from experiments.selectors import RunPage
from measurements.models import BenchStatistic, MessageRecord, Outcome, RunStatistic

NS_PER_MS = 1_000_000.0
NS_PER_US = 1_000.0
ALL_DEVICES_LABEL = "All devices"


def device_run_part_get(*, device: Device, run_id: UUID) -> RunDevice:
    """The device's own part of a run (what it uploads to): another device's run id, or an
    unknown one, answers 404."""
    return get_object_or_404(
        RunDevice.objects.select_related("run", "device"), run_id=run_id, device=device
    )


def run_statistics(*, run: Run) -> QuerySet[RunStatistic]:
    """Per-device rows first (by device name), then the all-devices row; an interleaved
    run's rows over all its messages first (mechanism NULL), then each mechanism's."""
    return (
        RunStatistic.objects.filter(run=run)
        .select_related("run_device__device")
        .order_by(
            F("mechanism").asc(nulls_first=True),
            F("run_device__device__name").asc(nulls_last=True),
        )
    )


def bench_statistics(*, run: Run) -> QuerySet[BenchStatistic]:
    return (
        BenchStatistic.objects.filter(run=run)
        .select_related("run_device__device")
        .order_by("run_device__device__name", "mechanism", "data_bytes", "operation")
    )


# The null mechanism encrypts/decrypts; a signature's sign/verify compare with those.
_FLOOR_OPERATION = {"sign": "encrypt", "verify": "decrypt"}
BenchKey = tuple[int, str, int]  # (run_device_id, operation, data_bytes)


@dataclass(frozen=True)
class BenchBaselines:
    """What a benchmark run's rows are compared with, within the same device, operation and
    size: the `null` mechanism's mean time (the harness floor) and the packet rate without
    security (`none`, throughput runs)."""

    floor_ns: dict[BenchKey, float]
    none_rate: dict[BenchKey, float | None]

    @classmethod
    def of(cls, statistics: list[BenchStatistic]) -> BenchBaselines:
        return cls(
            floor_ns={
                (b.run_device_id, b.operation, b.data_bytes): b.wall_mean_ns
                for b in statistics
                if b.mechanism == "null"
            },
            none_rate={
                (b.run_device_id, b.operation, b.data_bytes): b.rate_mean
                for b in statistics
                if b.mechanism == "none"
            },
        )

    def net_mean_us(self, row: BenchStatistic) -> float | None:
        """Mean time minus the null mechanism's (encrypt/sign vs. decrypt/verify); None
        when the run has no null rows for the row's device and size."""
        operation = _FLOOR_OPERATION.get(row.operation, row.operation)
        floor = self.floor_ns.get((row.run_device_id, operation, row.data_bytes))
        return None if floor is None else (row.wall_mean_ns - floor) / NS_PER_US

    def relative_cost(self, row: BenchStatistic) -> float | None:
        """Packets/s without security ÷ packets/s with the row's mechanism; None without a
        `none` row (or a rate)."""
        none_rate = self.none_rate.get((row.run_device_id, row.operation, row.data_bytes))
        if not none_rate or not row.rate_mean:
            return None
        return none_rate / row.rate_mean


@dataclass(frozen=True)
class RoundTrips:
    """One device's part of a run: the delivered messages' sequence numbers and round-trip
    times (ns) in send order, and how many records carry each outcome."""

    seq: npt.NDArray[np.int32]
    rtt_ns: npt.NDArray[np.int64]
    outcomes: dict[str, int]


# A delivered message: `ok` with a receive time (the table's CHECK lets a NULL through).
_DELIVERED = "r.outcome = 'ok' AND r.t_recv_ns IS NOT NULL"


def run_round_trips(*, run: Run) -> dict[int, RoundTrips]:
    """The round trips of every device of the run that has records, keyed by run device id.

    One pass over the records: both arrays come back as one binary `array_agg` each, straight
    into numpy, without a Python object per value. The aggregates carry no ORDER BY (a sort
    inside the aggregate made the query slower than all the rest; docs/benchmarks.md,
    "Results"); both see each group's rows in the same order, so one stable argsort by
    sequence number orders them, in O(n) when the rows came in key order.
    """
    return _round_trips(
        "JOIN experiments_rundevice rd ON rd.id = r.run_device_id WHERE rd.run_id = %s", run.pk
    )


def run_devices_round_trips(*, run_device_ids: Sequence[int]) -> dict[int, RoundTrips]:
    """As `run_round_trips`, for the given run devices of any runs, in one pass (the cold
    first view of an experiment's results reads every missing run at once)."""
    return _round_trips("WHERE r.run_device_id = ANY(%s)", list(run_device_ids))


def _round_trips(where: str, param: Any) -> dict[int, RoundTrips]:
    counts = ", ".join(
        f"count(*) FILTER (WHERE r.outcome = '{outcome}')" for outcome in Outcome.values
    )
    sql = (
        f"SELECT r.run_device_id, array_agg(r.seq) FILTER (WHERE {_DELIVERED}), "
        f"array_agg(r.t_recv_ns - r.t_send_ns) FILTER (WHERE {_DELIVERED}), {counts} "
        f"FROM {MessageRecord._meta.db_table} r {where} GROUP BY r.run_device_id"
    )
    out: dict[int, RoundTrips] = {}
    with binary_cursor() as cursor:
        cursor.execute(sql, [param])
        for rd_id, seq, rtt, *outcome_counts in cursor.fetchall():
            seq = _INT4_EMPTY if seq is None else seq
            rtt = _INT8_EMPTY if rtt is None else rtt
            order = np.argsort(seq, kind="stable")
            out[rd_id] = RoundTrips(
                seq=seq[order],
                rtt_ns=rtt[order],
                outcomes=dict(zip(Outcome.values, outcome_counts, strict=True)),
            )
    return out


# --- binary results ---------------------------------------------------------------------

_INT4_EMPTY: npt.NDArray[np.int32] = np.empty(0, np.int32)
_INT8_EMPTY: npt.NDArray[np.int64] = np.empty(0, np.int64)


class _NumpyArrayLoader(Loader):
    """A one-dimensional PostgreSQL int4[]/int8[] in binary format → a numpy array, without
    a Python object per element. Format: ndim, has-nulls flag, element oid (int4 each), then
    per dimension its length and lower bound, then per element its byte length and value,
    all big-endian."""

    format = psycopg.pq.Format.BINARY
    item: np.dtype[Any] = np.dtype(">i8")

    def load(self, data: Any) -> npt.NDArray[Any]:
        header = np.frombuffer(data, ">i4", count=3)
        native = self.item.newbyteorder("=")
        if header[0] == 0:
            return np.empty(0, native)
        if header[0] != 1 or header[1] != 0:
            raise ValueError("expected a one-dimensional array without NULLs")
        length = int(np.frombuffer(data, ">i4", count=1, offset=12)[0])
        pairs = np.frombuffer(
            data, np.dtype([("len", ">i4"), ("value", self.item)]), count=length, offset=20
        )
        return pairs["value"].astype(native)


class _Int4ArrayLoader(_NumpyArrayLoader):
    item = np.dtype(">i4")


def _array_oid(name: str) -> int:
    info = psycopg.postgres.types.get(name)
    assert info is not None, name
    return info.array_oid


@contextmanager
def binary_cursor() -> Iterator[psycopg.Cursor[Any]]:
    """A psycopg cursor on Django's connection (same transaction) that asks the server for
    binary results and loads int4[]/int8[] as numpy arrays. Django's own cursors are
    client-side-binding ones, which psycopg cannot give binary results."""
    connection.ensure_connection()
    with psycopg.Cursor(connection.connection) as cursor:
        cursor.format = psycopg.pq.Format.BINARY
        cursor.adapters.register_loader(_array_oid("int8"), _NumpyArrayLoader)
        cursor.adapters.register_loader(_array_oid("int4"), _Int4ArrayLoader)
        yield cursor


class RunSummaryRow(TypedDict):
    """A messaging run's summary row, in the run page's units (ms, µs)."""

    device_id: UUID | None
    device_name: str
    mechanism: str | None
    n: int
    lost: int
    mean_ms: float | None
    median_ms: float | None
    p95_ms: float | None
    p99_ms: float | None
    min_ms: float | None
    max_ms: float | None
    std_ms: float | None
    secure_mean_us: float | None
    unsecure_mean_us: float | None
    floor_secure_mean_us: float | None
    floor_unsecure_mean_us: float | None
    net_secure_mean_us: float | None
    net_unsecure_mean_us: float | None
    secure_median_us: float | None
    unsecure_median_us: float | None
    net_secure_median_us: float | None
    net_unsecure_median_us: float | None


class BenchSummaryRow(TypedDict):
    """A sample kind's summary row (device, mechanism, operation, size), in µs and MB/s,
    with its cost net of the null floor and relative to no security."""

    device_id: UUID
    device_name: str
    mechanism: str
    operation: str
    data_bytes: int
    n: int
    mean_us: float
    var_us2: float | None
    std_us: float | None
    cpu_mean_us: float
    throughput_mb_s: float
    peak_rss_kb: int
    calls_per_repetition: int | None
    packets_per_s_mean: float | None
    packets_per_s_std: float | None
    net_mean_us: float | None
    relative_cost: float | None


def _ms(value: float | None) -> float | None:
    return None if value is None else value / NS_PER_MS


def _us(value: float | None) -> float | None:
    return None if value is None else value / NS_PER_US


def run_summary_rows(*, run: Run) -> list[RunSummaryRow]:
    """The stored summary's rows; an interleaved run's per mechanism only (its rows over all
    messages mix mechanisms: a securing time of none, null and AES together means nothing)."""
    statistics = list(run_statistics(run=run))
    if any(s.mechanism for s in statistics):
        # In the rotation's order (none, null, aes-128-cbc as designed), not by name.
        rotation = run.spec.get("interleave_mechanisms") or []
        place = {name: i for i, name in enumerate(rotation)}
        statistics = sorted(
            (s for s in statistics if s.mechanism),
            key=lambda s: place.get(s.mechanism or "", len(place)),
        )
    return [
        RunSummaryRow(
            device_id=s.run_device.device_id if s.run_device else None,
            device_name=s.run_device.device.name if s.run_device else ALL_DEVICES_LABEL,
            mechanism=s.mechanism,
            n=s.n,
            lost=s.lost,
            mean_ms=_ms(s.mean_ns),
            median_ms=_ms(s.median_ns),
            p95_ms=_ms(s.p95_ns),
            p99_ms=_ms(s.p99_ns),
            min_ms=_ms(s.min_ns),
            max_ms=_ms(s.max_ns),
            std_ms=_ms(s.std_ns),
            secure_mean_us=_us(s.secure_mean_ns),
            unsecure_mean_us=_us(s.unsecure_mean_ns),
            floor_secure_mean_us=_us(s.floor_secure_mean_ns),
            floor_unsecure_mean_us=_us(s.floor_unsecure_mean_ns),
            net_secure_mean_us=_us(s.net_secure_mean_ns),
            net_unsecure_mean_us=_us(s.net_unsecure_mean_ns),
            secure_median_us=_us(s.secure_median_ns),
            unsecure_median_us=_us(s.unsecure_median_ns),
            net_secure_median_us=_us(s.net_secure_median_ns),
            net_unsecure_median_us=_us(s.net_unsecure_median_ns),
        )
        for s in statistics
    ]


def bench_summary_rows(*, run: Run) -> list[BenchSummaryRow]:
    statistics = list(bench_statistics(run=run))
    baselines = BenchBaselines.of(statistics)
    return [
        BenchSummaryRow(
            device_id=b.run_device.device_id,
            device_name=b.run_device.device.name,
            mechanism=b.mechanism,
            operation=b.operation,
            data_bytes=b.data_bytes,
            n=b.n,
            mean_us=b.wall_mean_ns / NS_PER_US,
            var_us2=None if b.wall_var_ns2 is None else b.wall_var_ns2 / NS_PER_US**2,
            std_us=_us(b.wall_std_ns),
            cpu_mean_us=b.cpu_mean_ns / NS_PER_US,
            # MB/s = bytes / µs
            throughput_mb_s=b.data_bytes / (b.wall_mean_ns / NS_PER_US) if b.wall_mean_ns else 0.0,
            peak_rss_kb=b.peak_rss_kb,
            calls_per_repetition=b.calls,
            packets_per_s_mean=b.rate_mean,
            packets_per_s_std=b.rate_std,
            net_mean_us=baselines.net_mean_us(b),
            relative_cost=baselines.relative_cost(b),
        )
        for b in statistics
    ]


def run_page(*, run: Run) -> RunPage:
    """The run page's answer: the run, its devices and its summaries (also what a shared
    run shows, sharing.apis)."""
    return RunPage(
        run=run, summary=run_summary_rows(run=run), bench_summary=bench_summary_rows(run=run)
    )
