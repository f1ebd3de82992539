"""The one error every parsing failure becomes: a sentence the user can act on."""

from __future__ import annotations


class TraceParseError(Exception):
    """A file or a parse spec cannot be turned into a trace.

    `message` is a complete sentence naming the line, the column and what was expected versus
    found, so it can be shown as is. `line` is 1-based (the line in the file as a text editor
    counts it), `column` is 1-based for display (the spec's columns are 0-based), `expected`
    says what would have been accepted (e.g. "a number", "V or mV").
    """

    def __init__(
        self,
        message: str,
        *,
        line: int | None = None,
        column: int | None = None,
        expected: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.expected = expected

    def to_json(self) -> dict[str, object]:
        """The `error` object of docs/power-traces.md."""
        return {"message": self.message, "line": self.line, "column": self.column}

    def __repr__(self) -> str:
        return f"TraceParseError({self.message!r}, line={self.line}, column={self.column})"


def column_label(index: int, header: list[str] | None) -> str:
    """`column 2 (Main(mA))` for 0-based index 1, or `column 2` when the header is unknown."""
    name = header[index].strip() if header is not None and index < len(header) else ""
    return f"column {index + 1} ({name})" if name else f"column {index + 1}"


def shorten(text: str, limit: int = 60) -> str:
    """A cell or line as quoted in a message: at most `limit` characters."""
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"
