"""Loading a run's round trips, through the cache of completed runs (results.models)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from uuid import UUID

import numpy as np
from django.db import connection, transaction
from psycopg.types.json import Jsonb

from experiments.kinds import kind_get
from experiments.models import Run, RunStatus
from measurements.models import MessageRecord, Outcome
from measurements.selectors import NS_PER_MS, RoundTrips, binary_cursor, run_round_trips
from results.models import RoundTripCache
from results.selectors import round_trip_cache
from results.statistics import FloatArray

_NO_TRIPS = RoundTrips(
    seq=np.empty(0, np.int32),
    rtt_ns=np.empty(0, np.int64),
    outcomes=dict.fromkeys(Outcome.values, 0),
)


@dataclass(frozen=True)
class DeviceRoundTrips:
    """One device's part of a run with its delivered round-trip times in ms."""

    run_device_id: int
    device_id: UUID
    device_name: str
    facts: dict[str, Any]
    trips: RoundTrips
    rtt_ms: FloatArray = field(repr=False)
    # An interleaved run's mechanism when these are only its messages
    # (results.services.interleaved.mechanism_devices); None: all the device's messages.
    mechanism: str | None = None

    @cached_property
    def sorted_ms(self) -> FloatArray:
        """The round trips sorted: quantiles, boxes and histograms read them in O(1)."""
        return np.sort(self.rtt_ms)


def run_round_trips_load(*, run: Run, with_seq: bool = True) -> list[DeviceRoundTrips]:
    """Every device of the run (by name) with its round trips.

    A completed run is read from the cache, and the devices missing from it are read from
    the records once and stored; any other run is read from the records every time (its
    records may still change). Without `with_seq`, cached sequence numbers are not read
    (`seq` is then empty): only the series over the sequence needs them.
    """
    run_devices = list(run.run_devices.all())
    cacheable = run.status == RunStatus.DONE
    ids = [rd.pk for rd in run_devices]
    trips = round_trip_cache(run_device_ids=ids, with_seq=with_seq) if cacheable else {}
    missing = [rd_id for rd_id in ids if rd_id not in trips]
    if missing:
        fresh = run_round_trips(run=run)
        loaded = {rd_id: fresh.get(rd_id, _NO_TRIPS) for rd_id in missing}
        if cacheable:
            round_trip_cache_store(trips=loaded)
        trips.update(loaded)
    return [
        DeviceRoundTrips(
            run_device_id=rd.pk,
            device_id=rd.device_id,
            device_name=rd.device.name,
            facts=rd.facts,
            trips=trips[rd.pk],
            rtt_ms=trips[rd.pk].rtt_ns / NS_PER_MS,
        )
        for rd in run_devices
    ]


@transaction.atomic
def round_trip_cache_store(*, trips: dict[int, RoundTrips]) -> None:
    """Store the round trips of completed runs' devices.

    The arrays go as binary parameters: through the ORM (Django's client-side cursor) each
    would be hex-escaped into the SQL text, 24 MB of it for a million-record run. Two first
    views at once both compute them; the second insert is skipped (ON CONFLICT). No
    full_clean: the rows are built here from the records, never from input.
    """
    sql = (
        f"INSERT INTO {RoundTripCache._meta.db_table} "
        "(run_device_id, seq, rtt_ns, outcomes, created_at) "
        "VALUES (%s, %b, %b, %s, now()) ON CONFLICT (run_device_id) DO NOTHING"
    )
    with binary_cursor() as cursor:
        cursor.executemany(
            sql,
            [
                (
                    rd_id,
                    t.seq.astype("<i4").tobytes(),
                    t.rtt_ns.astype("<i8").tobytes(),
                    Jsonb(t.outcomes),
                )
                for rd_id, t in trips.items()
            ],
        )


def run_wire_size_counts(*, run: Run) -> list[tuple[int, int]]:
    """(wire bytes, delivered messages of that size) of the run, by size.

    A run's messages take few distinct sizes: one hash aggregate by size, never a sort of
    every record. For a completed run the counts are kept per device beside its cached
    round trips (RoundTripCache.wire_sizes), filled where missing, so the records are
    scanned once per run."""
    ids = [rd.pk for rd in run.run_devices.all()]
    cacheable = run.status == RunStatus.DONE
    stored: dict[int, list[list[int]]] = {}
    if cacheable:
        rows = RoundTripCache.objects.filter(run_device_id__in=ids, wire_sizes__isnull=False)
        for rd_id, sizes in rows.values_list("run_device_id", "wire_sizes"):
            stored[rd_id] = sizes or []
    missing = [rd_id for rd_id in ids if rd_id not in stored]
    if missing:
        fresh = _wire_size_counts(run_device_ids=missing)
        if cacheable:
            for rd_id in missing:
                RoundTripCache.objects.filter(run_device_id=rd_id).update(
                    wire_sizes=fresh.get(rd_id, [])
                )
        stored.update(fresh)
    totals: Counter[int] = Counter()
    for sizes in stored.values():
        for size, count in sizes:
            totals[size] += count
    return sorted(totals.items())


def _wire_size_counts(*, run_device_ids: list[int]) -> dict[int, list[list[int]]]:
    sql = (
        f"SELECT run_device_id, wire_bytes, count(*) FROM {MessageRecord._meta.db_table} "
        "WHERE run_device_id = ANY(%s) AND outcome = %s "
        "GROUP BY run_device_id, wire_bytes ORDER BY run_device_id, wire_bytes"
    )
    counts: dict[int, list[list[int]]] = {}
    with connection.cursor() as cursor:
        cursor.execute(sql, [run_device_ids, Outcome.OK])
        for rd_id, size, count in cursor.fetchall():
            counts.setdefault(rd_id, []).append([size, count])
    return counts


def run_round_trips_warm(*, run_id: UUID | str) -> int:
    """Fill the cache of a completed messaging run, so its first view is as fast as later
    ones. Returns the number of devices read (0 when there is nothing to cache)."""
    run = (
        Run.objects.filter(pk=run_id, status=RunStatus.DONE)
        .select_related("experiment")
        .prefetch_related("run_devices__device")
        .first()
    )
    if run is None or kind_get(run.experiment.kind).samples:
        return 0
    loaded = len(run_round_trips_load(run=run))
    run_wire_size_counts(run=run)
    return loaded
