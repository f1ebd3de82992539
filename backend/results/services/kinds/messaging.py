"""Messaging runs' results: their message records, round-trip summary and methods."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# pyarrow ships no type information (pyproject may or may not list it as ignored)
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

from experiments.models import ExperimentKind, Run, RunDevice
from measurements.models import MessageRecord, RunStatistic
from measurements.selectors import run_statistics
from results.services.kinds.base import (
    RecordSource,
    ResultsKind,
    SummaryInput,
    us,
)
from results.services.methods import AddressWords, run_methods_paragraph
from results.services.summaries import DeviceStatistics, RunStatistics, run_statistics_compute

RECORD_COLUMNS = {  # name -> Arrow type of the Parquet column
    "seq": pa.int32(),
    "t_send_ns": pa.int64(),
    "t_recv_ns": pa.int64(),
    "rtt_ms": pa.float64(),
    "app_bytes": pa.int32(),
    "wire_bytes": pa.int32(),
    "outcome": pa.string(),
    "secure_ns": pa.int64(),
    "unsecure_ns": pa.int64(),
    # the harness floor beside the message (the null mechanism, same size, same timing)
    "floor_secure_ns": pa.int64(),
    "floor_unsecure_ns": pa.int64(),
    # the message's mechanism in an interleaved run (empty in any other: the run's security)
    "mechanism": pa.string(),
}
MESSAGES = RecordSource(
    model=MessageRecord,
    select="r.seq, r.t_send_ns, r.t_recv_ns, "
    "CASE WHEN r.outcome = 'ok' THEN (r.t_recv_ns - r.t_send_ns)::float8 / 1e6 END AS rtt_ms, "
    "r.app_bytes, r.wire_bytes, r.outcome, r.secure_ns, r.unsecure_ns, "
    "r.floor_secure_ns, r.floor_unsecure_ns, r.mechanism",
    columns=RECORD_COLUMNS,
    order="d.name, r.seq",
)


# The mechanism a summary row is of (None: every message) and its mean of device means (ms).
MechanismRows = tuple[str | None, float | None]


def _summary_row(
    of: SummaryInput,
    row: DeviceStatistics,
    mechanism: MechanismRows,
    stored: RunStatistic | None,
    resources: dict[str, Any],
) -> dict[str, Any]:
    """`stored`: the device's (or all devices') summary computed at ingest, which holds the
    securing times and their harness floors (None before it exists: empty columns).
    `resources`: the agent's resource columns (``_resource_columns``).
    `mechanism`: the interleaved run's mechanism the row is of and its mean of device means
    (the name None: every message of the run)."""
    s = row.summary
    name, mean_of_device_means_ms = mechanism
    return {
        **of.leading_columns(row.device_id, row.device_name),
        "mechanism": name,
        "records": row.records,
        "n": s.n,
        "lost": row.lost,
        "rejected": row.rejected,
        "rejected_signature": row.rejected_signature,
        "rejected_replay": row.rejected_replay,
        "decrypt_error": row.decrypt_error,
        "mean_ms": s.mean,
        "ci_method": s.ci_method,
        "ci_low_ms": s.ci_low,
        "ci_high_ms": s.ci_high,
        "t_ci_low_ms": s.t_ci_low,
        "t_ci_high_ms": s.t_ci_high,
        "median_ms": s.median,
        "median_ci_low_ms": s.median_ci_low,
        "median_ci_high_ms": s.median_ci_high,
        "q1_ms": s.q1,
        "q3_ms": s.q3,
        "p95_ms": s.p95,
        "p99_ms": s.p99,
        "min_ms": s.min,
        "max_ms": s.max,
        "variance_ms2": s.variance,
        "std_ms": s.std,
        "mean_of_device_means_ms": mean_of_device_means_ms,
        **resources,
        **_securing_columns(stored),
    }


# Securing and unsecuring times in µs: the means raw, of their harness floor and net of it
# (raw - floor), and the medians raw and of each message's net time, as the run page shows
# them; column -> the stored summary's field (ns).
_SECURING_FIELDS = {
    f"{stat}_us": f"{stat}_ns"
    for direction in ("secure", "unsecure")
    for stat in (
        f"{direction}_mean",
        f"floor_{direction}_mean",
        f"net_{direction}_mean",
        f"{direction}_median",
        f"net_{direction}_median",
    )
}


def _securing_columns(stored: RunStatistic | None) -> dict[str, float | None]:
    """The securing columns (None before the stored summary exists: empty columns)."""
    return {
        column: None if stored is None else us(getattr(stored, field))
        for column, field in _SECURING_FIELDS.items()
    }


def summary_rows(of: SummaryInput) -> list[dict[str, Any]]:
    """One row per device, then one for all devices (device columns empty), over every
    message (`mechanism` empty); an interleaved run then the same rows per mechanism of its
    rotation. The statistics are computed when not given."""
    statistics = of.statistics or run_statistics_compute(run=of.run)
    stored = {
        (s.mechanism, s.run_device.device_id if s.run_device else None): s
        for s in run_statistics(run=of.run)
    }
    parts: list[tuple[MechanismRows, list[DeviceStatistics], DeviceStatistics]] = [
        ((None, statistics.mean_of_device_means_ms), statistics.devices, statistics.all_devices)
    ]
    for m in statistics.mechanisms:
        parts.append(((m.mechanism, m.mean_of_device_means_ms), m.devices, m.all_devices))
    run_devices = {rd.device_id: rd for rd in of.run.run_devices.all()}
    rows = []
    for mechanism, devices, all_devices in parts:
        for d in [*devices, all_devices]:
            # Over the device's whole measured window: on its row over every message only.
            whole = mechanism[0] is None and d.device_id is not None
            rd = run_devices.get(d.device_id) if whole and d.device_id else None
            resources = _resource_columns(rd)
            stat = stored.get((mechanism[0], d.device_id))
            rows.append(_summary_row(of, d, mechanism, stat, resources))
    return rows


# What the run cost each device's agent over its measured window (RunDevice, from the
# X-Run-Resources header); empty on the all-devices row, on an interleaved run's
# per-mechanism rows (the window holds every mechanism) and where not recorded.
NS_PER_S = 1e9
_RESOURCE_COLUMNS = (
    "agent_window_s",
    "agent_cpu_user_s",
    "agent_cpu_system_s",
    "agent_peak_rss_kb",
    "agent_peak_rss_scope",
    "agent_bytes_sent",
    "agent_bytes_received",
)


def _resource_columns(rd: RunDevice | None) -> dict[str, Any]:
    if rd is None or rd.resources_window_ns is None:
        return dict.fromkeys(_RESOURCE_COLUMNS)
    seconds = [
        None if ns is None else ns / NS_PER_S
        for ns in (rd.resources_window_ns, rd.cpu_user_ns, rd.cpu_system_ns)
    ]
    values = (*seconds, rd.peak_rss_kb, rd.peak_rss_scope, rd.bytes_sent, rd.bytes_received)
    return dict(zip(_RESOURCE_COLUMNS, values, strict=True))


def methods(run: Run, statistics: Callable[[], RunStatistics], addresses: AddressWords) -> str:
    return run_methods_paragraph(run=run, statistics=statistics(), addresses=addresses)


KIND = ResultsKind(
    name=ExperimentKind.MESSAGING,
    records=MESSAGES,
    summary_rows=summary_rows,
    summary_columns=(),  # a messaging summary always has its all-devices row
    methods=methods,
)
