"""The two-stage (hierarchical) bootstrap of repeated runs: pure numpy and scipy, no Django.

A cell of a matrix experiment is run several times (repeats). Messages of one run share its
conditions (broker load, temperature, the network at that moment), so they are not
independent of each other: the run is the unit of replication. Definitions, also in
docs/results.md ("Experiment results"):

- A run's mean and median are those of its delivered round trips (all its devices pooled).
  A cell's `mean` is the mean of its runs' means and its `median` the mean of its runs'
  medians: every run weighs the same, whatever its number of delivered messages.
- Two runs or more: each resample draws the runs with replacement (stage 1), then, for each
  drawn run, its messages with replacement (stage 2; Davison & Hinkley 1997, §3.8). A run
  drawn twice in one resample gets two independent message resamples. Above `draw_max`
  messages a run draws `draw_max` and its deviations are scaled by √(m/n) (the m-out-of-n
  bootstrap, as results.statistics does).
- A handful of runs is few values for a bootstrap: resampling R runs shrinks their variance
  by (R - 1)/R and its percentiles are those of a normal where a t with R - 1 degrees of
  freedom belongs. The deviations from the estimate are therefore widened by
  √(R/(R - 1)) · t(1 - alpha/2, R - 1) / z(1 - alpha/2) (Hesterberg 2015, "expanded
  percentile"): 9.2 times for 2 runs, 2.7 for 3, 1.6 for 5. Stage 2 counts the within-run noise
  a second time (it is in the spread of the run means already), so the interval errs wide,
  never narrow; tests/test_hierarchical.py simulates its coverage.
- One run: only stage 2, a message-level interval, and `level` says so ("messages"): it
  cannot see run-to-run variation.
- Intervals are percentile ones: estimate + the alpha/2 and 1 - alpha/2 percentiles of the
  (widened) deviations. A strictly positive quantity (a delay: `positive`) has its cell
  intervals clipped at 0 when the widening reaches below it, and `clipped` says so: the
  interval intersected with the quantity's possible values covers the truth exactly when
  the unclipped one does (the truth is above 0), so coverage is unchanged, the upper end
  too. Not on a log scale: there the widening (9.2 times for 2 runs) multiplies the upper
  end instead, an interval wider than the data warrant on the side that matters. A
  difference of two cells subtracts their deviations resample by resample (the cells are
  independent; each has its own seed) and is never clipped: an overhead can be negative.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from scipy import stats  # type: ignore[import-untyped]  # scipy ships no type information

from results.statistics import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, CONFIDENCE, FloatArray

# Messages drawn per run and resample; above it the m-out-of-n bootstrap. 500 draws x 2,000
# resamples is ~6 ms per run on a quiet core, ~20 ms at load 11 on 2 vCPUs (mean and median).
HIERARCHICAL_DRAW_MAX = 500
LEVEL_RUNS = "runs"
LEVEL_MESSAGES = "messages"
# Resamples drawn at once per run: bounds the index matrix to ~16 MB.
_BLOCK_VALUES = 2_000_000


def run_level_scale(runs: int, confidence: float = CONFIDENCE) -> float:
    """How much the deviations of a bootstrap over `runs` runs are widened (1 below 2)."""
    if runs < 2:
        return 1.0
    level = (1 + confidence) / 2
    t = float(stats.t.ppf(level, runs - 1))
    z = float(stats.norm.ppf(level))
    return math.sqrt(runs / (runs - 1)) * t / z


@dataclass(frozen=True)
class Replicates:
    """A cell's estimates and the bootstrap deviations from them (widened; see the module)."""

    level: str  # LEVEL_RUNS (two runs or more) or LEVEL_MESSAGES (one run)
    runs: int
    mean: float
    median: float
    mean_deviations: FloatArray
    median_deviations: FloatArray
    # A strictly positive quantity (a delay, every run's mean above 0): intervals clipped at
    # 0. A difference of two cells never is (cell_difference reads the deviations).
    positive: bool = False

    def mean_interval(self, confidence: float = CONFIDENCE) -> tuple[float, float]:
        return self._clip(percentile_interval(self.mean, self.mean_deviations, confidence))

    def median_interval(self, confidence: float = CONFIDENCE) -> tuple[float, float]:
        return self._clip(percentile_interval(self.median, self.median_deviations, confidence))

    def clipped(self, confidence: float = CONFIDENCE) -> bool:
        """Whether the mean's or the median's interval reached below 0 and was clipped."""
        if not self.positive:
            return False
        lows = (
            percentile_interval(self.mean, self.mean_deviations, confidence)[0],
            percentile_interval(self.median, self.median_deviations, confidence)[0],
        )
        return min(lows) < 0

    def _clip(self, interval: tuple[float, float]) -> tuple[float, float]:
        low, high = interval
        return (max(low, 0.0), high) if self.positive else (low, high)


