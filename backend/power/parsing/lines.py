"""Line-level helpers of the reader: skipping the header, line lengths, which lines of a
block hold data, and what Arrow is given."""

from __future__ import annotations

from typing import BinaryIO

import numpy as np
import numpy.typing as npt

from .errors import TraceParseError
from .spec import ParseSpec
from .text import MAX_LINE_BYTES, decode_text, split_fields, strip_numpy_repr

KIB = 1024


def skip_header(handle: BinaryIO, spec: ParseSpec) -> list[str] | None:
    """Read past `skip_lines` lines; the last of them is taken as the header."""
    last = b""
    for number in range(1, spec.skip_lines + 1):
        # The limit counts a line without its line feed, as check_block_lines does.
        last = handle.readline(MAX_LINE_BYTES + 2)
        check_line_length(len(last.removesuffix(b"\n")), number)
        if not last:
            raise TraceParseError(
                f"The file has only {number - 1} lines, but the spec skips {spec.skip_lines} "
                "before the data; lower skip_lines.",
                line=number - 1 or None,
                expected=f"more than {spec.skip_lines} lines",
            )
    if spec.skip_lines == 0:
        return None
    names = split_fields(decode_text(last).rstrip("\r\n"), spec.delimiter)
    if names:
        names[0] = names[0].lstrip("#").strip()
    return [name.strip() for name in names]


def check_line_length(length: int, line: int) -> None:
    if length > MAX_LINE_BYTES:
        raise TraceParseError(
            f"Line {line} is longer than {MAX_LINE_BYTES // KIB} KiB; a meter export has short "
            "lines, so this is not a trace file (or its lines do not end in line feeds).",
            line=line,
            expected=f"lines of at most {MAX_LINE_BYTES // KIB} KiB",
        )


def check_block_lines(block: bytes, start_line: int) -> None:
    """Raise for the first line of a block longer than MAX_LINE_BYTES."""
    if len(block) <= MAX_LINE_BYTES:
        return
    ends = np.flatnonzero(np.frombuffer(block, dtype=np.uint8) == 10)
    lengths = np.diff(np.concatenate(([-1], ends)))
    long = np.flatnonzero(lengths > MAX_LINE_BYTES + 1)
    if long.size:
        check_line_length(MAX_LINE_BYTES + 1, start_line + int(long[0]))


def data_line_offsets(data: bytes) -> npt.NDArray[np.intp]:
    """0-based line offsets, within a block, of its data lines: lines with something other
    than spaces, tabs and a carriage return (Arrow skips empty lines; the slow scan skips
    blank ones too)."""
    array = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(array == 10)
    if ends.size == 0 or ends[-1] != len(data) - 1:
        ends = np.append(ends, len(data))
    starts = np.concatenate(([0], ends[:-1] + 1))
    visible = np.concatenate(([0], np.cumsum(~np.isin(array, _BLANK_BYTES))))
    return np.flatnonzero(visible[ends] - visible[starts] > 0)


_BLANK_BYTES = np.array([9, 10, 13, 32], dtype=np.uint8)


def normalise(block: bytes, spec: ParseSpec) -> bytes:
    """What Arrow is given: numpy reprs unwrapped, runs of blanks made one space when the
    delimiter is a space. Lines are neither added nor removed."""
    if b"np.float" in block:
        block = strip_numpy_repr(block.decode("latin-1")).encode("latin-1")
    if spec.delimiter == " ":
        # Columns aligned with runs of spaces or tabs: make each run one space.
        block = block.replace(b"\t", b" ")
        while b"  " in block:
            block = block.replace(b"  ", b" ")
        block = block.replace(b"\n ", b"\n").replace(b" \r", b"\r").replace(b" \n", b"\n")
        if block.startswith(b" "):
            block = block[1:]
    return block
