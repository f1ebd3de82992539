"""Plot data of results: histograms, box plots, densities and downsampled series (numpy, no
Django). The descriptive statistics and intervals are results.statistics'."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from results.statistics import FloatArray, quantiles, sorted_values

# Tukey's fences: a value beyond 1.5 IQR from the quartiles is an outlier (as Plotly draws).
WHISKER_IQR = 1.5
# Fine bins of the binned kernel density (the violin): far below a pixel of a plot.
DENSITY_BINS = 1_024


def histogram(
    values: FloatArray, *, bins: int, low: float, high: float, presorted: bool = False
) -> tuple[npt.NDArray[np.int64], int, int]:
    """Counts in `bins` equal bins over [low, high] (each bin [a, b), the last [a, b], as
    np.histogram), and the counts below and above the range. On sorted values a count is
    two binary searches, whatever the number of values."""
    x = sorted_values(values, presorted)
    edges = bin_edges(bins=bins, low=low, high=high)
    index = np.searchsorted(x, edges, side="left")
    index[-1] = np.searchsorted(x, edges[-1], side="right")
    return np.diff(index), int(index[0]), int(x.size - index[-1])


def bin_edges(*, bins: int, low: float, high: float) -> FloatArray:
    """The edges np.histogram uses for these bins (a zero-width range is widened by ±0.5)."""
    edges: FloatArray = np.histogram_bin_edges(np.empty(0), bins=bins, range=(low, high))
    return edges


@dataclass(frozen=True)
class Box:
    """Box-plot statistics: quartiles, whiskers at the last values within 1.5 IQR of the
    quartiles, and the outliers beyond them (their count, and a sample of at most
    `sample_max` spread evenly over their sorted values, both extremes included)."""

    q1: float
    median: float
    q3: float
    whisker_low: float
    whisker_high: float
    outliers: int
    outlier_sample: FloatArray


def box(values: FloatArray, *, sample_max: int, presorted: bool = False) -> Box:
    x = sorted_values(values, presorted)
    q1, median, q3 = (float(v) for v in quantiles(x, [0.25, 0.5, 0.75]))
    iqr = q3 - q1
    low_fence, high_fence = q1 - WHISKER_IQR * iqr, q3 + WHISKER_IQR * iqr
    first = int(np.searchsorted(x, low_fence, side="left"))  # first value inside
    end = int(np.searchsorted(x, high_fence, side="right"))  # past the last value inside
    outliers = np.concatenate([x[:first], x[end:]])  # sorted; the quartiles are inside
    count = int(outliers.size)
    if count > sample_max:
        picks = np.unique(np.linspace(0, count - 1, sample_max).round().astype(np.int64))
        outliers = outliers[picks]
    return Box(
        q1=q1,
        median=median,
        q3=q3,
        whisker_low=float(x[first]),
        whisker_high=float(x[end - 1]),
        outliers=count,
        outlier_sample=outliers,
    )


def bandwidth(values: FloatArray, *, presorted: bool = False) -> float:
    """Silverman's rule of thumb, 0.9 · min(s, IQR / 1.34) · n^(-1/5): the IQR keeps a tail
    of outliers (a few lost-then-late messages) from flattening the whole density, which
    Scott's rule on s alone (gaussian_kde's default) does. Falls back to s when the IQR is 0;
    0 when the values are all equal."""
    x = sorted_values(values, presorted)
    std = float(x.std(ddof=1)) if x.size > 1 else 0.0
    q1, q3 = quantiles(x, [0.25, 0.75])
    spread = min(std, float(q3 - q1) / 1.34) if q3 > q1 else std
    return 0.9 * spread * math.pow(x.size, -0.2)


def density(
    values: FloatArray, grid: FloatArray, *, bins: int = DENSITY_BINS, presorted: bool = False
) -> FloatArray | None:
    """A Gaussian kernel density estimate of all the values, evaluated on `grid` (evenly
    spaced): the values are counted in `bins` fine bins over the grid's range and the counts
    convolved with the Gaussian kernel (a binned KDE, as KDEpy's FFTKDE or R's bkde do):
    O(n + bins · kernel), where scipy.stats.gaussian_kde costs O(n · grid). The bin width is
    at most 1/1,024 of the range, so the estimate is within a line's width of the exact one
    (a test compares it with gaussian_kde of the same bandwidth). Values outside the grid
    count in n but not in the curve. None below two distinct values (no bandwidth)."""
    x = sorted_values(values, presorted)
    if x.size < 2:
        return None
    h = bandwidth(x, presorted=True)
    if h <= 0:
        return None
    low, high = float(grid[0]), float(grid[-1])
    counts, _, _ = histogram(x, bins=bins, low=low, high=high, presorted=True)
    edges = bin_edges(bins=bins, low=low, high=high)
    width = float(edges[1] - edges[0])
    sigma = h / width  # in bins
    reach = min(bins, math.ceil(4 * sigma))
    offsets = np.arange(-reach, reach + 1)
    kernel = np.exp(-0.5 * (offsets / sigma) ** 2)
    kernel /= kernel.sum()  # sums to 1 however few bins it spans
    smoothed = np.convolve(counts, kernel, mode="full")[reach : reach + bins]
    centres = (edges[:-1] + edges[1:]) / 2
    estimate: FloatArray = np.interp(grid, centres, smoothed / (x.size * width))
    return estimate


@dataclass(frozen=True)
class Series:
    """A series cut into equal-count buckets in send order: per bucket the first and last
    sequence number and the min, max and mean value."""

    seq_first: npt.NDArray[np.int64]
    seq_last: npt.NDArray[np.int64]
    min: FloatArray
    max: FloatArray
    mean: FloatArray


def downsample(seq: npt.ArrayLike, values: FloatArray, *, buckets: int) -> Series:
    seq = np.asarray(seq, np.int64)
    n = values.size
    if n == 0:
        empty = np.empty(0)
        return Series(seq, seq, empty, empty, empty)
    k = min(buckets, n)
    bounds = np.arange(k + 1, dtype=np.int64) * n // k  # strictly increasing as k <= n
    starts = bounds[:-1]
    return Series(
        seq_first=seq[starts],
        seq_last=seq[bounds[1:] - 1],
        min=np.minimum.reduceat(values, starts),
        max=np.maximum.reduceat(values, starts),
        mean=np.add.reduceat(values, starts) / np.diff(bounds),
    )
