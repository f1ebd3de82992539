"""Text-level helpers shared by detection and parsing: is this text at all, how is it split,
what do its header names mean."""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass

from .errors import TraceParseError
from .spec import ISO8601

# The one line limit of power traces, at upload (detection) and at parse alike. No meter
# writes a line anywhere near this long (the longest line in fixtures/power-traces/ is 235
# bytes); a longer "line" means the file is not a line-based export (or is binary), and
# reading it would hold it all in memory. docs/power-traces.md states it.
MAX_LINE_BYTES = 16 * 1024
# How much of a file `detect` is given: a header and a few hundred rows, and always at least
# a header and a row of the longest lines allowed, so a head that holds no such pair can
# only be one with a line over MAX_LINE_BYTES.
HEAD_BYTES = 4 * MAX_LINE_BYTES
UTF8_BOM = b"\xef\xbb\xbf"

# File signatures of things people upload by mistake (first bytes -> what it is).
MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"%PDF", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive (an Excel .xlsx workbook or an Otii .otii project is one)"),
    (b"PK\x05\x06", "an empty ZIP archive"),
    (b"\x1f\x8b", "a gzip-compressed file (decompress it first)"),
    (b"\xfd7zXZ\x00", "an xz-compressed file (decompress it first)"),
    (b"\x28\xb5\x2f\xfd", "a zstd-compressed file (decompress it first)"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Microsoft Office file (.xls)"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"\x89HDF\r\n\x1a\n", "an HDF5 file"),
)
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
# Control characters other than tab, line feed, form feed and carriage return.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
# Share of control characters above which decodable bytes are still not text.
MAX_CONTROL_SHARE = 0.005

NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
NUMBER_DECIMAL_COMMA = re.compile(r"^[+-]?(\d+(,\d*)?|,\d+)([eE][+-]?\d+)?$")
# PyMonsoon under NumPy 2 writes repr() of numpy scalars: np.float64(1.25).
NUMPY_REPR = re.compile(r"np\.float(?:16|32|64)\(([^()]*)\)")


def reject_non_text(head: bytes, filename: str) -> None:
    """Raise TraceParseError when the bytes are empty, a known binary format, or not text."""
    if not head.strip():
        raise TraceParseError(f'The file "{filename}" is empty.', expected="a text export")
    for magic, what in MAGIC:
        if head.startswith(magic):
            raise TraceParseError(
                f'The file "{filename}" is {what}, not a text export from a power meter.',
                line=1,
                expected="a text export",
            )
    if head.startswith(UTF16_BOMS):
        raise TraceParseError(
            f'The file "{filename}" is UTF-16 text; save it as UTF-8 (or plain ANSI) CSV and '
            "upload it again.",
            line=1,
            expected="UTF-8 or Latin-1 text",
        )
    nul = head.find(b"\x00")
    if nul >= 0:
        line = head.count(b"\n", 0, nul) + 1
        raise TraceParseError(
            f'Line {line} of "{filename}" contains a NUL byte: this is a binary file, not a '
            "text export from a power meter.",
            line=line,
            expected="text",
        )
    text = decode_text(head)
    control = _CONTROL.findall(text)
    if len(control) > MAX_CONTROL_SHARE * len(text):
        first = _CONTROL.search(text)
        line = text.count("\n", 0, first.start() if first else 0) + 1
        raise TraceParseError(
            f'"{filename}" is not text (line {line} is full of control characters); upload '
            "the meter's CSV or text export.",
            line=line,
            expected="text",
        )


def decode_text(data: bytes) -> str:
    """UTF-8 (a multi-byte character cut off at the end of a head is dropped), else Latin-1."""
    if data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start >= len(data) - 3 and exc.reason == "unexpected end of data":
            return data[: exc.start].decode("utf-8", errors="replace")
        return data.decode("latin-1")


