"""The parse spec: which column holds what, in which unit (docs/power-traces.md, "Parse spec").

`spec_from_json` is the only way user input becomes a `ParseSpec`; it checks every field and
says which one is wrong and what would be accepted. `validate_spec` holds the cross-field rules
and is also run by `parse_file`, because detection builds specs directly (a PPK2 detection, for
one, leaves the supply voltage for the user to give).
"""

from __future__ import annotations

import math
import zoneinfo
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, cast

from .errors import TraceParseError

TimeUnit = Literal["s", "ms", "us", "ns", "datetime"]

FORMATS: dict[str, str] = {
    "rdtech_um": "RDTech UM24C/UM25C/UM34C export",
    "fnirsi": "FNIRSI FNB48/FNB58/C1 logger output",
    "joulescope_stats": "Joulescope statistics CSV",
    "joulescope_iv": "Joulescope current/voltage export (no header)",
    "otii": "Qoitech Otii CSV export",
    "monsoon": "Monsoon Power Monitor CSV",
    "ppk2": "Nordic Power Profiler Kit II CSV",
    "ina2xx": "INA219/INA226 logger CSV",
    "current_only": "Current-only log (supply voltage given separately)",
    "custom": "Other CSV (map the columns)",
}

# Seconds per unit of a relative time column.
TIME_UNIT_SECONDS: dict[str, float] = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
TIME_UNITS = ("s", "ms", "us", "ns", "datetime")
# Base unit per unit of each channel.
VOLTAGE_UNITS: dict[str, float] = {"V": 1.0, "mV": 1e-3}
CURRENT_UNITS: dict[str, float] = {"A": 1.0, "mA": 1e-3, "uA": 1e-6, "nA": 1e-9}
POWER_UNITS: dict[str, float] = {"W": 1.0, "mW": 1e-3, "uW": 1e-6}
CHANNEL_UNITS = {"voltage": VOLTAGE_UNITS, "current": CURRENT_UNITS, "power": POWER_UNITS}

# `datetime_format` value for ISO 8601 stamps, with or without a zone offset ("Z", "+02:00");
# strftime has no directive for "fraction optional, offset optional".
ISO8601 = "ISO8601"
DELIMITERS = (",", ";", "\t", " ", "|")
# A header block longer than this is not a meter export; the cap keeps a typo (skip 1000000)
# from reading a whole file as "header".
MAX_SKIP_LINES = 10_000
# Above any meter's rate; catches a period typed where a rate was meant the other way round.
MAX_SAMPLE_RATE_HZ = 1e9
MAX_SUPPLY_VOLTAGE_V = 1000.0
SPEC_FIELDS = (
    "format",
    "delimiter",
    "decimal_comma",
    "skip_lines",
    "time",
    "sample_rate_hz",
    "voltage",
    "current",
    "power",
    "supply_voltage_v",
)


@dataclass(frozen=True)
class TimeSpec:
    """The time column: relative stamps in `unit`, or wall-clock stamps (`unit="datetime"`)
    parsed with `datetime_format` (strftime language, or "ISO8601") in `timezone`."""

    column: int
    unit: TimeUnit
    datetime_format: str | None = None
    timezone: str = "UTC"


@dataclass(frozen=True)
class ChannelSpec:
    """A measured channel: its 0-based column and unit (V/mV; A/mA/uA/nA; W/mW/uW)."""

    column: int
    unit: str


@dataclass(frozen=True)
class ParseSpec:
    """How to read one file. See docs/power-traces.md for the JSON shape."""

    format: str
    delimiter: str = ","
    decimal_comma: bool = False
    skip_lines: int = 0
    time: TimeSpec | None = None
    sample_rate_hz: float | None = None
    voltage: ChannelSpec | None = None
    current: ChannelSpec | None = None
    power: ChannelSpec | None = None
    supply_voltage_v: float | None = None

    def channels(self) -> dict[str, ChannelSpec]:
        """The mapped channels by role, in a stable order."""
        found = {"voltage": self.voltage, "current": self.current, "power": self.power}
        return {role: channel for role, channel in found.items() if channel is not None}


def spec_to_json(spec: ParseSpec) -> dict[str, object]:
    """The JSON shape of docs/power-traces.md."""
    time: dict[str, object] | None = None
    if spec.time is not None:
        time = {
            "column": spec.time.column,
            "unit": spec.time.unit,
            "datetime_format": spec.time.datetime_format,
            "timezone": spec.time.timezone,
        }

    def channel(value: ChannelSpec | None) -> dict[str, object] | None:
        return None if value is None else {"column": value.column, "unit": value.unit}

    return {
        "format": spec.format,
        "delimiter": spec.delimiter,
        "decimal_comma": spec.decimal_comma,
        "skip_lines": spec.skip_lines,
        "time": time,
        "sample_rate_hz": spec.sample_rate_hz,
        "voltage": channel(spec.voltage),
        "current": channel(spec.current),
        "power": channel(spec.power),
        "supply_voltage_v": spec.supply_voltage_v,
    }


