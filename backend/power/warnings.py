"""Warnings that travel with a figure: when the numbers are computed right but say little.

Each warning is `{"code", "message"}`; the code is stable (the UI and tests branch on it),
the message says what is wrong and what to do. docs/power-traces.md lists them.
"""

from __future__ import annotations

from typing import TypedDict

import numpy as np
import numpy.typing as npt

# Below this many samples a window's mean, median and energy rest on a handful of points
# (a 1 Hz meter over a 0.1 s run gives one): the figures are computed but barely measured.
MIN_WINDOW_SAMPLES = 10
# Meter and run clocks may disagree by seconds or minutes (time zones by hours); more than
# a day apart means a wrong clock (a meter never set, a file from another year).
MAX_ALIGNMENT_GAP_S = 86_400.0

FEW_SAMPLES = "few_samples"
SAMPLE_PERIOD_EXCEEDS_WINDOW = "sample_period_exceeds_window"
ALIGNMENT_FAR = "alignment_far"

FEW_SAMPLES_MESSAGE = (
    "The window holds {samples} sample{plural} (fewer than {minimum}): these figures rest on "
    "too few points to measure it. Widen the window or record at a higher sample rate."
)
SAMPLE_PERIOD_MESSAGE = (
    "The meter's sample period ({period:.3g} s) is longer than the window ({window:.3g} s): "
    "the energy of this window is not resolved. Record at a higher sample rate, or measure "
    "a longer run."
)
ALIGNMENT_FAR_MESSAGE = (
    "The absolute timestamps put the trace and its run {days:.1f} days apart (run offset "
    "{offset:,.0f} s on the trace's time axis): one of the clocks is wrong. Align them by "
    "hand: set the offset, the trace time (s) at which the run's first message was sent, "
    'in "Alignment" on the trace page (PATCH /api/power-traces/{trace}/ with offset_s).'
)


class FigureWarning(TypedDict):
    code: str
    message: str


def window_warnings(
    *, t_s: npt.NDArray[np.floating], window_s: float, trace_period_s: float | None
) -> list[FigureWarning]:
    """Warnings about how well the samples `t_s` (cut to a window `window_s` long) measure it.

    The sample period is the median interval of the window's samples, else the trace's
    average one (`trace_period_s`) when the window holds fewer than two.
    """
    warnings: list[FigureWarning] = []
    n = len(t_s)
    if n < MIN_WINDOW_SAMPLES:
        warnings.append(
            FigureWarning(
                code=FEW_SAMPLES,
                message=FEW_SAMPLES_MESSAGE.format(
                    samples=n, plural="" if n == 1 else "s", minimum=MIN_WINDOW_SAMPLES
                ),
            )
        )
    period = float(np.median(np.diff(t_s))) if n >= 2 else trace_period_s
    if period is not None and period > window_s:
        warnings.append(
            FigureWarning(
                code=SAMPLE_PERIOD_EXCEEDS_WINDOW,
                message=SAMPLE_PERIOD_MESSAGE.format(period=period, window=window_s),
            )
        )
    return warnings


def alignment_gap_s(*, start_s: float, end_s: float, duration_s: float) -> float:
    """How far (s) a run window lies outside a trace covering 0..duration_s (0 if it overlaps)."""
    return max(0.0, -end_s, start_s - duration_s)


def alignment_warnings(
    *, trace_id: str, start_s: float, end_s: float, duration_s: float, alignment: str
) -> list[FigureWarning]:
    """The far-apart warning when absolute timestamps put the run over a day off the trace."""
    if alignment != "absolute":
        return []
    gap = alignment_gap_s(start_s=start_s, end_s=end_s, duration_s=duration_s)
    if gap <= MAX_ALIGNMENT_GAP_S:
        return []
    message = ALIGNMENT_FAR_MESSAGE.format(days=gap / 86_400.0, offset=start_s, trace=trace_id)
    return [FigureWarning(code=ALIGNMENT_FAR, message=message)]
