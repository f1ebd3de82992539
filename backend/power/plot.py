"""The plot data of a power trace: its samples, or their per-block envelope, in buckets over
a window (selectors: reads only)."""

from __future__ import annotations

from typing import Any

import numpy as np

from power.models import PowerTrace
from power.selectors import (
    require_parsed,
    trace_blocks,
    trace_run_window,
    trace_samples,
    trace_window,
)
from power.services import ENVELOPE_STRIDE

# Above this many samples in a window, plots read the envelopes instead of the samples.
RAW_PLOT_LIMIT = 500_000
ENVELOPE_COLUMNS = 5  # t_mean, min_w, max_w, sum_w, count


def _buckets(
    t: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    total: np.ndarray,
    count: np.ndarray,
    start: float,
    end: float,
    points: int,
) -> dict[str, list[float]]:
    """Min/max/mean per time bucket of (possibly pre-aggregated) rows sorted by t."""
    edges = np.linspace(start, end, points + 1)
    idx = np.searchsorted(t, edges, side="left")
    idx[-1] = np.searchsorted(t, end, side="right")
    first, last = idx[0], idx[-1]
    bounds = idx[:-1][idx[1:] > idx[:-1]] - first
    if last <= first:
        return {"t": [], "min_w": [], "max_w": [], "mean_w": []}
    t, lo, hi = t[first:last], lo[first:last], hi[first:last]
    total, count = total[first:last], count[first:last]
    n = np.add.reduceat(count, bounds)
    return {
        "t": np.round(np.add.reduceat(t * count, bounds) / n, 6).tolist(),
        "min_w": np.round(np.minimum.reduceat(lo, bounds), 6).tolist(),
        "max_w": np.round(np.maximum.reduceat(hi, bounds), 6).tolist(),
        "mean_w": np.round(np.add.reduceat(total, bounds) / n, 6).tolist(),
    }


def trace_plot(
    *, trace: PowerTrace, start: float | None, end: float | None, points: int
) -> dict[str, Any]:
    """Downsampled plot data of a window: min/max envelopes and means per bucket.

    Long windows are built from the stored envelopes (ENVELOPE_STRIDE samples each), so a
    plot of ten million samples reads about 40 thousand rows, not the samples; an envelope
    row on the window's edge counts wholly inside it.
    """
    require_parsed(trace)
    lo, hi = trace_window(trace, start, end)
    blocks = list(trace_blocks(trace, lo, hi).values_list("n", "t_start", "t_end"))
    estimate = sum(
        n * (min(b_end, hi) - max(b_start, lo)) / (b_end - b_start) if b_end > b_start else n
        for n, b_start, b_end in blocks
    )
    window = trace_run_window(trace=trace)
    data: dict[str, Any]
    # Envelopes only when each bucket spans at least one envelope row.
    if estimate <= max(RAW_PLOT_LIMIT, points * ENVELOPE_STRIDE):
        samples = trace_samples(trace=trace, start=lo, end=hi)
        p = samples.power.astype(np.float64)
        if len(p) <= points:
            values = np.round(p, 6).tolist()
            data = {"t": np.round(samples.t, 6).tolist(), "min_w": values, "max_w": values}
            data["mean_w"] = values
            exact = True
        else:
            ones = np.ones(len(p))
            data = _buckets(samples.t, p, p, p, ones, lo, hi, points)
            exact = False
        count = len(p)
    else:
        rows = [
            np.frombuffer(env, "<f8").reshape(-1, ENVELOPE_COLUMNS)
            for (env,) in trace_blocks(trace, lo, hi).values_list("envelope")
        ]
        env_rows = np.concatenate(rows)
        inside = (env_rows[:, 0] >= lo - 0.0) & (env_rows[:, 0] <= hi)
        env_rows = env_rows[inside]
        data = _buckets(
            env_rows[:, 0],
            env_rows[:, 1],
            env_rows[:, 2],
            env_rows[:, 3],
            env_rows[:, 4],
            lo,
            hi,
            points,
        )
        exact = False
        count = int(env_rows[:, 4].sum())
    return {
        "start_s": lo,
        "end_s": hi,
        "duration_s": trace.duration_s or 0.0,
        "samples": count,
        "exact": exact,
        **data,
        "run_window": None
        if window is None
        else {"start_s": window.start_s, "end_s": window.end_s},
    }
