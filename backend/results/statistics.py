"""The statistics of results: pure functions of numpy arrays (numpy and scipy, no Django).

Definitions, also in docs/results.md:

- Percentiles (median, quartiles, p95, p99) interpolate linearly between the closest ranks
  (numpy's default `linear` method, Hyndman & Fan type 7), as PostgreSQL's percentile_cont
  does in measurements.services.summary, so both agree.
- Variance and standard deviation are the sample ones (n - 1), as the OpenSSL-on-Pi paper
  reports them; undefined (None) below two values.
- The confidence interval of a mean, by default, is the studentized bootstrap (bootstrap-t)
  interval from 10 to 5,000 values, the t interval outside; that of a median the percentile
  bootstrap interval from 10 values up (`location_intervals`). The t interval,
  mean ± t(1 - alpha/2, n - 1) · s / √n, is given beside them, named as such: on the skewed
  round trips measured here (skewness 6-14) and a few hundred values it covers the mean far
  less often than it claims (tests/test_statistics.py simulates both).
- The combined mean of a run is the mean of its devices' means (the SRUP paper's method):
  every device weighs the same whatever its number of delivered messages.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt
from scipy import stats  # type: ignore[import-untyped]  # scipy ships no type information

FloatArray = npt.NDArray[np.float64]

CONFIDENCE = 0.95
# Resamples of the bootstrap: 2,000 puts the 2.5th/97.5th percentiles within ~1 % of
# their limit (Efron & Tibshirani recommend ≥ 1,000 for percentile intervals).
BOOTSTRAP_RESAMPLES = 2_000
# Values drawn per device and resample. Above it the bootstrap draws this many and scales
# the deviations by √(m/n) (the m-out-of-n bootstrap, consistent for a mean): a pair of
# 10-device 1,000,000-record runs then costs ~4·10⁷ draws (~0.5 s) instead of 2·10⁹.
BOOTSTRAP_DRAW_MAX = 1_000
BOOTSTRAP_SEED = 2021  # fixed: the same runs always give the same interval
# Values drawn per resample for a sample's own intervals (`location_intervals`); above it the
# m-out-of-n bootstrap as in bootstrap_difference: 1,000 draws x 2,000 resamples is ~70 ms
# for the mean of one device on a shared core, whatever its number of messages.
SUMMARY_DRAW_MAX = 1_000
# Below this many values a bootstrap has too few distinct resamples to mean anything: the
# mean's interval is the t interval (named so) and the median has none.
BOOTSTRAP_MIN_VALUES = 10
# Above this many values the mean's interval is the t interval: there the skewness of the
# mean's sampling distribution (that of the values over √n) is small enough for it to cover
# nearly as it claims (94.4 % at n = 6,000 on log-normal values of skewness 13, simulated in
# the tests), and a page of million-record runs need not bootstrap each device.
BOOTSTRAP_MAX_VALUES = 5_000
# The default interval of a mean, and the other one given beside it, by name (API, exports
# and methods text name them so).
CI_METHOD = "bootstrap-t"
CI_METHOD_MEDIAN = "bootstrap percentile (exact)"
CI_METHOD_T = "t"
# Resamples drawn at once: bounds the index matrix to ~16 MB.
_BOOTSTRAP_BLOCK_VALUES = 2_000_000


@dataclass(frozen=True)
class Summary:
    """Descriptive statistics of one sample; every value None when the sample is empty."""

    n: int
    mean: float | None = None
    median: float | None = None
    q1: float | None = None
    q3: float | None = None
    p95: float | None = None
    p99: float | None = None
    min: float | None = None
    max: float | None = None
    variance: float | None = None
    std: float | None = None
    # The mean's interval by `ci_method` (CI_METHOD, or CI_METHOD_T below
    # BOOTSTRAP_MIN_VALUES values and above BOOTSTRAP_MAX_VALUES), the median's
    # (CI_METHOD_MEDIAN, None below BOOTSTRAP_MIN_VALUES values), and the mean's t interval;
    # None below two values.
    ci_method: str | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    median_ci_low: float | None = None
    median_ci_high: float | None = None
    t_ci_low: float | None = None
    t_ci_high: float | None = None


def quantiles(sorted_values: FloatArray, q: Sequence[float]) -> FloatArray:
    """Quantiles (0-1) of sorted values by linear interpolation between the closest ranks,
    as numpy's default method computes them (including its lerp, exact at both ends), in
    O(1) each: a sort of 100,000 values is ~1 ms, numpy's partition per call costs more."""
    n = sorted_values.size
    position = np.asarray(q, np.float64) * (n - 1)
    lower = np.floor(position).astype(np.int64)
    upper = np.minimum(lower + 1, n - 1)
    t = position - lower
    a, b = sorted_values[lower], sorted_values[upper]
    diff = b - a
    out: FloatArray = np.where(t >= 0.5, b - diff * (1 - t), a + diff * t)
    return out


