"""Energy figures and battery-life projections: pure functions over numpy arrays.

Units: seconds, watts, joules, amperes, volts, watt-hours, milliampere-hours.
Checked against the papers' figures in power/tests/test_energy.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.floating]

SECONDS_PER_HOUR = 3600.0
# 1 mAh is 0.001 A for 3600 s = 3.6 C (the MQTT vs CoAP paper: J = mAh x 3.6 x V).
COULOMBS_PER_MAH = 3.6


@dataclass(frozen=True)
class WindowFigures:
    samples: int
    duration_s: float
    # Energy / duration: the power a battery sees. With one sample (no duration) the
    # sample's own power.
    mean_w: float
    # The plain average of the samples; differs from mean_w when sampling is uneven
    # (a meter that speeds up during bursts over-weights them). Shown only under this name.
    sample_mean_w: float
    median_w: float
    min_w: float
    max_w: float
    energy_j: float
    # Charge drawn (mAh) when the trace has a current channel, else None.
    charge_mah: float | None


def trapezoid_energy_j(t_s: FloatArray, power_w: FloatArray) -> float:
    """Energy by trapezoidal integration of power over time (J).

    The integral runs from the first to the last sample of the window, each interval
    weighted by its own length, so an unevenly sampled trace is integrated as measured.
    """
    if len(t_s) < 2:
        return 0.0
    return float(np.trapezoid(power_w.astype(np.float64), t_s))


def window_figures(
    t_s: FloatArray, power_w: FloatArray, current_a: FloatArray | None = None
) -> WindowFigures:
    """Figures of the samples of one window (already cut to it). Needs one sample or more."""
    if len(t_s) == 0:
        raise ValueError("a window needs at least one sample")
    p = power_w.astype(np.float64)
    charge = None
    if current_a is not None:
        charge = trapezoid_energy_j(t_s, current_a) / COULOMBS_PER_MAH
    duration = float(t_s[-1] - t_s[0])
    energy_j = trapezoid_energy_j(t_s, p)
    return WindowFigures(
        samples=len(t_s),
        duration_s=duration,
        mean_w=mean_power_w(energy_j, duration, fallback_w=float(p.mean())),
        sample_mean_w=float(p.mean()),
        median_w=float(np.median(p)),
        min_w=float(p.min()),
        max_w=float(p.max()),
        energy_j=energy_j,
        charge_mah=charge,
    )


def mean_power_w(energy_j: float, duration_s: float, *, fallback_w: float) -> float:
    """Energy / duration; `fallback_w` (the one sample's power) when there is no duration."""
    return energy_j / duration_s if duration_s > 0 else fallback_w


def mah_to_joules(mah: float, volts: float) -> float:
    return mah * COULOMBS_PER_MAH * volts


def joules_to_mah(joules: float, volts: float) -> float:
    return joules / (COULOMBS_PER_MAH * volts)


def capacity_wh(
    *, wh: float | None = None, mah: float | None = None, volts: float | None = None
) -> float:
    """A battery's energy in Wh, from Wh or from mAh at a voltage (10,000 mAh at 5 V = 50 Wh)."""
    if wh is not None:
        return wh
    if mah is None or volts is None:
        raise ValueError("give the capacity in Wh, or in mAh with a voltage")
    return mah * volts / 1000.0


def overhead_pct(mean_w: float, reference_w: float) -> float:
    """Relative increase of mean_w over reference_w (the SRUP paper's Equation 2)."""
    return (mean_w - reference_w) / reference_w * 100.0


def hours_continuous(capacity: float, power_w: float) -> float:
    """Battery life at a constant power draw (the SRUP paper's Equation 3)."""
    return capacity / power_w if power_w > 0 else math.inf


def hours_duty_cycled(
    capacity: float, idle_w: float, energy_per_message_j: float, rates_per_min: FloatArray
) -> FloatArray:
    """Battery life when idle between messages: capacity / (idle + rate x energy per message).

    The message energy is the net one (above idle), so the two terms do not overlap.
    """
    draw_w = idle_w + np.asarray(rates_per_min, dtype=np.float64) / 60.0 * energy_per_message_j
    with np.errstate(divide="ignore"):
        return np.where(draw_w > 0, capacity / draw_w, np.inf)
