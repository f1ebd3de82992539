"""One matcher per known layout: does this table look like it, and what spec reads it.

Each layout, who writes it and where it is documented is listed in
fixtures/power-traces/README.md; every matcher has a sample file there. Header names are
compared case-insensitively with runs of blanks collapsed. To add a layout: write a matcher,
add it to MATCHERS (more specific layouts first), add its id to spec.FORMATS, add a fixture
and a test in backend/power/tests/parsing/test_formats.py.
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Literal, cast

from .spec import ChannelSpec, ParseSpec, TimeSpec, TimeUnit
from .table import Table
from .text import classify_column, guess_datetime_format, to_float

Confidence = Literal["high", "medium", "low"]

# `joulescope recording <file.jls> --export x.csv` writes one row per sample at the
# recording's rate; a full-rate JS110 capture is 2 MHz. Suggested, the user confirms it.
JOULESCOPE_EXPORT_RATE_HZ = 2_000_000.0
# What the PPK2 samples at; used when its export has no timestamp column.
PPK2_RATE_HZ = 100_000.0
# A supply voltage stated in a comment or the file name: "supply 5 V", "Vcc=3.3V", "_5V_".
_STATED_SUPPLY = re.compile(
    r"(?:supply|vcc|vdd|vin|vbus|voltage|powered)\D{0,20}?(\d+(?:[.,]\d+)?)\s*v\b", re.I
)
# "5v", "3.3V", "3p3v" or "3V3" between separators in a file name.
_VOLTS_IN_NAME = re.compile(r"(?:^|[_\-\s.])(\d+)(?:[.p](\d+))?v(\d+)?(?:$|[_\-\s.])", re.I)


@dataclass
class Candidate:
    """A matcher's answer."""

    format: str
    confidence: Confidence
    spec: ParseSpec
    notes: list[str] = field(default_factory=list)


Matcher = Callable[[Table, str], Candidate | None]


def _names(table: Table) -> list[str]:
    return [re.sub(r"\s+", " ", name.strip().lower()) for name in table.header]


def _find(names: list[str], *patterns: str) -> int | None:
    """Index of the first name matching any of the regular expressions (full match)."""
    for pattern in patterns:
        for index, name in enumerate(names):
            if re.fullmatch(pattern, name):
                return index
    return None


def _base(table: Table, fmt: str) -> ParseSpec:
    return ParseSpec(
        format=fmt,
        delimiter=table.delimiter,
        decimal_comma=table.decimal_comma,
        skip_lines=table.first_data,
    )


def _median_step(table: Table, column: int, scale: float = 1.0) -> float | None:
    values = [to_float(cell, table.decimal_comma) for cell in table.column(column)]
    numbers = [v * scale for v in values if v is not None]
    steps = [b - a for a, b in itertools.pairwise(numbers) if b > a]
    return statistics.median(steps) if steps else None


def _trailing_note(table: Table) -> list[str]:
    if not table.trailing_empty:
        return []
    return ["Every line ends with a delimiter; the empty last field is ignored."]


def match_joulescope_stats(table: Table, filename: str) -> Candidate | None:
    names = _names(table)
    if names[:6] != ["time", "current", "voltage", "power", "charge", "energy"]:
        return None
    spec = replace(
        _base(table, "joulescope_stats"),
        time=TimeSpec(0, "s"),
        current=ChannelSpec(1, "A"),
        voltage=ChannelSpec(2, "V"),
        power=ChannelSpec(3, "W"),
    )
    notes = ["Charge and energy columns are ignored; energy is recomputed from power."]
    step = _median_step(table, 0)
    if step:
        notes.insert(0, f"One averaged row every {step:g} s (the statistics rate).")
    return Candidate("joulescope_stats", "high", spec, notes)