def sorted_values(values: npt.ArrayLike, presorted: bool) -> FloatArray:
    x = np.asarray(values, dtype=np.float64)
    return x if presorted else np.sort(x)


def _ranked(values: npt.ArrayLike, presorted: bool, q: Sequence[float]) -> FloatArray:
    """The values with the smallest, the largest and the ranks `quantiles` reads for `q` in
    their sorted places: sorted values as they are, others partitioned around those ranks
    (O(n): for a million values ~24 ms against ~70 ms for a full sort)."""
    x = np.asarray(values, dtype=np.float64)
    n = x.size
    if presorted or n < 2:
        return x
    position = np.asarray(q, np.float64) * (n - 1)
    lower = np.floor(position).astype(np.int64)
    kth = np.unique(np.concatenate([[0, n - 1], lower, np.minimum(lower + 1, n - 1)]))
    return np.partition(x, kth)


_SUMMARY_QUANTILES = (0.25, 0.5, 0.75, 0.95, 0.99)


def summarize(
    values: npt.ArrayLike, *, confidence: float = CONFIDENCE, presorted: bool = False
) -> Summary:
    """n, mean, median, quartiles, p95, p99, min, max, sample variance and std, and the
    confidence intervals of the mean (bootstrap-t, and t) and of the median (percentile
    bootstrap). `presorted`: the values are sorted already (else only the ranks these
    statistics read are put in place, no full sort)."""
    x = _ranked(values, presorted, _SUMMARY_QUANTILES)
    n = int(x.size)
    if n == 0:
        return Summary(n=0)
    q1, median, q3, p95, p99 = (float(v) for v in quantiles(x, _SUMMARY_QUANTILES))
    mean = float(x.mean())
    variance = std = None
    t_ci: tuple[float, float] | tuple[None, None] = (None, None)
    intervals = LocationIntervals()
    ci_method = None
    if n >= 2:
        variance = float(x.var(ddof=1))
        std = math.sqrt(variance)
        t_ci = t_interval(mean=mean, std=std, n=n, confidence=confidence)
        intervals = location_intervals(x, confidence=confidence, presorted=presorted)
        ci_method = CI_METHOD_T
        if intervals.mean_low is None:
            intervals = replace(intervals, mean_low=t_ci[0], mean_high=t_ci[1])
        else:
            ci_method = CI_METHOD
    return Summary(
        n=n,
        mean=mean,
        median=median,
        q1=q1,
        q3=q3,
        p95=p95,
        p99=p99,
        min=float(x[0]),
        max=float(x[-1]),
        variance=variance,
        std=std,
        ci_method=ci_method,
        ci_low=intervals.mean_low,
        ci_high=intervals.mean_high,
        median_ci_low=intervals.median_low,
        median_ci_high=intervals.median_high,
        t_ci_low=t_ci[0],
        t_ci_high=t_ci[1],
    )


@dataclass(frozen=True)
class LocationIntervals:
    mean_low: float | None = None
    mean_high: float | None = None
    median_low: float | None = None
    median_high: float | None = None