def spec_from_json(data: object) -> ParseSpec:
    """Build a spec from user JSON, or raise TraceParseError naming the wrong field."""
    if not isinstance(data, dict):
        raise TraceParseError("The parse spec must be a JSON object.", expected="an object")
    unknown = sorted(str(key) for key in data if key not in SPEC_FIELDS)
    if unknown:
        raise TraceParseError(
            f'The parse spec has an unknown field "{unknown[0]}"; '
            f"the fields are {', '.join(SPEC_FIELDS)}.",
            expected=", ".join(SPEC_FIELDS),
        )
    fmt = data.get("format")
    if not isinstance(fmt, str) or fmt not in FORMATS:
        raise TraceParseError(
            f"format: unknown format {_show(fmt)}; use one of {', '.join(FORMATS)}.",
            expected=", ".join(FORMATS),
        )
    delimiter = data.get("delimiter", ",")
    if not isinstance(delimiter, str) or delimiter not in DELIMITERS:
        raise TraceParseError(
            f"delimiter: {_show(delimiter)} is not a delimiter this parser reads; use one of "
            '",", ";", "\\t" (tab), " " (spaces) or "|".',
            expected='",", ";", "\\t", " " or "|"',
        )
    decimal_comma = data.get("decimal_comma", False)
    if not isinstance(decimal_comma, bool):
        raise TraceParseError(
            f"decimal_comma must be true or false; got {_show(decimal_comma)}.",
            expected="true or false",
        )
    skip_lines = data.get("skip_lines", 0)
    if not _is_int(skip_lines) or not 0 <= skip_lines <= MAX_SKIP_LINES:
        raise TraceParseError(
            f"skip_lines must be a whole number from 0 to {MAX_SKIP_LINES} "
            f"(the lines before the first data line, header included); got {_show(skip_lines)}.",
            expected=f"a whole number from 0 to {MAX_SKIP_LINES}",
        )
    spec = ParseSpec(
        format=fmt,
        delimiter=delimiter,
        decimal_comma=decimal_comma,
        skip_lines=cast(int, skip_lines),
        time=_time_from_json(data.get("time")),
        sample_rate_hz=_number_or_none(
            data.get("sample_rate_hz"),
            "sample_rate_hz",
            f"a rate in Hz above 0 and at most {MAX_SAMPLE_RATE_HZ:g}",
            MAX_SAMPLE_RATE_HZ,
        ),
        voltage=_channel_from_json(data.get("voltage"), "voltage"),
        current=_channel_from_json(data.get("current"), "current"),
        power=_channel_from_json(data.get("power"), "power"),
        supply_voltage_v=_number_or_none(
            data.get("supply_voltage_v"),
            "supply_voltage_v",
            f"a voltage in volts above 0 and at most {MAX_SUPPLY_VOLTAGE_V:g}",
            MAX_SUPPLY_VOLTAGE_V,
        ),
    )
    validate_spec(spec)
    return spec


def validate_spec(spec: ParseSpec) -> None:
    """The rules between fields: a time base, a way to get power, no column used twice."""
    if spec.decimal_comma and spec.delimiter == ",":
        raise TraceParseError(
            'decimal_comma cannot be used with the "," delimiter: a number like 1,5 would be '
            'split into two fields. Use ";" or tab as the delimiter.',
            expected='";", "\\t", " " or "|"',
        )
    if spec.time is None and spec.sample_rate_hz is None:
        raise TraceParseError(
            "Map a time column, or give sample_rate_hz for a file without one.",
            expected="time or sample_rate_hz",
        )
    if spec.time is not None and spec.sample_rate_hz is not None:
        raise TraceParseError(
            "Give either a time column or sample_rate_hz, not both.",
            expected="time or sample_rate_hz",
        )
    if spec.power is None and spec.current is None:
        raise TraceParseError(
            "Map a power column, or a current column with a voltage column or "
            "supply_voltage_v: a voltage alone cannot give power."
            if spec.voltage is not None
            else "Map a power column, or a current column with a voltage column or "
            "supply_voltage_v; the spec maps none of them.",
            expected="power, or current with voltage or supply_voltage_v",
        )
    if (
        spec.power is None
        and spec.voltage is None
        and spec.current is not None
        and spec.supply_voltage_v is None
    ):
        raise TraceParseError(
            "The spec maps current but no voltage or power column: give supply_voltage_v, "
            "the supply voltage in volts (e.g. 5.0 for USB), so power can be computed.",
            expected="supply_voltage_v",
        )
    used: dict[int, str] = {}
    roles: list[tuple[str, int]] = [(role, ch.column) for role, ch in spec.channels().items()]
    if spec.time is not None:
        roles.insert(0, ("time", spec.time.column))
    for role, column in roles:
        if column in used:
            raise TraceParseError(
                f"{used[column]} and {role} both use column {column} "
                f"(column {column + 1} counting from 1); each needs its own column.",
                column=column + 1,
            )
        used[column] = role


