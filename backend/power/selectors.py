"""Read side of power traces: lists, the run window, plot data, figures and projections."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID

import numpy as np
from django.db.models import Count, Max, Min, QuerySet
from django.db.models.functions import Coalesce
from django.shortcuts import get_object_or_404

from accounts.models import Workspace
from devices.models import Device
from experiments.models import Run
from measurements.models import MessageRecord
from power import energy
from power.errors import BaselineInvalid, TraceNotParsed, WindowInvalid
from power.models import BatteryReading, PowerSampleBlock, PowerTrace, TraceStatus
from power.warnings import FigureWarning, alignment_warnings, window_warnings

NOT_PARSED_MESSAGE = "Trace {name} has no samples yet ({status}); parse it first."
EMPTY_WINDOW_MESSAGE = (
    "The window {start:.3f}-{end:.3f} s holds no samples; the trace covers 0-{duration:.3f} s."
)
BATTERY_GAUGE = "battery gauge"
BASELINE_TRACE_MESSAGE = "The baseline trace must be a parsed trace of this workspace."
BASELINE_VOLTAGE_MESSAGE = (
    "A baseline current needs a voltage: the trace has no voltage channel and no supply "
    "voltage; give the baseline in watts instead."
)


def trace_list(
    *,
    workspace: Workspace,
    run: UUID | None = None,
    device: UUID | None = None,
    kind: str | None = None,
) -> QuerySet[PowerTrace]:
    traces = PowerTrace.objects.filter(workspace=workspace).select_related("device", "run")
    if run is not None:
        traces = traces.filter(run_id=run)
    if device is not None:
        traces = traces.filter(device_id=device)
    if kind:
        traces = traces.filter(kind=kind)
    return traces.order_by("-created_at")


def trace_get(*, workspace: Workspace, trace_id: UUID) -> PowerTrace:
    """The trace if it is in the workspace; 404 otherwise (no existence leak)."""
    return get_object_or_404(trace_list(workspace=workspace), pk=trace_id)


def trace_find(*, workspace: Workspace, trace_id: UUID) -> PowerTrace | None:
    """The trace if it is in the workspace, else None (the caller answers 400)."""
    return PowerTrace.objects.filter(workspace=workspace, pk=trace_id).first()


def traces_by_id(*, workspace: Workspace, trace_ids: list[UUID]) -> dict[UUID, PowerTrace]:
    """Those of the traces that are in the workspace, by id, in one query."""
    return {t.pk: t for t in PowerTrace.objects.filter(workspace=workspace, pk__in=trace_ids)}


def device_find(*, workspace: Workspace, device_id: UUID) -> Device | None:
    """The device a trace may be attached to, if it is in the workspace."""
    return Device.objects.filter(workspace=workspace, pk=device_id).first()


def run_find(*, workspace: Workspace, run_id: UUID) -> Run | None:
    """The run a trace may be attached to, if it is in the workspace."""
    return Run.objects.filter(experiment__workspace=workspace, pk=run_id).first()


# --- alignment ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RunWindow:
    start_s: float
    end_s: float
    alignment: str  # absolute | manual | none
    messages: int


def _run_records(trace: PowerTrace) -> QuerySet[MessageRecord]:
    assert trace.run_id is not None
    records = MessageRecord.objects.filter(run_device__run_id=trace.run_id)
    if trace.device_id is not None:
        records = records.filter(run_device__device_id=trace.device_id)
    return records


def trace_run_window(*, trace: PowerTrace) -> RunWindow | None:
    """The attached run's measuring window on the trace's time axis (seconds).

    The window is first send to last receive of the trace's device (of every device when
    the trace names none), else the run's start and finish. It sits at the user's offset
    when set, else where the meter's absolute timestamps put it, else at 0 ("none": the
    user should align it).
    """
    run = trace.run
    if run is None:
        return None
    span = _run_records(trace).aggregate(
        first=Min("t_send_ns"), last=Max(Coalesce("t_recv_ns", "t_send_ns")), n=Count("seq")
    )
    if span["first"] is not None:
        start_wall = span["first"] / 1e9
        duration = (span["last"] - span["first"]) / 1e9
    elif run.started_at is not None:
        start_wall = run.started_at.timestamp()
        duration = ((run.finished_at or run.started_at) - run.started_at).total_seconds()
    else:
        return None
    if trace.offset_s is not None:
        start, alignment = trace.offset_s, "manual"
    elif trace.absolute_start is not None:
        start, alignment = start_wall - trace.absolute_start.timestamp(), "absolute"
    else:
        start, alignment = 0.0, "none"
    return RunWindow(start, start + duration, alignment, int(span["n"]))


def trace_alignment_warnings(
    *, trace: PowerTrace, run_window: RunWindow | None
) -> list[FigureWarning]:
    """The far-apart warning when absolute timestamps put the run over a day off the trace."""
    if run_window is None:
        return []
    return alignment_warnings(
        trace_id=str(trace.pk),
        start_s=run_window.start_s,
        end_s=run_window.end_s,
        duration_s=trace.duration_s or 0.0,
        alignment=run_window.alignment,
    )


# --- samples -----------------------------------------------------------------------------


def require_parsed(trace: PowerTrace) -> None:
    if trace.status != TraceStatus.PARSED:
        raise TraceNotParsed(NOT_PARSED_MESSAGE.format(name=trace.name, status=trace.status))


def trace_blocks(trace: PowerTrace, start: float, end: float) -> QuerySet[PowerSampleBlock]:
    return PowerSampleBlock.objects.filter(
        trace=trace, t_end__gte=start, t_start__lte=end
    ).order_by("index")


@dataclass(frozen=True)
class Samples:
    t: np.ndarray
    power: np.ndarray
    current: np.ndarray | None
    voltage: np.ndarray | None


def trace_samples(*, trace: PowerTrace, start: float, end: float) -> Samples:
    """The samples with start <= t <= end."""
    require_parsed(trace)
    ts, ps, cs, vs = [], [], [], []
    for t, p, c, v in trace_blocks(trace, start, end).values_list(
        "t", "power", "current", "voltage"
    ):
        ts.append(np.frombuffer(t, "<f8"))
        ps.append(np.frombuffer(p, "<f4"))
        cs.append(None if c is None else np.frombuffer(c, "<f4"))
        vs.append(None if v is None else np.frombuffer(v, "<f4"))
    if not ts:
        return Samples(np.empty(0), np.empty(0, np.float32), None, None)
    t_all = np.concatenate(ts)
    lo = int(np.searchsorted(t_all, start, side="left"))
    hi = int(np.searchsorted(t_all, end, side="right"))

    def cut(parts: list[Any]) -> np.ndarray | None:
        if parts[0] is None:
            return None
        return np.concatenate(parts)[lo:hi]

    return Samples(t_all[lo:hi], np.concatenate(ps)[lo:hi], cut(cs), cut(vs))


def trace_window(trace: PowerTrace, start: float | None, end: float | None) -> tuple[float, float]:
    duration = trace.duration_s or 0.0
    lo = 0.0 if start is None else start
    hi = duration if end is None else end
    if hi < lo or hi < 0 or lo > duration:
        raise WindowInvalid(EMPTY_WINDOW_MESSAGE.format(start=lo, end=hi, duration=duration))
    return lo, hi


# --- figures -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Baseline:
    source: str  # trace | constant | none
    power_w: float


def trace_default_window(
    *, trace: PowerTrace, run_window: RunWindow | None = None
) -> tuple[float, float]:
    """The run window when the trace is attached to a run, else the whole trace."""
    window = run_window if run_window is not None else trace_run_window(trace=trace)
    if window is not None:
        return window.start_s, window.end_s
    return 0.0, trace.duration_s or 0.0


def _supply_voltage(trace: PowerTrace, samples: Samples | None = None) -> float | None:
    if trace.supply_voltage_v:
        return trace.supply_voltage_v
    if samples is not None and samples.voltage is not None and len(samples.voltage):
        return float(samples.voltage.astype(np.float64).mean())
    return None


def _mean_power_w(samples: Samples) -> float:
    """Energy / duration of the samples (their one power with a single sample)."""
    return energy.window_figures(samples.t, samples.power).mean_w


def _trace_period_s(trace: PowerTrace) -> float | None:
    if trace.sample_count < 2 or not trace.duration_s:
        return None
    return trace.duration_s / (trace.sample_count - 1)


def baseline_resolve(
    *,
    workspace: Workspace,
    trace: PowerTrace,
    baseline_trace: UUID | None = None,
    baseline_w: float | None = None,
    baseline_current_a: float | None = None,
) -> Baseline:
    if baseline_trace is not None:
        other = PowerTrace.objects.filter(
            workspace=workspace, pk=baseline_trace, status=TraceStatus.PARSED
        ).first()
        if other is None:
            raise BaselineInvalid(BASELINE_TRACE_MESSAGE)
        lo, hi = trace_default_window(trace=other)
        return Baseline("trace", _mean_power_w(trace_samples(trace=other, start=lo, end=hi)))
    if baseline_w is not None:
        return Baseline("constant", baseline_w)
    if baseline_current_a is not None:
        volts = trace.supply_voltage_v or _supply_voltage(
            trace, trace_samples(trace=trace, start=0.0, end=trace.duration_s or 0.0)
        )
        if volts is None:
            raise BaselineInvalid(BASELINE_VOLTAGE_MESSAGE)
        return Baseline("constant", baseline_current_a * volts)
    return Baseline("none", 0.0)


def trace_figures(
    *,
    trace: PowerTrace,
    start: float | None,
    end: float | None,
    baseline: Baseline,
    reference: PowerTrace | None = None,
) -> dict[str, Any]:
    """Energy figures of a window (default: the run window, else the whole trace)."""
    require_parsed(trace)
    run_window = trace_run_window(trace=trace)
    far = trace_alignment_warnings(trace=trace, run_window=run_window)
    default_lo, default_hi = trace_default_window(trace=trace, run_window=run_window)
    try:
        lo, hi = trace_window(
            trace, default_lo if start is None else start, default_hi if end is None else end
        )
        samples = trace_samples(trace=trace, start=lo, end=hi)
        if len(samples.t) == 0:
            raise WindowInvalid(
                EMPTY_WINDOW_MESSAGE.format(start=lo, end=hi, duration=trace.duration_s or 0.0)
            )
    except WindowInvalid as exc:
        if not far:
            raise
        # The empty window is the symptom; the clocks are the cause, and the fix is manual.
        raise WindowInvalid(f"{exc.message} {far[0]['message']}", extra={"warnings": far}) from exc
    fig = energy.window_figures(samples.t, samples.power, samples.current)
    volts = _supply_voltage(trace, samples)
    charge = fig.charge_mah
    if charge is None and volts:
        charge = energy.joules_to_mah(fig.energy_j, volts)
    net_energy = fig.energy_j - baseline.power_w * fig.duration_s
    messages = run_window.messages if run_window is not None else 0
    warnings = [
        *far,
        *window_warnings(t_s=samples.t, window_s=hi - lo, trace_period_s=_trace_period_s(trace)),
    ]
    result: dict[str, Any] = {
        "window": {
            "start_s": lo,
            "end_s": hi,
            "duration_s": fig.duration_s,
            "samples": fig.samples,
        },
        "mean_w": fig.mean_w,
        "sample_mean_w": fig.sample_mean_w,
        "median_w": fig.median_w,
        "min_w": fig.min_w,
        "max_w": fig.max_w,
        "energy_j": fig.energy_j,
        "baseline": {"source": baseline.source, "power_w": baseline.power_w},
        "net_mean_w": fig.mean_w - baseline.power_w,
        "net_energy_j": net_energy,
        "messages": messages,
        "energy_per_message_j": fig.energy_j / messages if messages else None,
        "net_energy_per_message_j": net_energy / messages if messages else None,
        "charge_mah": charge,
        "supply_voltage_v": volts,
        "reference": None,
        "battery": trace_battery_figures(trace=trace, run_window=run_window, baseline=baseline),
        "warnings": warnings,
    }
    if reference is not None:
        require_parsed(reference)
        ref_lo, ref_hi = trace_default_window(trace=reference)
        ref_samples = trace_samples(trace=reference, start=ref_lo, end=ref_hi)
        if len(ref_samples.t):
            ref_mean = _mean_power_w(ref_samples)
            result["reference"] = {
                "trace": str(reference.pk),
                "name": reference.name,
                "mean_w": ref_mean,
                "overhead_w": fig.mean_w - ref_mean,
                "overhead_pct": energy.overhead_pct(fig.mean_w, ref_mean),
            }
    return result


# --- battery gauge -------------------------------------------------------------------------


def battery_reading_list(
    *, workspace: Workspace, run: UUID | None = None
) -> QuerySet[BatteryReading]:
    readings = BatteryReading.objects.filter(workspace=workspace).select_related("device")
    if run is not None:
        readings = readings.filter(run_id=run)
    return readings.order_by("-created_at")


def battery_reading_get(*, workspace: Workspace, reading_id: UUID) -> BatteryReading:
    """The reading if it is in the workspace; 404 otherwise (no existence leak)."""
    return get_object_or_404(battery_reading_list(workspace=workspace), pk=reading_id)


def trace_battery_reading(*, trace: PowerTrace) -> BatteryReading | None:
    """The reading of the trace's run and device (of the run as a whole for no device)."""
    if trace.run_id is None:
        return None
    readings = BatteryReading.objects.filter(run_id=trace.run_id)
    if trace.device_id is None:
        return readings.filter(device__isnull=True).first()
    return readings.filter(device_id=trace.device_id).first()


def trace_battery_figures(
    *, trace: PowerTrace, run_window: RunWindow | None, baseline: Baseline
) -> dict[str, Any] | None:
    """Energy from the battery gauge's reading over the run (None without a reading).

    Energy = mAh x 3.6 x V over the run window's duration; per message divides by the
    run's messages of the trace's device, net of the baseline as the trace's figures are.
    """
    reading = trace_battery_reading(trace=trace)
    if reading is None or run_window is None:
        return None
    joules = energy.mah_to_joules(reading.charge_mah, reading.voltage_v)
    duration = run_window.end_s - run_window.start_s
    messages = run_window.messages
    net = joules - baseline.power_w * duration
    return {
        "source": BATTERY_GAUGE,
        "reading": str(reading.pk),
        "charge_mah": reading.charge_mah,
        "voltage_v": reading.voltage_v,
        "energy_j": joules,
        "duration_s": duration,
        "mean_w": joules / duration if duration > 0 else None,
        "energy_per_message_j": joules / messages if messages else None,
        "net_energy_per_message_j": net / messages if messages else None,
    }