def match_monsoon(table: Table, filename: str) -> Candidate | None:
    names = _names(table)
    time = _find(names, r"time\(ms\)")
    current = _find(names, r"main\(ma\)")
    if time is None or current is None:
        return None
    voltage = _find(names, r"main voltage\(v\)")
    spec = replace(
        _base(table, "monsoon"),
        time=TimeSpec(time, "s"),
        current=ChannelSpec(current, "mA"),
        voltage=None if voltage is None else ChannelSpec(voltage, "V"),
        supply_voltage_v=None,
    )
    notes = [
        "Monsoon (PyMonsoon) writes seconds under the Time(ms) header; read as seconds.",
        "PyMonsoon stamps each USB packet once, so several samples share a stamp; they are "
        "spread evenly to the next stamp.",
        *_trailing_note(table),
    ]
    if voltage is None:
        notes.append(
            "No Main Voltage(V) column: give the supply voltage (the Monsoon's Vout) so power "
            "can be computed."
        )
    if any(name.startswith(("usb", "aux")) for name in names):
        notes.append("USB and Aux channels are not read; only the Main channel is.")
    return Candidate("monsoon", "high", spec, notes)


def match_ppk2(table: Table, filename: str) -> Candidate | None:
    names = _names(table)
    current = _find(names, r"current\s*\(ua\)")
    if current is None:
        return None
    time = _find(names, r"timestamp\s*\(ms\)")
    digital = any(name.startswith("d0") for name in names)
    if time is None and not digital and len(names) > 1:
        return None
    spec = replace(
        _base(table, "ppk2"),
        time=None if time is None else TimeSpec(time, "ms"),
        sample_rate_hz=PPK2_RATE_HZ if time is None else None,
        current=ChannelSpec(current, "uA"),
    )
    notes = [
        "The PPK2 logs current only: give the supply voltage (the PPK2's source voltage in "
        "source-meter mode, or your supply's in ampere-meter mode) so power can be computed."
    ]
    if time is None:
        notes.append("No timestamp column: assuming the PPK2's 100 kHz sample rate.")
    if digital:
        notes.append("The digital channels D0-D7 are not read.")
    return Candidate("ppk2", "high", spec, notes)


def match_otii(table: Table, filename: str) -> Candidate | None:
    names = _names(table)
    current = _find(names, r"main current\s*\((a|ma|ua)\)")
    power = _find(names, r"main power\s*\((w|mw|uw)\)")
    if current is None and power is None:
        return None
    time = _find(names, r"timestamp\s*\((s|ms)\)", r"time\s*\((s|ms)\)")
    voltage = _find(names, r"main voltage\s*\((v|mv)\)")

    def channel(index: int | None) -> ChannelSpec | None:
        if index is None:
            return None
        unit = classify_column(table.header[index]).unit
        return None if unit is None else ChannelSpec(index, unit)

    time_unit = classify_column(table.header[time]).unit if time is not None else None
    spec = replace(
        _base(table, "otii"),
        time=None if time is None else TimeSpec(time, "ms" if time_unit == "ms" else "s"),
        current=channel(current),
        voltage=channel(voltage),
        power=channel(power),
    )
    notes = []
    if power is None and voltage is None:
        notes.append(
            "Only Main current was exported: give the supply voltage (the Otii's main output "
            "voltage), or export Main voltage or Main power too."
        )
    return Candidate("otii", "high" if time is not None else "medium", spec, notes)


def match_rdtech_um(table: Table, filename: str) -> Candidate | None:
    names = _names(table)
    voltage = _find(names, r"voltage \(v\)")
    current = _find(names, r"intensity \(a\)", r"current \(a\)")
    if voltage is None or current is None or "intensity (a)" not in names:
        return None
    power = _find(names, r"power \(w\)")
    date = _find(names, r"date", r"date ?time", r"time ?stamp")
    notes: list[str] = []
    time: TimeSpec | None = None
    if date is not None:
        fmt = guess_datetime_format(table.column(date))
        if fmt is not None:
            time = TimeSpec(date, "datetime", fmt, "UTC")
            notes.append(
                "The Date column is the logging computer's local wall-clock time: set the time "
                "zone it was in (UTC is assumed)."
            )
    if time is None:
        elapsed = _find(names, r"(elapsed|time|seconds)( \((s|sec)\))?")
        if elapsed is not None:
            time = TimeSpec(elapsed, "s")
            notes.append("Time is seconds from the start of logging.")
    if time is None:
        return None
    if table.decimal_comma:
        notes.append("Numbers use a decimal comma.")
    spec = replace(
        _base(table, "rdtech_um"),
        time=time,
        voltage=ChannelSpec(voltage, "V"),
        current=ChannelSpec(current, "A"),
        power=None if power is None else ChannelSpec(power, "W"),
    )
    return Candidate("rdtech_um", "high", spec, notes)