def location_intervals(
    values: npt.ArrayLike,
    *,
    confidence: float = CONFIDENCE,
    resamples: int = BOOTSTRAP_RESAMPLES,
    draw_max: int = SUMMARY_DRAW_MAX,
    seed: int = BOOTSTRAP_SEED,
    presorted: bool = False,
) -> LocationIntervals:
    """The studentized bootstrap (bootstrap-t) interval of the mean and the percentile
    bootstrap interval of the median (Efron & Tibshirani 1993, ch. 12-13; Hall 1988 for why
    the studentized one suits a skewed mean).

    Bootstrap-t, from BOOTSTRAP_MIN_VALUES to BOOTSTRAP_MAX_VALUES values (None outside:
    the caller gives the t interval): each resample's t* = (mean* - mean) / (s* / √m); the
    interval is [mean - t*(1 - alpha/2) · s / √n, mean - t*(alpha/2) · s / √n], which leans
    towards the long tail as a skewed mean's sampling distribution does. Resamples whose
    values are all equal (s* = 0) give no t* and are left out. Above `draw_max` values each
    resample draws `draw_max` (the m-out-of-n bootstrap): t* is a pivot, so it needs no
    rescaling. The values are resampled sorted, so the same values give the same interval
    in whatever order.

    Median, from BOOTSTRAP_MIN_VALUES values: the bootstrap distribution of the median of an
    odd number m of draws is known exactly (Efron 1982, §10.3): P(median* <= x(k)) =
    P(Binomial(m, k/n) >= (m + 1)/2) for the k-th smallest value, so its percentiles are two
    order statistics, found without resampling (no Monte Carlo error, O(n)). Up to
    `draw_max` values m = n when n is odd; an even n (whose median is the mean of two
    values) is resampled `resamples` times instead. Above `draw_max` values m =
    `draw_max - 1` and the deviations are scaled by √(m/n)."""
    x = np.asarray(values, dtype=np.float64)
    n = x.size
    if n < BOOTSTRAP_MIN_VALUES:
        return LocationIntervals()
    alpha = 1 - confidence
    mean_low = mean_high = None
    if n <= BOOTSTRAP_MAX_VALUES:
        x = sorted_values(x, presorted)
        presorted = True
        mean_low, mean_high = _bootstrap_t(x, alpha, resamples, min(n, draw_max), seed)
    if n <= draw_max and n % 2 == 0:
        median_low, median_high = _resampled_median_interval(
            sorted_values(x, presorted), alpha, resamples, seed
        )
    else:
        median_low, median_high = _exact_median_interval(x, alpha, min(n, draw_max), presorted)
    return LocationIntervals(mean_low, mean_high, median_low, median_high)


