"""`parse_file`: a raw file and a confirmed spec in, a trace of samples out."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import numpy as np
import numpy.typing as npt

from .errors import TraceParseError, column_label
from .reader import Columns, Kind, Request, read_columns
from .spec import (
    CHANNEL_UNITS,
    TIME_UNIT_SECONDS,
    ParseSpec,
    validate_spec,
)
from .timebase import (
    BackwardsJump,
    TimeStandsStill,
    has_date,
    is_epoch,
    make_monotonic,
    micros_to_datetime,
    to_utc,
    unwrap_midnight,
)

Float32 = npt.NDArray[np.float32]


@dataclass
class ParsedTrace:
    """The samples of one file, in file order.

    `t_s` is seconds from the first sample (first = 0.0, non-decreasing). `power_w` is always
    present: the power column, else voltage x current, else current x the supply voltage.
    `absolute_start` is the first sample's UTC time when the file holds wall-clock stamps.
    """

    t_s: npt.NDArray[np.float64]
    power_w: npt.NDArray[np.float32]
    voltage_v: npt.NDArray[np.float32] | None
    current_a: npt.NDArray[np.float32] | None
    absolute_start: datetime | None
    notes: list[str] = field(default_factory=list)
    lines: int = 0


def parse_file(
    path: Path, spec: ParseSpec, *, progress: Callable[[float], None] | None = None
) -> ParsedTrace:
    """Parse `path` with `spec`; raise TraceParseError (never an Arrow or numpy error).

    `progress` is called with the fraction of the file's bytes read so far, ending with 1.0.
    """
    validate_spec(spec)
    columns = read_columns(path, spec, _requests(spec), progress)
    if columns.rows == 0:
        raise TraceParseError(
            f"The file has no data lines after line {spec.skip_lines}; check skip_lines.",
            line=spec.skip_lines or None,
            expected="data lines",
        )
    notes: list[str] = []
    t_s, absolute_start = _times(columns, spec, notes)
    voltage, current, power = _channels(columns, spec, notes)
    return ParsedTrace(
        t_s=t_s,
        power_w=power,
        voltage_v=voltage,
        current_a=current,
        absolute_start=absolute_start,
        notes=notes,
        lines=columns.rows,
    )


def _requests(spec: ParseSpec) -> list[Request]:
    requests: list[Request] = []
    if spec.time is not None:
        kind: Kind = "datetime" if spec.time.unit == "datetime" else "number"
        requests.append(Request("time", spec.time.column, kind, spec.time.datetime_format))
    for role, channel in spec.channels().items():
        requests.append(Request(role, channel.column, "number"))
    return requests


def _times(
    columns: Columns, spec: ParseSpec, notes: list[str]
) -> tuple[npt.NDArray[np.float64], datetime | None]:
    if spec.time is None:
        assert spec.sample_rate_hz is not None  # validate_spec guarantees one of the two
        return np.arange(columns.rows, dtype=np.float64) / spec.sample_rate_hz, None
    raw = columns.values.pop("time")
    absolute_start: datetime | None = None
    if spec.time.unit == "datetime":
        micros = raw.astype(np.int64, copy=False)
        fmt = spec.time.datetime_format or ""
        if not has_date(fmt):
            micros = unwrap_midnight(micros)
        elif not columns.zoned:
            micros = to_utc(micros, spec.time.timezone)
        if has_date(fmt):
            absolute_start = micros_to_datetime(int(micros[0]))
        relative = (micros - micros[0]).astype(np.float64) / 1e6
    else:
        # In place: the column is ours, and at 10 million samples every copy is 80 MB.
        relative = raw.astype(np.float64, copy=False)
        if spec.time.unit != "s":
            relative *= TIME_UNIT_SECONDS[spec.time.unit]
        first = float(relative[0])
        relative -= first
        if is_epoch(first):
            absolute_start = micros_to_datetime(round(first * 1e6))
            started = f"{absolute_start:%Y-%m-%d %H:%M:%S}.{absolute_start.microsecond // 1000:03d}"
            notes.append(f"The time column holds Unix time; the trace starts at {started} UTC.")
        elif first != 0.0:
            notes.append(
                f"The first time stamp is {first:g} s; times are counted from the first sample."
            )
    try:
        fixed, adjusted = make_monotonic(relative)
    except BackwardsJump as jump:
        line = columns.line_of(jump.index)
        label = column_label(spec.time.column, columns.header)
        raise TraceParseError(
            f"Line {line}, {label}: the time steps back from {jump.before_s:.6g} s to "
            f"{jump.after_s:.6g} s (counted from the first sample). A file holding two "
            "recordings must be split into one file per recording.",
            line=line,
            column=spec.time.column + 1,
            expected="time stamps that do not step back by more than a second",
        ) from None
    except TimeStandsStill:
        raise TraceParseError(
            f"The time column ({column_label(spec.time.column, columns.header)}) never "
            "advances: every line has the same stamp. Map another column, or give "
            "sample_rate_hz instead.",
            column=spec.time.column + 1,
            expected="time stamps that advance",
        ) from None
    if adjusted:
        notes.append(
            f"{adjusted} time stamp{'s' if adjusted != 1 else ''} stepped backwards or repeated "
            "within packets; spread evenly between neighbours."
        )
    return fixed, absolute_start


def _channels(
    columns: Columns, spec: ParseSpec, notes: list[str]
) -> tuple[Float32 | None, Float32 | None, Float32]:
    """Scale to V, A, W and derive power. Each float64 column is dropped as soon as it has
    served, to keep the peak memory of a 10-million-sample file down."""
    scaled: dict[str, npt.NDArray[np.float64]] = {}
    for role, channel in spec.channels().items():
        values = columns.values.pop(role).astype(np.float64, copy=False)
        factor = CHANNEL_UNITS[role][channel.unit]
        if factor != 1.0:
            values *= factor
        scaled[role] = values
    voltage = scaled.pop("voltage", None)
    current = scaled.pop("current", None)
    if "power" in scaled:
        power = scaled.pop("power").astype(np.float32)
    elif voltage is not None and current is not None:
        power = (voltage * current).astype(np.float32)
        notes.append("Power computed from voltage times current.")
    else:
        # validate_spec guarantees a current column and a supply voltage here.
        assert current is not None
        assert spec.supply_voltage_v is not None
        power = (current * spec.supply_voltage_v).astype(np.float32)
        notes.append(f"Power computed from current times the {spec.supply_voltage_v:g} V supply.")
    return (
        None if voltage is None else voltage.astype(np.float32),
        None if current is None else current.astype(np.float32),
        power,
    )