def match_fnirsi(table: Table, filename: str) -> Candidate | None:
    names = _names(table)
    if names[:4] != ["timestamp", "sample_in_packet", "voltage_v", "current_a"]:
        return None
    spec = replace(
        _base(table, "fnirsi"),
        time=TimeSpec(0, "s"),
        voltage=ChannelSpec(2, "V"),
        current=ChannelSpec(3, "A"),
    )
    notes = [
        "fnirsi_logger.py output: Unix time from the host clock, 4 samples per USB packet at "
        "100 samples/s; stamps that step back between packets are spread evenly.",
        "Power is voltage times current (the logger writes no power column).",
    ]
    return Candidate("fnirsi", "high", spec, notes)


def match_ina2xx(table: Table, filename: str) -> Candidate | None:
    names = _names(table)
    bus = _find(names, r"bus[ _]?voltage.*")
    shunt = _find(names, r"shunt[ _]?voltage.*")
    if bus is None or shunt is None:
        return None
    load = _find(names, r"load[ _]?voltage.*")
    current = _find(names, r"current.*")
    power = _find(names, r"power.*")
    time = next((i for i, n in enumerate(table.header) if classify_column(n).role == "time"), None)

    def channel(index: int | None, default: str) -> ChannelSpec | None:
        if index is None:
            return None
        return ChannelSpec(index, classify_column(table.header[index]).unit or default)

    voltage_column = load if load is not None else bus
    time_unit = classify_column(table.header[time]).unit if time is not None else None
    spec = replace(
        _base(table, "ina2xx"),
        time=None if time is None else TimeSpec(time, _time_unit(time_unit, "ms")),
        voltage=channel(voltage_column, "V"),
        current=channel(current, "mA"),
        power=channel(power, "mW"),
    )
    notes = [
        "Voltage is the load voltage (bus + shunt)."
        if load is not None
        else "Voltage is the bus voltage (the shunt's drop is not added)."
    ]
    if time is None:
        notes.append("No time column: give the logger's sample rate.")
    elif time_unit is None:
        notes.append("The time column names no unit; milliseconds (Arduino millis()) assumed.")
    return Candidate("ina2xx", "high" if time is not None else "medium", spec, notes)


def match_current_only(table: Table, filename: str) -> Candidate | None:
    roles = [classify_column(name) for name in table.header]
    kinds = [column.role for column in roles]
    if "current" not in kinds or "voltage" in kinds or "power" in kinds or "time" not in kinds:
        return None
    time = kinds.index("time")
    current = kinds.index("current")
    unit = roles[current].unit
    if unit is None:
        return None
    supply, source = stated_supply(table, filename)
    time_spec = _time_spec(table, time)
    if time_spec is None:
        return None
    spec = replace(
        _base(table, "current_only"),
        time=time_spec,
        current=ChannelSpec(current, unit),
        supply_voltage_v=supply,
    )
    if supply is not None:
        return Candidate(
            "current_only", "medium", spec, [f"Supply voltage {supply:g} V taken from {source}."]
        )
    notes = ["Current only: give the supply voltage so power can be computed."]
    return Candidate("current_only", "low", spec, notes)


def stated_supply(table: Table, filename: str) -> tuple[float | None, str]:
    """A supply voltage written in the comment lines or the file name, and where."""
    for number, line in enumerate(table.lines[: table.first_data], start=1):
        found = _STATED_SUPPLY.search(line)
        if found:
            return float(found.group(1).replace(",", ".")), f'line {number} ("{line.strip()}")'
    found = _VOLTS_IN_NAME.search(filename.rsplit(".", 1)[0])
    if found:
        whole, fraction = found.group(1), found.group(2) or found.group(3) or "0"
        return float(f"{whole}.{fraction}"), f'the file name ("{filename}")'
    return None, ""


