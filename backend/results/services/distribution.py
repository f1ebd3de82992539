"""Plot data of a run's round trips: aggregated on the server, never the raw records.

A Plotly figure of a million raw points is ~14 MB of JSON; these aggregates are a few kB
per device whatever the run's size (docs/benchmarks.md, "Results").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from uuid import UUID

import numpy as np
from django.core.cache import cache
from django.db import models

from experiments.models import Run, RunStatus
from results.plotdata import Box, Series, bin_edges, box, density, downsample, histogram
from results.services.interleaved import mechanism_devices, rotation
from results.services.round_trips import DeviceRoundTrips, run_round_trips_load
from results.statistics import FloatArray

BINS_DEFAULT = 200
BINS_MAX = 1_000  # a bin per two pixels of a wide plot; more only grows the page
# The violin's density (results.plotdata.density: a binned Gaussian KDE of every value)
# is sent at this many points of the shared range.
KDE_GRID_POINTS = 128
SERIES_BUCKETS = 200  # RTT over sequence: min/max/mean per bucket, one bucket ≈ 4 pixels
OUTLIER_SAMPLE_MAX = 50
# Plot values are rounded to 1/10,000 of the plotted range (far below a pixel), which
# roughly halves the JSON of long decimal expansions.
PLOT_STEPS = 10_000
# A completed run's plot data per query, as its statistics (results.services.summaries): its
# records are final. The worker fills the default query's when the run completes
# (results.services.warm), so the page's first view reads it.
DISTRIBUTION_MEMO_KEY = "results:run-distribution:v2:{run_id}:{bins}:{low}:{high}:{span}"
DISTRIBUTION_MEMO_SECONDS = 24 * 3600


@dataclass(frozen=True)
class DeviceDistribution:
    device_id: UUID
    device_name: str
    n: int
    counts: list[int]
    below: int
    above: int
    box: Box | None
    density: list[float] | None
    series: Series
    mechanism: str | None = None  # an interleaved run's: one entry per device and mechanism


@dataclass(frozen=True)
class Distribution:
    run_id: UUID
    low_ms: float
    high_ms: float
    edges_ms: list[float]
    grid_ms: list[float]
    devices: list[DeviceDistribution]


def _decimals(step: float) -> int:
    """Decimal places that resolve `step` (at most 15, a double's precision)."""
    return min(15, max(0, math.ceil(-math.log10(step)))) if step > 0 else 6


def _rounded(values: FloatArray, decimals: int) -> list[float]:
    rounded: list[float] = np.round(values, decimals).tolist()
    return rounded


class Span(models.TextChoices):
    """The default range of the histograms and densities."""

    DATA = "data", "Every value: smallest to largest over all devices"
    WHISKERS = "whiskers", "The boxes' whiskers over all devices (outliers counted outside)"


def _span(
    devices: list[DeviceRoundTrips], boxes: list[Box | None], span: str
) -> tuple[float, float]:
    present = [d.sorted_ms for d in devices if d.sorted_ms.size]
    if not present:
        return 0.0, 1.0
    if span == Span.WHISKERS:
        known = [b for b in boxes if b is not None]
        return min(b.whisker_low for b in known), max(b.whisker_high for b in known)
    return min(float(v[0]) for v in present), max(float(v[-1]) for v in present)


def run_distribution_compute(
    *,
    run: Run,
    bins: int = BINS_DEFAULT,
    low_ms: float | None = None,
    high_ms: float | None = None,
    span: str = Span.DATA,
    devices: list[DeviceRoundTrips] | None = None,
) -> Distribution:
    """Per device: histogram over a range shared by all devices, box statistics, a kernel
    density on a shared grid (the violin), and the downsampled round trip over the
    sequence. The range is `span`'s unless `low_ms`/`high_ms` set its ends. A completed
    run's (read here, not given `devices`) is memoized per query."""
    memo_key = None
    if devices is None and run.status == RunStatus.DONE:
        memo_key = DISTRIBUTION_MEMO_KEY.format(
            run_id=run.pk, bins=bins, low=low_ms, high=high_ms, span=str(span)
        )
        memo = cache.get(memo_key)
        if isinstance(memo, Distribution):
            return memo
    distribution = _compute(run, bins, low_ms, high_ms, span, devices)
    if memo_key is not None:
        cache.set(memo_key, distribution, timeout=DISTRIBUTION_MEMO_SECONDS)
    return distribution


def _compute(
    run: Run,
    bins: int,
    low_ms: float | None,
    high_ms: float | None,
    span: str,
    devices: list[DeviceRoundTrips] | None,
) -> Distribution:
    if devices is None:
        devices = run_round_trips_load(run=run)
    names = rotation(run.spec)
    if names:  # one entry per device and mechanism, in rotation order
        split = mechanism_devices(run, devices, names)
        devices = [d for name in names for d in split[name]]
    boxes = [
        box(d.sorted_ms, sample_max=OUTLIER_SAMPLE_MAX, presorted=True)
        if d.sorted_ms.size
        else None
        for d in devices
    ]
    span_low, span_high = _span(devices, boxes, span)
    low = span_low if low_ms is None else low_ms
    high = span_high if high_ms is None else high_ms
    if high < low:  # one end given beyond the other end of the data
        low, high = (low, low) if high_ms is None else (high, high)
    edges = bin_edges(bins=bins, low=low, high=high)
    low, high = float(edges[0]), float(edges[-1])
    decimals = _decimals((high - low) / PLOT_STEPS)
    grid = np.linspace(low, high, KDE_GRID_POINTS)

    out = []
    for d, b in zip(devices, boxes, strict=True):
        values = d.sorted_ms
        counts, below, above = histogram(values, bins=bins, low=low, high=high, presorted=True)
        estimate = density(values, grid, presorted=True)
        box_stats = None
        if b is not None:
            box_stats = Box(
                q1=b.q1,
                median=b.median,
                q3=b.q3,
                whisker_low=b.whisker_low,
                whisker_high=b.whisker_high,
                outliers=b.outliers,
                outlier_sample=np.round(b.outlier_sample, decimals),
            )
        series = downsample(d.trips.seq, d.rtt_ms, buckets=SERIES_BUCKETS)
        out.append(
            DeviceDistribution(
                device_id=d.device_id,
                device_name=d.device_name,
                n=int(values.size),
                counts=counts.tolist(),
                below=below,
                above=above,
                box=box_stats,
                density=None
                if estimate is None
                else _rounded(estimate, _decimals(float(estimate.max()) / PLOT_STEPS)),
                mechanism=d.mechanism,
                series=Series(
                    seq_first=series.seq_first,
                    seq_last=series.seq_last,
                    min=np.round(series.min, decimals),
                    max=np.round(series.max, decimals),
                    mean=np.round(series.mean, decimals),
                ),
            )
        )
    return Distribution(
        run_id=run.pk,
        low_ms=low,
        high_ms=high,
        edges_ms=_rounded(edges, decimals),
        grid_ms=_rounded(grid, decimals),
        devices=out,
    )
