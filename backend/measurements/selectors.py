from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import psycopg
from django.db import connection
from django.db.models import F, QuerySet
from psycopg.adapt import Loader

from experiments.models import Run
from measurements.models import BenchStatistic, MessageRecord, Outcome, RunStatistic

NS_PER_MS = 1_000_000.0
NS_PER_US = 1_000.0


def run_statistics(*, run: Run) -> QuerySet[RunStatistic]:
    """Per-device rows first (by device name), then the all-devices row."""
    return (
        RunStatistic.objects.filter(run=run)
        .select_related("run_device__device")
        .order_by(F("run_device__device__name").asc(nulls_last=True))
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
    counts = ", ".join(
        f"count(*) FILTER (WHERE r.outcome = '{outcome}')" for outcome in Outcome.values
    )
    sql = (
        f"SELECT r.run_device_id, array_agg(r.seq) FILTER (WHERE {_DELIVERED}), "
        f"array_agg(r.t_recv_ns - r.t_send_ns) FILTER (WHERE {_DELIVERED}), {counts} "
        f"FROM {MessageRecord._meta.db_table} r "
        "JOIN experiments_rundevice rd ON rd.id = r.run_device_id "
        "WHERE rd.run_id = %s GROUP BY r.run_device_id"
    )
    out: dict[int, RoundTrips] = {}
    with binary_cursor() as cursor:
        cursor.execute(sql, [run.pk])
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