def match_joulescope_iv(table: Table, filename: str) -> Candidate | None:
    if table.header or len(table.rows[0]) != 2 or table.delimiter != ",":
        return None
    currents = [to_float(row[0]) for row in table.rows]
    voltages = [to_float(row[1]) for row in table.rows]
    if any(v is None for v in currents + voltages):
        return None
    if len(currents) >= 5 and all(
        b is not None and a is not None and b > a for a, b in itertools.pairwise(currents)
    ):
        return None  # a first column that only ever grows is a time column, not a current
    if not all(v is not None and 0.0 <= v <= 15.0 for v in voltages):
        return None
    named = bool(re.search(r"joulescope|js110|js220|jls", filename, re.I))
    spec = replace(
        _base(table, "joulescope_iv"),
        sample_rate_hz=JOULESCOPE_EXPORT_RATE_HZ,
        current=ChannelSpec(0, "A"),
        voltage=ChannelSpec(1, "V"),
    )
    notes = [
        "No header and no time column: read as Joulescope current (A), voltage (V) rows.",
        f"The sample rate is a guess ({JOULESCOPE_EXPORT_RATE_HZ:,.0f} Hz, a full-rate JS110 "
        "recording): set the rate the recording was made at.",
    ]
    return Candidate("joulescope_iv", "medium" if named else "low", spec, notes)


def match_custom(table: Table, filename: str) -> Candidate:
    """Best guess from header names; the user maps what we could not."""
    spec = _base(table, "custom")
    notes = ["Columns were guessed from the header names: check the mapping."]
    roles = [classify_column(name) for name in table.header]
    found: dict[str, int] = {}
    for index, column in enumerate(roles):
        if column.role and column.role not in found:
            found[column.role] = index
    time_spec = _time_spec(table, found["time"]) if "time" in found else None
    if time_spec is not None and time_spec.unit == "s" and roles[found["time"]].unit is None:
        notes.append("The time column names no unit; seconds assumed.")
    channels: dict[str, ChannelSpec] = {}
    for role in ("voltage", "current", "power"):
        if role in found and roles[found[role]].unit is not None:
            channels[role] = ChannelSpec(found[role], roles[found[role]].unit or "")
        elif role in found:
            name = table.header[found[role]]
            notes.append(
                f'Column {found[role] + 1} ("{name}") looks like {role} but names no unit: '
                "map it with its unit."
            )
    spec = replace(
        spec,
        time=time_spec,
        voltage=channels.get("voltage"),
        current=channels.get("current"),
        power=channels.get("power"),
    )
    if time_spec is None:
        notes.append("No time column recognised: map one, or give the sample rate.")
    if not channels:
        notes.append("No voltage, current or power column recognised: map them.")
    if "current" in channels and "voltage" not in channels and "power" not in channels:
        supply, source = stated_supply(table, filename)
        if supply is not None:
            spec = replace(spec, supply_voltage_v=supply)
            notes.append(f"Supply voltage {supply:g} V taken from {source}.")
        else:
            notes.append("Current only: give the supply voltage so power can be computed.")
    return Candidate("custom", "low", spec, notes)


def _time_spec(table: Table, index: int) -> TimeSpec | None:
    cells = table.column(index)
    unit = classify_column(table.header[index]).unit if index < len(table.header) else None
    if unit is not None:
        return TimeSpec(index, _time_unit(unit, "s"))
    fmt = guess_datetime_format(cells)
    if fmt is not None:
        return TimeSpec(index, "datetime", fmt, "UTC")
    if all(to_float(cell, table.decimal_comma) is not None for cell in cells):
        return TimeSpec(index, "s")
    return None


def _time_unit(unit: str | None, default: TimeUnit) -> TimeUnit:
    return cast(TimeUnit, unit) if unit in ("s", "ms", "us", "ns") else default


# Most specific first: several layouts would also satisfy the generic ones below them.
MATCHERS: tuple[Matcher, ...] = (
    match_joulescope_stats,
    match_monsoon,
    match_ppk2,
    match_otii,
    match_rdtech_um,
    match_fnirsi,
    match_ina2xx,
    match_current_only,
    match_joulescope_iv,
)
