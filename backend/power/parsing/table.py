"""The shape of a file's head: delimiter, header line, first data rows.

Detection works on this; the format matchers then only look at header names and values.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from .errors import TraceParseError
from .text import is_number, looks_like_datetime, split_fields

# Tried in this order; the first that splits the data lines consistently wins. Semicolon comes
# before comma so that "1,5;2,3" (decimal commas) reads as two fields, not three.
DELIMITER_ORDER = ("\t", ";", ",", "|", " ")
# Lines from the end of the head used to find the delimiter.
SNIFF_LINES = 40
# Share of those lines that must have the same number of fields.
CONSISTENT_SHARE = 0.9
PREVIEW_ROWS = 10
_WORD = re.compile(r"[A-Za-z]{3,}")


@dataclass(frozen=True)
class Table:
    """A file's head split into lines, header and rows."""

    lines: list[str]
    delimiter: str
    decimal_comma: bool
    header: list[str]  # names, "#" stripped from the first; empty when there is no header
    header_index: int | None  # 0-based line of the header
    first_data: int  # 0-based line of the first data row (= skip_lines)
    rows: list[list[str]]  # data rows of the head, fields stripped
    trailing_empty: bool  # every line ends with a delimiter (an always-empty last field)

    @property
    def preamble(self) -> list[str]:
        """Non-blank lines before the header (or before the data when there is none)."""
        end = self.header_index if self.header_index is not None else self.first_data
        return [line for line in self.lines[:end] if line.strip()]

    def column(self, index: int) -> list[str]:
        return [row[index] for row in self.rows if index < len(row)]


def read_table(lines: list[str]) -> Table:
    """Find the delimiter, the data rows and the header in the head's lines."""
    content = [i for i, line in enumerate(lines) if line.strip()]
    if not content:
        raise TraceParseError("The file holds only blank lines.", expected="a text export")
    delimiter, width = _sniff_delimiter([lines[i] for i in content[-SNIFF_LINES:]])
    decimal_comma = delimiter != "," and _has_decimal_commas(
        [lines[i] for i in content[-SNIFF_LINES:]], delimiter
    )
    first_data: int | None = None
    for index in reversed(content):
        fields = split_fields(lines[index], delimiter)
        if not _is_data(fields, width, decimal_comma):
            break
        first_data = index
    if first_data is None:
        raise TraceParseError(
            "This does not look like a meter export: its last lines are not rows of numbers.",
            expected="rows of numbers",
        )
    header_index: int | None = None
    header: list[str] = []
    before = [i for i in content if i < first_data]
    if before:
        candidate = split_fields(lines[before[-1]], delimiter)
        if abs(len(candidate) - width) <= 1 or lines[before[-1]].lstrip().startswith("#"):
            header_index = before[-1]
            header = [name.strip() for name in candidate]
            header[0] = header[0].lstrip("#").strip()
    rows = [
        [cell.strip() for cell in split_fields(lines[i], delimiter)]
        for i in content
        if i >= first_data
    ]
    trailing_empty = bool(rows) and all(row and row[-1] == "" for row in rows)
    if trailing_empty:
        # Monsoon's "a,b,c," lines: the always-empty last field is not a column to show.
        rows = [row[:-1] for row in rows]
        if header and header[-1] == "":
            header = header[:-1]
    return Table(
        lines=lines,
        delimiter=delimiter,
        decimal_comma=decimal_comma,
        header=header,
        header_index=header_index,
        first_data=first_data,
        rows=rows,
        trailing_empty=trailing_empty,
    )


def _sniff_delimiter(lines: list[str]) -> tuple[str, int]:
    """The delimiter and the number of fields it gives most lines."""
    best: tuple[float, str, int] = (0.0, ",", 1)
    for delimiter in DELIMITER_ORDER:
        counts = Counter(len(split_fields(line, delimiter)) for line in lines)
        width, hits = counts.most_common(1)[0]
        share = hits / len(lines)
        if width < 2:
            continue
        if share >= CONSISTENT_SHARE:
            return delimiter, width
        if share > best[0]:
            best = (share, delimiter, width)
    return best[1], best[2]


def _has_decimal_commas(lines: list[str], delimiter: str) -> bool:
    cells = [cell.strip() for line in lines for cell in split_fields(line, delimiter)]
    with_comma = [cell for cell in cells if is_number(cell, decimal_comma=True) and "," in cell]
    with_point = [cell for cell in cells if is_number(cell) and "." in cell]
    return bool(with_comma) and not with_point


def _is_data(fields: list[str], width: int, decimal_comma: bool) -> bool:
    """A row of values: the usual width, and mostly numbers (or dates), or numbers and only
    short marks such as PPK2's digital-channel "-" and "X"."""
    if len(fields) != width:
        return False
    cells = [cell.strip() for cell in fields if cell.strip()]
    values = sum(1 for c in cells if is_number(c, decimal_comma) or looks_like_datetime(c))
    if values == 0:
        return False
    if values * 2 >= len(cells):
        return True
    return not any(_WORD.search(cell) for cell in cells)
