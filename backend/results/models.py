"""The results app computes from measurements; it stores only a cache of what it reads."""

from __future__ import annotations

from django.db import models

from experiments.models import RunDevice


class RoundTripCache(models.Model):
    """The delivered round trips of one device's part of a *completed* run, packed: the
    sequence numbers (little-endian int32) and round-trip times in ns (little-endian int64)
    in send order, and the count of each outcome.

    Why: aggregating a million records costs 0.6-0.8 s of table scan and aggregation,
    reading these packed arrays back 27-42 ms (docs/benchmarks.md, "Results"), and the
    results page reads them on every view. A completed run's records never change (uploads
    to a finished run are refused), so the cache is filled once (by the task queued when the
    run completes, or by the first read) and never invalidated; it goes with its RunDevice.
    Runs still in progress (or failed, whose queued chunks may still land) are always read
    from the records. Rows are written by results.services.round_trips.round_trip_cache_store
    only.
    """

    run_device = models.OneToOneField(
        RunDevice, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    seq = models.BinaryField()
    rtt_ns = models.BinaryField()
    outcomes = models.JSONField()
    # [[wire bytes, delivered messages of that size], ...] by size: what the message-size
    # breakdown reads (results.services.sizes) instead of scanning the records again.
    # NULL until first needed (rows cached before it existed).
    wire_sizes = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
