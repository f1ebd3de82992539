"""Battery-life projections of power traces: continuous and duty-cycled, from each trace's
figures and its battery-gauge reading (selectors: reads only)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from power import energy
from power.models import PowerTrace
from power.selectors import BATTERY_GAUGE, Baseline, trace_figures
from power.warnings import FigureWarning


def _finite(value: float) -> float | None:
    return None if math.isinf(value) or math.isnan(value) else round(value, 4)


NO_BASELINE_REASON = (
    "Give an idle baseline (a baseline trace or a constant) to project duty cycles."
)
NO_MESSAGES_REASON = "The trace is attached to no run with messages: no energy per message."


def _series(
    *,
    trace: PowerTrace,
    name: str,
    source: str,
    mean_w: float,
    net_per_message_j: float | None,
    messages: int,
    capacity: float,
    idle_w: float | None,
    rates_per_min: np.ndarray,
    warnings: list[FigureWarning],
) -> dict[str, Any]:
    """One projection curve: continuous life at mean_w, duty-cycled life when it can be."""
    item: dict[str, Any] = {
        "trace": str(trace.pk),
        "name": name,
        "source": source,
        "mean_w": mean_w,
        "idle_w": idle_w,
        "energy_per_message_j": net_per_message_j,
        "continuous_hours": _finite(energy.hours_continuous(capacity, mean_w)),
        "hours": None,
        "reason": "",
        "warnings": warnings,
    }
    if idle_w is None:
        item["reason"] = NO_BASELINE_REASON
    elif not messages or net_per_message_j is None:
        item["reason"] = NO_MESSAGES_REASON
    else:
        hours = energy.hours_duty_cycled(capacity, idle_w, net_per_message_j, rates_per_min)
        item["hours"] = [_finite(float(h)) for h in hours]
    return item


def trace_projection(
    *,
    traces: list[PowerTrace],
    capacity: float,
    baseline: Baseline,
    rates_per_min: np.ndarray,
) -> dict[str, Any]:
    series = []
    idle_w = baseline.power_w if baseline.source != "none" else None
    for trace in traces:
        fig = trace_figures(trace=trace, start=None, end=None, baseline=baseline)
        series.append(
            _series(
                trace=trace,
                name=trace.name,
                source="trace",
                mean_w=fig["mean_w"],
                net_per_message_j=fig["net_energy_per_message_j"],
                messages=fig["messages"],
                capacity=capacity,
                idle_w=idle_w,
                rates_per_min=rates_per_min,
                warnings=fig["warnings"],
            )
        )
        battery = fig["battery"]
        if battery is not None and battery["mean_w"] is not None:
            series.append(
                _series(
                    trace=trace,
                    name=f"{trace.name} ({BATTERY_GAUGE})",
                    source=BATTERY_GAUGE,
                    mean_w=battery["mean_w"],
                    net_per_message_j=battery["net_energy_per_message_j"],
                    messages=fig["messages"],
                    capacity=capacity,
                    idle_w=idle_w,
                    rates_per_min=rates_per_min,
                    warnings=[],
                )
            )
    return {
        "capacity_wh": capacity,
        "rates_per_min": [float(r) for r in rates_per_min],
        "series": series,
    }
