"""Turning a time column into seconds from the first sample.

Vectorised throughout: a 10-million-sample trace must not meet a per-sample Python loop.
"""

from __future__ import annotations

import re
import zoneinfo
from datetime import UTC, datetime, timedelta

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from .spec import ISO8601

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

# A step back larger than this is not packet jitter: the file holds two recordings (or a clock
# was reset), and spreading it out would invent a second of data that never existed.
MAX_BACKWARDS_S = 1.0
# Unix time above this (2000-01-01) in a "relative" time column means the column is wall
# time: no relative recording lasts 30 years.
EPOCH_THRESHOLD_S = 946_684_800.0
_DATE_DIRECTIVES = ("%Y", "%y", "%d", "%j", "%b", "%B", "%m", "%F", "%D", "%c", "%x")
_MICROS_PER_DAY = 86_400 * 1_000_000
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class BackwardsJump(Exception):
    """Sample `index` is more than MAX_BACKWARDS_S before an earlier one."""

    def __init__(self, index: int, before_s: float, after_s: float) -> None:
        super().__init__(index)
        self.index = index
        self.before_s = before_s
        self.after_s = after_s


class TimeStandsStill(Exception):
    """Every sample has the same stamp, so there is nothing to spread packets over."""


class DatetimeMismatch(Exception):
    """Cell `index` of the array does not match the datetime format."""

    def __init__(self, index: int) -> None:
        super().__init__(index)
        self.index = index


def make_monotonic(t: FloatArray) -> tuple[FloatArray, int]:
    """Times in file order made non-decreasing; returns (times, how many were changed).

    Loggers that stamp a USB packet of several samples at once write runs of equal stamps
    (Monsoon: 0.000, 0.000, 0.000, 0.004, ...) or, when packets overlap, small steps back
    (fnirsi_logger.py: ..., .805, .784, ...). Each stamp is first raised to the largest stamp
    before it, then every run of equal stamps (a packet) is spread evenly between its stamp and
    the next distinct stamp; the last run, having no next stamp, gets the median per-sample step
    of the rest. Sample order is never changed.
    """
    n = t.size
    if n < 2:
        return t, 0
    if bool(np.all(np.diff(t) > 0)):
        return t, 0
    # In place where we can: at 10 million samples every temporary array is 80 MB.
    fixed = np.maximum.accumulate(t)
    jumps = np.flatnonzero(fixed[:-1] - t[1:] > MAX_BACKWARDS_S)
    if jumps.size:
        first = int(jumps[0])
        raise BackwardsJump(first + 1, float(fixed[first]), float(t[first + 1]))
    starts = np.flatnonzero(np.concatenate(([True], fixed[1:] != fixed[:-1])))
    if starts.size == 1:
        raise TimeStandsStill
    lengths = np.diff(np.append(starts, n))
    steps = np.empty(starts.size, dtype=np.float64)
    steps[:-1] = np.diff(fixed[starts]) / lengths[:-1]
    steps[-1] = _weighted_median(steps[:-1], lengths[:-1]) if lengths[-1] > 1 else 0.0
    # `fixed` is constant within each run; add each sample's position in its run x the step.
    position = np.arange(n, dtype=np.float64)
    position -= np.repeat(starts, lengths)
    position *= np.repeat(steps, lengths)
    fixed += position
    del position
    return fixed, int(np.count_nonzero(fixed != t))


def _weighted_median(values: FloatArray, weights: npt.NDArray[np.intp]) -> float:
    """The per-sample median: each run's step counts once per sample in the run."""
    order = np.argsort(values, kind="stable")
    cumulative = np.cumsum(weights[order])
    middle = int(np.searchsorted(cumulative, cumulative[-1] / 2.0))
    return float(values[order][middle])


def is_epoch(first_s: float) -> bool:
    """True when a relative-unit time column really holds Unix time."""
    return first_s > EPOCH_THRESHOLD_S


def has_date(datetime_format: str) -> bool:
    return datetime_format == ISO8601 or any(d in datetime_format for d in _DATE_DIRECTIVES)


