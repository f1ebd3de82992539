"""Streaming the mapped columns out of a delimited text file.

The file is read in blocks of whole lines. Each block goes to Arrow's multi-threaded CSV
parser with explicit column types (the fast path). When Arrow rejects a block, the block is
halved until the rejected part is small, and that part is scanned line by line in Python to
name the exact line and column (or, when every needed cell is fine and only the row widths
differ, to read that part the slow way). We keep one block of text at a time plus the numbers
read so far, never the whole text, and never one Python object per line on the fast path.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.csv as pacsv

from .errors import TraceParseError, column_label, shorten
from .lines import (
    check_block_lines,
    check_line_length,
    data_line_offsets,
    normalise,
    skip_header,
)
from .spec import ParseSpec
from .text import HEAD_BYTES, UTF8_BOM, decode_text, reject_non_text, split_fields, to_float
from .timebase import DatetimeMismatch, parse_datetimes

# Big enough that Arrow's per-call overhead vanishes and both cores get work; small enough
# that a block of text is a few tens of MB of memory at most.
BLOCK_BYTES = 16 * 1024 * 1024
# A piece Arrow refuses is scanned line by line in Python once it is this small.
SLOW_SCAN_BYTES = 64 * 1024

Kind = Literal["number", "datetime"]
Values = npt.NDArray[np.float64] | npt.NDArray[np.int64]


@dataclass(frozen=True)
class Request:
    """One column to read: its role in the spec, 0-based index, and what its cells hold."""

    role: str
    index: int
    kind: Kind
    datetime_format: str | None = None


@dataclass(frozen=True)
class _BlockInfo:
    offset: int  # byte offset of the block in the file
    length: int
    start_line: int  # 1-based line number of the block's first line
    first_row: int  # index of the block's first data row among all rows


@dataclass
class Columns:
    """What `read_columns` returns: one array per role, and how to find a row's line."""

    values: dict[str, Values]
    rows: int
    zoned: bool
    header: list[str] | None
    path: Path
    spec: ParseSpec
    blocks: list[_BlockInfo] = field(default_factory=list)

    def line_of(self, row: int) -> int:
        """The 1-based file line holding data row `row` (re-reads one block)."""
        position = bisect.bisect_right([b.first_row for b in self.blocks], row) - 1
        block = self.blocks[max(position, 0)]
        with self.path.open("rb") as handle:
            handle.seek(block.offset)
            data = normalise(handle.read(block.length), self.spec)
        return block.start_line + int(data_line_offsets(data)[row - block.first_row])


def read_columns(
    path: Path,
    spec: ParseSpec,
    requests: list[Request],
    progress: Callable[[float], None] | None = None,
) -> Columns:
    """Read the requested columns of every data line; raise TraceParseError on bad input."""
    size = path.stat().st_size
    with path.open("rb") as handle:
        head = handle.read(HEAD_BYTES)
        reject_non_text(head, path.name)
        handle.seek(len(UTF8_BOM) if head.startswith(UTF8_BOM) else 0)
        header = skip_header(handle, spec)
        reader = _BlockReader(path, spec, requests, header)
        carry = b""
        line = spec.skip_lines + 1
        while True:
            offset = handle.tell() - len(carry)
            chunk = handle.read(BLOCK_BYTES)
            data = carry + chunk
            if not data:
                break
            if chunk:
                cut = data.rfind(b"\n")
                if cut < 0:
                    check_line_length(len(data), line)
                    carry = data
                    continue
                block, carry = data[: cut + 1], data[cut + 1 :]
            else:
                block, carry = data, b""
            reader.read_block(block, offset, line)
            line += block.count(b"\n")
            check_line_length(len(carry), line)
            if progress is not None:
                progress(min(1.0, (offset + len(block)) / size) if size else 1.0)
    if progress is not None:
        progress(1.0)
    return reader.result()


