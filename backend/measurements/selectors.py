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