def _bootstrap_t(
    x: FloatArray, alpha: float, resamples: int, m: int, seed: int
) -> tuple[float, float]:
    n = x.size
    mean = float(x.mean())
    std = float(x.std(ddof=1))
    if std == 0:
        return mean, mean
    rng = np.random.default_rng(seed)
    pivots = np.empty(resamples)
    block = max(1, _BOOTSTRAP_BLOCK_VALUES // m)
    for start in range(0, resamples, block):
        size = min(block, resamples - start)
        draws = x[rng.integers(0, n, size=(size, m))]
        with np.errstate(divide="ignore", invalid="ignore"):
            pivots[start : start + size] = (draws.mean(axis=1) - mean) / (
                draws.std(axis=1, ddof=1) / math.sqrt(m)
            )
    pivots = pivots[np.isfinite(pivots)]
    if not pivots.size:
        return mean, mean
    t_low, t_high = np.percentile(pivots, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return mean - float(t_high) * std / math.sqrt(n), mean - float(t_low) * std / math.sqrt(n)


def _resampled_median_interval(
    x: FloatArray, alpha: float, resamples: int, seed: int
) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    medians = np.median(x[rng.integers(0, x.size, size=(resamples, x.size))], axis=1)
    low, high = np.percentile(medians, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return float(low), float(high)


def _exact_median_interval(
    x: FloatArray, alpha: float, m: int, presorted: bool
) -> tuple[float, float]:
    """The percentiles alpha/2 and 1 - alpha/2 of the exact bootstrap distribution of the
    median of m draws (m made odd), scaled by √(m/n) about the sample median."""
    n = x.size
    m -= 1 - m % 2
    half = (m - 1) // 2  # median* <= x(k) when more than `half` of the m draws are <= x(k)

    def first_rank(level: float) -> int:
        """The smallest k (1-based) with P(median* <= x(k)) >= level, by bisection: the
        probability grows with k."""
        low, high = 1, n
        while low < high:
            k = (low + high) // 2
            if float(stats.binom.sf(half, m, k / n)) >= level:
                high = k
            else:
                low = k + 1
        return low

    ranks = [first_rank(alpha / 2) - 1, first_rank(1 - alpha / 2) - 1, (n - 1) // 2, n // 2]
    ranked = x if presorted else np.partition(x, ranks)
    low, high, mid_low, mid_high = (float(ranked[r]) for r in ranks)
    median = (mid_low + mid_high) / 2
    scale = math.sqrt(m / n)
    return median + (low - median) * scale, median + (high - median) * scale


def t_interval(
    *, mean: float, std: float, n: int, confidence: float = CONFIDENCE
) -> tuple[float, float]:
    """mean ± t(1 - alpha/2, n - 1) · std / √n (std is the sample one)."""
    half = float(stats.t.ppf((1 + confidence) / 2, n - 1)) * std / math.sqrt(n)
    return mean - half, mean + half


def mean_of_means(groups: Sequence[npt.ArrayLike]) -> float | None:
    """The SRUP paper's combined mean: the mean of each non-empty group's mean."""
    means = [float(np.asarray(g, np.float64).mean()) for g in groups if np.size(g)]
    return sum(means) / len(means) if means else None


@dataclass(frozen=True)
class MeanInterval:
    """The mean of a few values (e.g. the means of repeated runs) and its t interval: with
    a handful of values a bootstrap has too few distinct resamples to mean anything."""

    n: int
    mean: float | None
    std: float | None
    ci_low: float | None
    ci_high: float | None


def mean_interval(values: Sequence[float], *, confidence: float = CONFIDENCE) -> MeanInterval:
    x = np.asarray(values, dtype=np.float64)
    n = int(x.size)
    if n == 0:
        return MeanInterval(n=0, mean=None, std=None, ci_low=None, ci_high=None)
    mean = float(x.mean())
    if n == 1:
        return MeanInterval(n=1, mean=mean, std=None, ci_low=None, ci_high=None)
    std = float(x.std(ddof=1))
    low, high = t_interval(mean=mean, std=std, n=n, confidence=confidence)
    return MeanInterval(n=n, mean=mean, std=std, ci_low=low, ci_high=high)


# --- comparisons ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Difference:
    """treatment - baseline of the combined means, with its bootstrap percentile interval."""

    estimate: float
    ci_low: float
    ci_high: float


def bootstrap_difference(
    baseline: Sequence[FloatArray],
    treatment: Sequence[FloatArray],
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    draw_max: int = BOOTSTRAP_DRAW_MAX,
    seed: int = BOOTSTRAP_SEED,
    confidence: float = CONFIDENCE,
) -> Difference:
    """The difference of the combined means (mean of per-device means) of two runs with a
    percentile bootstrap interval.

    Stratified: each replicate resamples every device's values with replacement within that
    device, so the interval reflects the estimator (devices weigh the same). A device with
    more than `draw_max` values is resampled `draw_max` at a time and its deviations from its
    own mean are scaled by √(m/n), which keeps their variance s²/n (the m-out-of-n bootstrap
    of a mean); at or below `draw_max` this is the ordinary bootstrap. Vectorised: a block of
    replicates is one index matrix. Empty groups (devices with nothing delivered) are left out.
    """
    rng = np.random.default_rng(seed)
    base = [np.asarray(g, np.float64) for g in baseline if np.size(g)]
    treat = [np.asarray(g, np.float64) for g in treatment if np.size(g)]
    if not base or not treat:
        raise ValueError("both sides need at least one non-empty group")
    replicates = _replicates(treat, rng, resamples, draw_max) - _replicates(
        base, rng, resamples, draw_max
    )
    alpha = 1 - confidence
    low, high = np.percentile(replicates, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    estimate = float(np.mean([g.mean() for g in treat]) - np.mean([g.mean() for g in base]))
    return Difference(estimate=estimate, ci_low=float(low), ci_high=float(high))


def _replicates(
    groups: list[FloatArray], rng: np.random.Generator, resamples: int, draw_max: int
) -> FloatArray:
    """`resamples` bootstrap replicates of the mean of the groups' means."""
    total = np.zeros(resamples)
    for x in groups:
        n = x.size
        m = min(n, draw_max)
        mean = float(x.mean())
        block = max(1, _BOOTSTRAP_BLOCK_VALUES // m)
        deviations = np.empty(resamples)
        for start in range(0, resamples, block):
            size = min(block, resamples - start)
            index = rng.integers(0, n, size=(size, m))
            deviations[start : start + size] = x[index].mean(axis=1) - mean
        total += mean + deviations * math.sqrt(m / n)
    return total / len(groups)


@dataclass(frozen=True)
class RankTest:
    """Mann-Whitney U of the first sample (pairs where it is the larger, ties count half),
    two-sided p-value."""

    u: float
    p_value: float


def mann_whitney(a: npt.ArrayLike, b: npt.ArrayLike) -> RankTest:
    """scipy.stats.mannwhitneyu, two-sided; exact for small samples without ties,
    normal approximation with tie and continuity corrections otherwise (scipy's `auto`)."""
    result = stats.mannwhitneyu(a, b, alternative="two-sided")
    return RankTest(u=float(result.statistic), p_value=float(result.pvalue))


def max_rate_hz(overhead_ms: float) -> float | None:
    """The highest message rate at which the added time per message still fits in the
    message period: 1 / overhead (the SRUP paper's Equation (1): 1 / 56.1 ms = 17.8 Hz);
    None when there is no positive overhead."""
    return 1000.0 / overhead_ms if overhead_ms > 0 else None