class _BlockReader:
    """Parses blocks and gathers their columns."""

    def __init__(
        self, path: Path, spec: ParseSpec, requests: list[Request], header: list[str] | None
    ) -> None:
        self.path = path
        self.spec = spec
        self.requests = requests
        self.header = header
        self.parts: dict[str, list[Values]] = {request.role: [] for request in requests}
        self.rows = 0
        self.zoned: bool | None = None
        self.blocks: list[_BlockInfo] = []
        self.convert = pacsv.ConvertOptions(
            include_columns=[f"f{request.index}" for request in requests],
            column_types={
                f"f{r.index}": pa.float64() if r.kind == "number" else pa.string() for r in requests
            },
            null_values=[],
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
            decimal_point="," if spec.decimal_comma else ".",
            check_utf8=False,
        )
        self.parse = pacsv.ParseOptions(
            delimiter=spec.delimiter, ignore_empty_lines=True, newlines_in_values=False
        )
        self.read = pacsv.ReadOptions(autogenerate_column_names=True, use_threads=True)

    def read_block(self, block: bytes, offset: int, start_line: int) -> None:
        nul = block.find(b"\x00")
        if nul >= 0:
            line = start_line + block.count(b"\n", 0, nul)
            raise TraceParseError(
                f"Line {line} contains a NUL byte: this is a binary file, not a text export "
                "from a power meter.",
                line=line,
                expected="text",
            )
        check_block_lines(block, start_line)
        info = _BlockInfo(offset, len(block), start_line, self.rows)
        text = normalise(block, self.spec)
        if not text.strip():
            return
        values, rows = self._piece(text, start_line)
        for role, array in values.items():
            self.parts[role].append(array)
        self.blocks.append(info)
        self.rows += rows

    def _piece(self, text: bytes, start_line: int) -> tuple[dict[str, Values], int]:
        """Arrow reads the piece; if it refuses, halve the piece until the part it refuses is
        small enough to scan line by line. Finding the bad line of a 16 MB block so costs
        about two Arrow passes instead of a Python pass over the whole block, and rows that
        are only wider than the first are read the slow way only in their small piece."""
        try:
            table = pacsv.read_csv(
                pa.py_buffer(text),
                read_options=self.read,
                parse_options=self.parse,
                convert_options=self.convert,
            )
            values = {
                r.role: self._values(table.column(f"f{r.index}"), r, text, start_line)
                for r in self.requests
            }
            return values, int(table.num_rows)
        except pa.ArrowException:
            if len(text) <= SLOW_SCAN_BYTES:
                return self._slow(text, start_line)
        middle = text.rfind(b"\n", 0, len(text) // 2) + 1
        if middle <= 0:
            middle = text.find(b"\n", len(text) // 2) + 1
        if middle <= 0 or middle >= len(text):
            return self._slow(text, start_line)
        head, tail = text[:middle], text[middle:]
        parts = [
            self._piece(piece, line) if piece.strip() else ({}, 0)
            for piece, line in ((head, start_line), (tail, start_line + head.count(b"\n")))
        ]
        joined: dict[str, Values] = {}
        for request in self.requests:
            arrays = [values[request.role] for values, _ in parts if request.role in values]
            joined[request.role] = _concat(arrays, request.kind)
        return joined, sum(rows for _, rows in parts)

    def _values(
        self, column: pa.ChunkedArray, request: Request, block: bytes, start_line: int
    ) -> Values:
        if request.kind == "datetime":
            cells = column.combine_chunks()
            try:
                micros, zoned = parse_datetimes(cells, request.datetime_format or "")
            except DatetimeMismatch as exc:
                line = start_line + int(data_line_offsets(block)[exc.index])
                raise self._datetime_error(line, request, str(cells[exc.index].as_py())) from None
            self._note_zone(zoned, request, start_line)
            return micros
        # A copy, so Arrow's buffers go back to its pool for the next block instead of
        # living on (outside numpy's accounting) until the end of the file.
        numbers = np.array(column.to_numpy(), dtype=np.float64)
        finite = np.isfinite(numbers)
        if not bool(finite.all()):
            bad = int(np.flatnonzero(~finite)[0])
            line = start_line + int(data_line_offsets(block)[bad])
            raise self._cell_error(line, request, str(numbers[bad]), "a number")
        return numbers

    def _note_zone(self, zoned: bool, request: Request, line: int) -> None:
        if self.zoned is None:
            self.zoned = zoned
        elif self.zoned != zoned:
            raise TraceParseError(
                f"Line {line}, {column_label(request.index, self.header)}: some time stamps "
                "carry a zone offset and others do not; the file must use one kind.",
                line=line,
                column=request.index + 1,
                expected="stamps all with or all without a zone offset",
            )

    def _slow(self, block: bytes, start_line: int) -> tuple[dict[str, Values], int]:
        """Find the exact bad line of a block Arrow rejected, else read the block in Python.

        `block` is already normalised."""
        numbers: dict[str, list[float]] = {r.role: [] for r in self.requests}
        stamps: dict[str, list[str]] = {r.role: [] for r in self.requests}
        lines: list[int] = []
        for position, raw in enumerate(decode_text(block).split("\n")):
            line = raw.rstrip("\r")
            if not line.strip():
                continue
            number = start_line + position
            fields = split_fields(line, self.spec.delimiter)
            for request in self.requests:
                if request.index >= len(fields):
                    raise self._short_line_error(number, len(fields), request)
                cell = fields[request.index]
                if request.kind == "datetime":
                    stamps[request.role].append(cell.strip())
                    continue
                value = to_float(cell, self.spec.decimal_comma)
                if value is None:
                    raise self._cell_error(number, request, cell, "a number", line)
                numbers[request.role].append(value)
            lines.append(number)
        values: dict[str, Values] = {}
        for request in self.requests:
            if request.kind == "number":
                values[request.role] = np.array(numbers[request.role], dtype=np.float64)
                continue
            try:
                micros, zoned = parse_datetimes(
                    pa.array(stamps[request.role], pa.string()), request.datetime_format or ""
                )
            except DatetimeMismatch as exc:
                raise self._datetime_error(
                    lines[exc.index], request, stamps[request.role][exc.index]
                ) from None
            except pa.ArrowException as exc:
                raise TraceParseError(
                    f"The time stamps of {column_label(request.index, self.header)} cannot be "
                    f'read with the format "{request.datetime_format}" ({exc}).',
                    line=lines[0] if lines else None,
                    column=request.index + 1,
                ) from None
            self._note_zone(zoned, request, start_line)
            values[request.role] = micros
        return values, len(lines)

    def _short_line_error(self, line: int, found: int, request: Request) -> TraceParseError:
        label = column_label(request.index, self.header)
        return TraceParseError(
            f"Line {line} has {found} field{'s' if found != 1 else ''}, but {label} is mapped to "
            f"{request.role}: expected at least {request.index + 1} fields "
            f'separated by "{_show_delimiter(self.spec.delimiter)}".',
            line=line,
            column=request.index + 1,
            expected=f"at least {request.index + 1} fields",
        )

    def _cell_error(
        self, line: int, request: Request, cell: str, expected: str, text: str | None = None
    ) -> TraceParseError:
        label = column_label(request.index, self.header)
        found = f'"{shorten(cell)}"' if cell.strip() else "an empty cell"
        message = f"Line {line}, {label}: expected {expected}, found {found}."
        if text is not None and self.header and _is_header_again(text, self.header, self.spec):
            message = (
                f"Line {line} repeats the header line; the file seems to hold more than one "
                "recording. Split it into one file per recording, or delete the extra header "
                f"lines. ({label}: expected {expected}, found {found}.)"
            )
        elif self.spec.decimal_comma is False and _is_decimal_comma(cell):
            message += ' It looks like a decimal comma: set decimal_comma (and a ";" delimiter).'
        return TraceParseError(message, line=line, column=request.index + 1, expected=expected)

    def _datetime_error(self, line: int, request: Request, cell: str) -> TraceParseError:
        label = column_label(request.index, self.header)
        expected = f'a date and time in the format "{request.datetime_format}"'
        found = f'"{shorten(cell)}"' if cell.strip() else "an empty cell"
        return TraceParseError(
            f"Line {line}, {label}: expected {expected}, found {found}.",
            line=line,
            column=request.index + 1,
            expected=expected,
        )

    def result(self) -> Columns:
        values: dict[str, Values] = {}
        for request in self.requests:
            # Pop the blocks' arrays as they are joined: at 10 million samples each role's
            # blocks are 80 MB, and holding them next to the joined copy doubles the peak.
            parts = self.parts.pop(request.role)
            values[request.role] = _concat(parts, request.kind)
            parts.clear()
        return Columns(
            values=values,
            rows=self.rows,
            zoned=bool(self.zoned),
            header=self.header,
            path=self.path,
            spec=self.spec,
            blocks=self.blocks,
        )


def _concat(arrays: list[Values], kind: Kind) -> Values:
    joined = np.concatenate(arrays) if arrays else np.empty(0)
    if kind == "number":
        return joined.astype(np.float64, copy=False)
    return joined.astype(np.int64, copy=False)


def _is_header_again(line: str, header: list[str], spec: ParseSpec) -> bool:
    fields = [f.strip() for f in split_fields(line, spec.delimiter)]
    if fields:
        fields[0] = fields[0].lstrip("#").strip()
    return fields[: len(header)] == header[: len(fields)] and any(header)


def _is_decimal_comma(cell: str) -> bool:
    return to_float(cell, decimal_comma=True) is not None and "," in cell


def _show_delimiter(delimiter: str) -> str:
    return {"\t": "\\t (tab)", " ": " (spaces)"}.get(delimiter, delimiter)