def percentile_interval(
    estimate: float, deviations: FloatArray, confidence: float = CONFIDENCE
) -> tuple[float, float]:
    alpha = 1 - confidence
    low, high = np.percentile(deviations, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return estimate + float(low), estimate + float(high)


def _run_replicates(
    x: FloatArray, rng: np.random.Generator, resamples: int, draw_max: int
) -> tuple[FloatArray, FloatArray]:
    """Stage 2 for one run (`x` sorted): `resamples` bootstrap means and medians of its
    messages.

    Every resample draws `m` indices into `x`. When `m` is `n` (no m-out-of-n), the median
    is read from the drawn indices sorted (as 16-bit integers where they fit: a vectorised
    sort, ~1 ms for 2,000 x 500): `x` being sorted, the median of the drawn values is `x`
    at the median of the drawn indices. Same draws, same medians as np.median of the
    gathered values, without partitioning every resample's values; the means are those of
    the gathered values (docs/benchmarks.md, "Experiment results")."""
    n = x.size
    m = min(n, draw_max)
    scale = math.sqrt(m / n)
    mean, median = float(x.mean()), float(np.median(x))
    means = np.empty(resamples)
    medians = np.empty(resamples)
    block = max(1, _BLOCK_VALUES // m)
    indexed = n == m  # not m-out-of-n: the drawn indices' order statistics are the median's
    for start in range(0, resamples, block):
        size = min(block, resamples - start)
        drawn = rng.integers(0, n, size=(size, m))
        done = slice(start, start + size)
        means[done] = x[drawn].mean(axis=1)
        if indexed:
            medians[done] = _indexed_median(x, drawn)
        else:
            medians[done] = np.median(x[drawn], axis=1)
    return mean + (means - mean) * scale, median + (medians - median) * scale


def _indexed_median(x: FloatArray, drawn: npt.NDArray[np.int64]) -> FloatArray:
    """The median of each row of x[drawn], `x` sorted: `x` at the order statistics m//2 (and,
    for even m, m//2 - 1) of the row's indices."""
    m = drawn.shape[1]
    small = np.int16 if x.size <= np.iinfo(np.int16).max else np.int32
    ranked = np.sort(drawn.astype(small), axis=1)
    upper = x[ranked[:, m // 2]]
    if m % 2:
        return upper
    return (x[ranked[:, m // 2 - 1]] + upper) / 2


@dataclass(frozen=True)
class StageTwo:
    """One run's stage 2: its mean and median and `resamples` bootstrap means and medians of
    its messages (m-out-of-n scaled). What a cell's bootstrap needs of a run, so it can be
    computed once per run (results.services.run_replicates) and the cell's stage 1 drawn
    over it on every view."""

    mean: float
    median: float
    means: FloatArray = field(repr=False)
    medians: FloatArray = field(repr=False)


def run_stage_two(
    values: npt.ArrayLike,
    *,
    seed: int,
    resamples: int = BOOTSTRAP_RESAMPLES,
    draw_max: int = HIERARCHICAL_DRAW_MAX,
) -> StageTwo | None:
    """Stage 2 of one run with its own generator (`seed`); None without values."""
    x = np.sort(np.asarray(values, dtype=np.float64))
    if not x.size:
        return None
    return _stage_two(x, np.random.default_rng(seed), resamples, draw_max)


def _stage_two(x: FloatArray, rng: np.random.Generator, resamples: int, draw_max: int) -> StageTwo:
    means, medians = _run_replicates(x, rng, resamples, draw_max)
    return StageTwo(float(x.mean()), float(np.median(x)), means, medians)


def hierarchical_replicates(
    runs: Sequence[npt.ArrayLike],
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    draw_max: int = HIERARCHICAL_DRAW_MAX,
    seed: int = BOOTSTRAP_SEED,
    confidence: float = CONFIDENCE,
    positive: bool = False,
) -> Replicates | None:
    """The two-stage bootstrap of a cell's runs (each an array of its delivered values), one
    generator for both stages; runs without values are left out, None when none is left.
    `positive`: the values are of a strictly positive quantity (Replicates.positive)."""
    values = [np.asarray(r, dtype=np.float64) for r in runs]
    values = [np.sort(v) for v in values if v.size]  # sorted: the order of values is moot
    if not values:
        return None
    rng = np.random.default_rng(seed)
    inner = [_stage_two(v, rng, resamples, draw_max) for v in values]
    return _stage_one(inner, rng, confidence, positive)


def stage_one_replicates(
    runs: Sequence[StageTwo | None],
    *,
    seed: int,
    confidence: float = CONFIDENCE,
    positive: bool = False,
) -> Replicates | None:
    """The cell's bootstrap over its runs' stage 2 (each drawn with its own generator,
    run_stage_two): stage 1 with a generator of `seed`. Runs without values (None) are left
    out, None when none is left. `positive`: as hierarchical_replicates."""
    inner = [r for r in runs if r is not None]
    if not inner:
        return None
    return _stage_one(inner, np.random.default_rng(seed), confidence, positive)


def _stage_one(
    inner: Sequence[StageTwo], rng: np.random.Generator, confidence: float, positive: bool
) -> Replicates:
    count = len(inner)
    resamples = inner[0].means.size
    run_means = np.array([i.mean for i in inner])
    run_medians = np.array([i.median for i in inner])
    inner_means = np.stack([i.means for i in inner])  # (runs, resamples)
    inner_medians = np.stack([i.medians for i in inner])
    if count == 1:
        mean_reps, median_reps = inner_means[0], inner_medians[0]
    else:
        chosen = rng.integers(0, count, size=(resamples, count))  # stage 1
        # Slot j of resample b reads its chosen run's stage-2 resample columns[b, j]: a
        # permutation per slot, so a run drawn twice gets two independent resamples.
        columns = np.stack([rng.permutation(resamples) for _ in range(count)], axis=1)
        mean_reps = inner_means[chosen, columns].mean(axis=1)
        median_reps = inner_medians[chosen, columns].mean(axis=1)
    mean, median = float(run_means.mean()), float(run_medians.mean())
    scale = run_level_scale(count, confidence)
    return Replicates(
        level=LEVEL_RUNS if count > 1 else LEVEL_MESSAGES,
        runs=count,
        mean=mean,
        median=median,
        mean_deviations=(mean_reps - mean) * scale,
        median_deviations=(median_reps - median) * scale,
        # Measured values at or below 0 (a one-way delay between unsynchronised clocks)
        # are not of a strictly positive quantity: no clipping then.
        positive=positive and bool(run_means.min() > 0) and bool(run_medians.min() > 0),
    )


@dataclass(frozen=True)
class CellDifference:
    """treatment - baseline of the cells' means, with its interval, and the same relative to
    the baseline's mean (%), its interval from the ratio of each resample."""

    level: str  # LEVEL_RUNS when both cells have two runs or more, else LEVEL_MESSAGES
    estimate: float
    ci_low: float
    ci_high: float
    relative_percent: float
    relative_ci_low: float
    relative_ci_high: float


def cell_difference(
    baseline: Replicates, treatment: Replicates, confidence: float = CONFIDENCE
) -> CellDifference:
    estimate = treatment.mean - baseline.mean
    deviations = treatment.mean_deviations - baseline.mean_deviations
    low, high = percentile_interval(estimate, deviations, confidence)
    relative = 100 * estimate / baseline.mean
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = 100 * (estimate + deviations) / (baseline.mean + baseline.mean_deviations)
    ratios = ratios[np.isfinite(ratios)]
    rel_low, rel_high = percentile_interval(0.0, ratios, confidence)
    both_runs = baseline.level == treatment.level == LEVEL_RUNS
    return CellDifference(
        LEVEL_RUNS if both_runs else LEVEL_MESSAGES,
        estimate,
        low,
        high,
        relative,
        rel_low,
        rel_high,
    )