def parse_datetimes(cells: pa.Array, datetime_format: str) -> tuple[IntArray, bool]:
    """Microseconds since 1970 of each cell, and whether the cells carried their own zone.

    Without a zone the values are wall-clock time (to be placed in a zone with `to_utc`).
    Raises DatetimeMismatch with the index of the first cell that does not match.
    """
    if datetime_format == ISO8601:
        return _parse_iso(cells)
    fmt = datetime_format
    fraction: pa.Array | None = None
    if fmt.endswith(("%f",)):
        separator = re.escape(fmt[-3])
        fmt = fmt[:-3]
        parts = pc.extract_regex(
            cells, pattern=rf"^(?P<main>.*?)(?:{separator}(?P<frac>\d{{1,9}}))?$"
        )
        bad = pc.is_null(parts)
        if pc.any(bad).as_py():
            raise DatetimeMismatch(_first_true(bad))
        fraction = pc.struct_field(parts, "frac")
        cells = pc.struct_field(parts, "main")
    stamps = pc.strptime(cells, format=fmt, unit="us", error_is_null=True)
    missing = pc.is_null(stamps)
    if pc.any(missing).as_py():
        raise DatetimeMismatch(_first_true(missing))
    zoned = stamps.type.tz is not None
    micros = np.array(stamps.cast(pa.int64()).to_numpy(zero_copy_only=False), dtype=np.int64)
    if fraction is not None:
        digits = pc.utf8_slice_codeunits(pc.utf8_rpad(fraction, width=6, padding="0"), 0, 6)
        micros += np.asarray(digits.cast(pa.int64()).to_numpy(zero_copy_only=False))
    return micros, zoned


def _parse_iso(cells: pa.Array) -> tuple[IntArray, bool]:
    for zoned, target in ((False, pa.timestamp("us")), (True, pa.timestamp("us", tz="UTC"))):
        try:
            stamps = pc.cast(cells, target)
        except pa.ArrowInvalid:
            continue
        micros = stamps.cast(pa.int64()).to_numpy(zero_copy_only=False)
        return np.array(micros, dtype=np.int64), zoned
    # Neither all-naive nor all-zoned: find the first cell unlike the first one.
    first_zoned = _iso_zoned(str(cells[0].as_py()))
    for index, cell in enumerate(cells.to_pylist()):
        try:
            parsed = datetime.fromisoformat(str(cell).strip())
        except ValueError:
            raise DatetimeMismatch(index) from None
        if (parsed.tzinfo is not None) != first_zoned:
            raise DatetimeMismatch(index)
    raise DatetimeMismatch(0)


def _iso_zoned(cell: str) -> bool:
    try:
        return datetime.fromisoformat(cell.strip()).tzinfo is not None
    except ValueError:
        return False


def _first_true(mask: pa.Array) -> int:
    return int(np.flatnonzero(np.asarray(mask.to_numpy(zero_copy_only=False)))[0])


def to_utc(wall_us: IntArray, timezone: str) -> IntArray:
    """Wall-clock microseconds in `timezone` -> UTC microseconds.

    The offset is looked up once per distinct wall-clock minute (zoneinfo, fold=0): offsets
    change at most every few months, and zone rules change only at whole minutes. Hazard: a
    logger writing local time repeats an hour when daylight saving ends; fold=0 puts both
    copies on the first pass, so the trace then steps back an hour and parsing fails at that
    line rather than silently overlapping. Log in UTC to avoid it.
    """
    if timezone == "UTC":
        return wall_us
    zone = zoneinfo.ZoneInfo(timezone)
    minutes = wall_us // 60_000_000
    starts = np.flatnonzero(np.concatenate(([True], minutes[1:] != minutes[:-1])))
    offsets = np.empty(starts.size, dtype=np.int64)
    cache: dict[int, int] = {}
    for position, minute in enumerate(minutes[starts].tolist()):
        if minute not in cache:
            wall = datetime(1970, 1, 1) + timedelta(minutes=minute)
            offset = wall.replace(tzinfo=zone).utcoffset() or timedelta(0)
            cache[minute] = int(offset.total_seconds() * 1_000_000)
        offsets[position] = cache[minute]
    lengths = np.diff(np.append(starts, wall_us.size))
    return wall_us - np.repeat(offsets, lengths)


def unwrap_midnight(micros: IntArray) -> IntArray:
    """Clock-only stamps (no date) that pass midnight: add a day at each wrap."""
    steps = np.diff(micros)
    wraps = np.concatenate(([0], np.cumsum(steps < -_MICROS_PER_DAY // 2)))
    return micros + wraps.astype(np.int64) * _MICROS_PER_DAY


def micros_to_datetime(micros: int) -> datetime:
    return EPOCH + timedelta(microseconds=micros)