def split_lines(text: str) -> list[str]:
    """Physical lines as an editor numbers them (only line feeds end a line)."""
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]


def split_fields(line: str, delimiter: str) -> list[str]:
    """One line's fields; a space delimiter means runs of spaces or tabs."""
    if delimiter == " ":
        return line.split()
    try:
        return next(csv.reader([line], delimiter=delimiter), [])
    except csv.Error:  # a stray carriage return inside the line: no quoting to honour then
        return line.split(delimiter)


def strip_numpy_repr(text: str) -> str:
    """`np.float64(1.25)` -> `1.25` (see NUMPY_REPR)."""
    return NUMPY_REPR.sub(r"\1", text) if "np.float" in text else text


def is_number(cell: str, decimal_comma: bool = False) -> bool:
    cell = cell.strip()
    return bool((NUMBER_DECIMAL_COMMA if decimal_comma else NUMBER).match(cell))


def to_float(cell: str, decimal_comma: bool = False) -> float | None:
    """The cell as a number, or None when it is not one (NaN and infinities are not)."""
    cell = cell.strip()
    if not (NUMBER_DECIMAL_COMMA if decimal_comma else NUMBER).match(cell):
        return None
    return float(cell.replace(",", ".") if decimal_comma else cell)


# --- header names ---------------------------------------------------------------------------

UNIT_ALIASES: dict[str, str] = {
    "v": "V",
    "volt": "V",
    "volts": "V",
    "mv": "mV",
    "a": "A",
    "amp": "A",
    "amps": "A",
    "ma": "mA",
    "ua": "uA",
    "µa": "uA",
    "μa": "uA",
    "na": "nA",
    "w": "W",
    "watt": "W",
    "watts": "W",
    "mw": "mW",
    "uw": "uW",
    "µw": "uW",
    "μw": "uW",
    "s": "s",
    "sec": "s",
    "secs": "s",
    "seconds": "s",
    "ms": "ms",
    "us": "us",
    "µs": "us",
    "μs": "us",
    "ns": "ns",
}
ROLE_OF_UNIT = {
    "V": "voltage",
    "mV": "voltage",
    "A": "current",
    "mA": "current",
    "uA": "current",
    "nA": "current",
    "W": "power",
    "mW": "power",
    "uW": "power",
    "s": "time",
    "ms": "time",
    "us": "time",
    "ns": "time",
}
# Columns that carry a unit we know but are not the supply's voltage, current or power.
_NOT_A_CHANNEL = (
    "energy",
    "charge",
    "capacity",
    "resist",
    "temp",
    "shunt",
    "d+",
    "d-",
    "dp",
    "dn",
    "sample_in_packet",
    "record",
    "threshold",
    "mah",
    "wh",
    "usb(",
    "aux",
)
_TIME_WORDS = {"time", "timestamp", "date", "datetime", "elapsed", "t", "seconds", "sec"}
_POWER_WORDS = {"power", "watt", "watts", "p"}
_CURRENT_WORDS = {"current", "curr", "amp", "amps", "ampere", "intensity", "i"}
_VOLTAGE_WORDS = {"voltage", "volt", "volts", "vbus", "vin", "vcc", "vdd", "u"}


@dataclass(frozen=True)
class ColumnName:
    """What a header name says: the quantity it holds and its unit, when we can tell."""

    role: str | None  # "time", "voltage", "current", "power" or None
    unit: str | None  # canonical unit ("mA", "ms", ...) or None