def _time_from_json(data: object) -> TimeSpec | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise TraceParseError(
            "time must be an object like "
            '{"column": 0, "unit": "s"} or null when sample_rate_hz is given.',
            expected="an object or null",
        )
    unknown = sorted(str(key) for key in data if key not in TIME_FIELDS)
    if unknown:
        raise TraceParseError(
            f'time has an unknown field "{unknown[0]}"; its fields are {", ".join(TIME_FIELDS)}.',
            expected=", ".join(TIME_FIELDS),
        )
    column = _column(data.get("column"), "time")
    unit = data.get("unit")
    if not isinstance(unit, str) or unit not in TIME_UNITS:
        raise TraceParseError(
            f"time.unit: unknown unit {_show(unit)}; use s, ms, us, ns, or datetime for "
            "wall-clock stamps.",
            expected="s, ms, us, ns or datetime",
        )
    timezone = data.get("timezone", "UTC")
    if not isinstance(timezone, str) or not _is_time_zone(timezone):
        raise TraceParseError(
            f"time.timezone: unknown time zone {_show(timezone)}; use an IANA name such as "
            '"UTC" or "Europe/Berlin".',
            expected="an IANA time zone name",
        )
    datetime_format = data.get("datetime_format")
    if unit != "datetime":
        if datetime_format is not None:
            raise TraceParseError(
                f'time.datetime_format is only used with unit "datetime"; the unit is "{unit}". '
                "Set it to null.",
                expected="null",
            )
    else:
        if not isinstance(datetime_format, str) or not datetime_format.strip():
            raise TraceParseError(
                'time.datetime_format is needed with unit "datetime": a strftime pattern such '
                'as "%Y-%m-%d %H:%M:%S.%f", or "ISO8601".',
                expected="a strftime pattern",
            )
        check_datetime_format(datetime_format)
    return TimeSpec(
        column=column,
        unit=cast(TimeUnit, unit),
        datetime_format=datetime_format,
        timezone=timezone,
    )


TIME_FIELDS = ("column", "unit", "datetime_format", "timezone")


def check_datetime_format(fmt: str) -> None:
    """Raise unless `fmt` is "ISO8601" or a strftime pattern this parser can read fast.

    The vectorised reader (Arrow's strptime) has no %f; we split a trailing fraction off
    ourselves, so %f may only come last, after "." or ",".
    """
    if fmt == ISO8601:
        return
    if "%" not in fmt:
        raise TraceParseError(
            f'time.datetime_format "{fmt}" has no % directive; use a strftime pattern such as '
            '"%Y-%m-%d %H:%M:%S", or "ISO8601".',
            expected="a strftime pattern",
        )
    if "%f" in fmt and not (fmt.endswith((".%f", ",%f")) and fmt.count("%f") == 1):
        raise TraceParseError(
            f'time.datetime_format "{fmt}": %f (fractions of a second) may only come last, '
            'after "." or "," (as in "%H:%M:%S.%f").',
            expected='a pattern ending in ".%f"',
        )
    # A naive probe value: only the pattern is checked, no zone is involved.
    sample = datetime(2001, 2, 3, 4, 5, 6, 789000)
    try:
        datetime.strptime(sample.strftime(fmt), fmt)
    except ValueError as exc:
        raise TraceParseError(
            f'time.datetime_format "{fmt}" is not a pattern that can be read back ({exc}).',
            expected="a strftime pattern",
        ) from exc


def _channel_from_json(data: object, role: str) -> ChannelSpec | None:
    if data is None:
        return None
    units = CHANNEL_UNITS[role]
    allowed = " or ".join([", ".join(list(units)[:-1]), list(units)[-1]])
    if not isinstance(data, dict):
        raise TraceParseError(
            f'{role} must be an object like {{"column": 1, "unit": "{next(iter(units))}"}} '
            "or null.",
            expected="an object or null",
        )
    unknown = sorted(str(key) for key in data if key not in ("column", "unit"))
    if unknown:
        raise TraceParseError(
            f'{role} has an unknown field "{unknown[0]}"; its fields are column and unit.',
            expected="column, unit",
        )
    column = _column(data.get("column"), role)
    unit = data.get("unit")
    if not isinstance(unit, str) or unit not in units:
        hint = ""
        if isinstance(unit, str) and unit.replace("µ", "u").replace("μ", "u") in units:
            hint = ' (write "u" for micro)'
        raise TraceParseError(
            f"{role}.unit: unknown unit {_show(unit)}{hint}; use {allowed}.",
            expected=allowed,
        )
    return ChannelSpec(column=column, unit=unit)


def _column(value: object, role: str) -> int:
    if not _is_int(value) or cast(int, value) < 0:
        raise TraceParseError(
            f"{role}.column must be a whole number of 0 or more (0 is the first column); "
            f"got {_show(value)}.",
            expected="a whole number of 0 or more",
        )
    return cast(int, value)


def _number_or_none(value: object, name: str, expected: str, maximum: float) -> float | None:
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not 0 < value <= maximum
    ):
        raise TraceParseError(f"{name} must be {expected}; got {_show(value)}.", expected=expected)
    return float(value)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_time_zone(name: str) -> bool:
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return False
    return True


def _show(value: object) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)