def classify_column(name: str) -> ColumnName:
    """Read `Main(mA)`, `bus_voltage_V`, `Current [uA]`, `Time (s)` and the like."""
    lower = name.strip().lower()
    unit = _unit_in(lower)
    tokens = [token for token in re.split(r"[^a-z0-9µμ+\-]+", lower) if token]
    if any(marker in lower for marker in _NOT_A_CHANNEL if len(marker) > 2) or any(
        token in ("dp", "dn", "d+", "d-") for token in tokens
    ):
        return ColumnName(None, unit)
    if any(token in _TIME_WORDS or token.startswith("time") for token in tokens):
        return ColumnName("time", unit if unit in ("s", "ms", "us", "ns") else None)
    for words, role in (
        (_POWER_WORDS, "power"),
        (_CURRENT_WORDS, "current"),
        (_VOLTAGE_WORDS, "voltage"),
    ):
        prefixes = tuple(word for word in words if len(word) > 1)
        if any(token in words or token.startswith(prefixes) for token in tokens):
            return ColumnName(role, unit if unit and ROLE_OF_UNIT[unit] == role else None)
    if unit is not None:
        return ColumnName(ROLE_OF_UNIT[unit], unit)
    return ColumnName(None, None)


def _unit_in(lower: str) -> str | None:
    bracket = re.search(r"[(\[]\s*([^()\[\]]+?)\s*[)\]]\s*$", lower)
    if bracket and bracket.group(1) in UNIT_ALIASES:
        return UNIT_ALIASES[bracket.group(1)]
    suffix = re.search(r"[_\s]([a-zµμ]+)$", lower)
    if suffix and suffix.group(1) in UNIT_ALIASES and suffix.group(1) not in ("a", "t"):
        return UNIT_ALIASES[suffix.group(1)]
    return None


# --- date and time cells ----------------------------------------------------------------------

_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}([ T])\d{2}:\d{2}:\d{2}([.,]\d+)?$")
_ISO_ZONED = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}([.,]\d+)?(Z|[+-]\d{2}:?\d{2})$")
_DOTTED = re.compile(r"^(\d{2})\.(\d{2})\.(\d{4}) \d{2}:\d{2}:\d{2}([.,]\d+)?$")
_SLASHED = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{4}) \d{1,2}:\d{2}:\d{2}([.,]\d+)?$")
_SLASHED_YMD = re.compile(r"^\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}([.,]\d+)?$")
_CLOCK = re.compile(r"^\d{1,2}:\d{2}:\d{2}([.,]\d+)?$")


def looks_like_datetime(cell: str) -> bool:
    cell = cell.strip()
    return any(
        pattern.match(cell)
        for pattern in (_ISO, _ISO_ZONED, _DOTTED, _SLASHED, _SLASHED_YMD, _CLOCK)
    )


def guess_datetime_format(cells: list[str]) -> str | None:
    """A pattern that reads every cell, or None.

    Patterns end in ".%f" even when the head shows no fractions: the reader treats a trailing
    fraction as optional, and some loggers drop it when it is zero (Python's isoformat()).
    """
    cells = [cell.strip() for cell in cells if cell.strip()]
    if not cells:
        return None
    if all(_ISO_ZONED.match(cell) for cell in cells):
        return ISO8601
    sep = "," if any(re.search(r":\d{2},\d+$", cell) for cell in cells) else "."
    iso = [_ISO.match(cell) for cell in cells]
    if all(iso):
        date_time = "T" if any(m and m.group(1) == "T" for m in iso) else " "
        return f"%Y-%m-%d{date_time}%H:%M:%S{sep}%f"
    if all(_DOTTED.match(cell) for cell in cells):
        return f"%d.%m.%Y %H:%M:%S{sep}%f"
    if all(_SLASHED_YMD.match(cell) for cell in cells):
        return f"%Y/%m/%d %H:%M:%S{sep}%f"
    slashed = [_SLASHED.match(cell) for cell in cells]
    if all(slashed):
        # Day first (most of the world) unless a second field above 12 shows it is the day.
        month_first = any(m and int(m.group(2)) > 12 for m in slashed)
        return ("%m/%d/%Y" if month_first else "%d/%m/%Y") + f" %H:%M:%S{sep}%f"
    if all(_CLOCK.match(cell) for cell in cells):
        return f"%H:%M:%S{sep}%f"
    return None
