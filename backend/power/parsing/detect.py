"""`detect`: from a file's first bytes, the format and the spec to suggest."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .formats import MATCHERS, Candidate, match_custom
from .lines import check_block_lines
from .spec import FORMATS, ParseSpec, spec_to_json
from .table import PREVIEW_ROWS, read_table
from .text import HEAD_BYTES, decode_text, reject_non_text, split_lines, strip_numpy_repr

_NUMPY_NOTE = (
    "Numbers are written as np.float64(…) (PyMonsoon under NumPy 2); the wrappers are removed "
    "when parsing."
)

SUPPLY_VOLTAGE_LABEL = "supply voltage needed"
_SUPPLY = (
    "Supply voltage needed: the file logs current only, so power is current x the supply "
    "voltage. Give the supply voltage in volts (supply_voltage_v)."
)


@dataclass(frozen=True)
class Detection:
    """What `detect` recognised and the spec it suggests (docs/power-traces.md, detection)."""

    format: str
    label: str
    confidence: Literal["high", "medium", "low"]
    spec: ParseSpec
    header: list[str]
    preview: list[list[str]]
    notes: list[str]
    alternatives: list[tuple[str, str]]  # (format, label)

    @property
    def needs(self) -> list[dict[str, str]]:
        """Values the parse needs that the file cannot carry (the UI asks for them)."""
        spec = self.spec
        if (
            spec.current is not None
            and spec.voltage is None
            and spec.power is None
            and spec.supply_voltage_v is None
        ):
            return [
                {"field": "supply_voltage_v", "label": SUPPLY_VOLTAGE_LABEL, "message": _SUPPLY}
            ]
        return []

    def to_json(self) -> dict[str, object]:
        """The `detection` object of the trace JSON."""
        return {
            "format": self.format,
            "label": self.label,
            "confidence": self.confidence,
            "spec": spec_to_json(self.spec),
            "header": self.header,
            "preview": self.preview,
            "notes": self.notes,
            "alternatives": [{"format": f, "label": label} for f, label in self.alternatives],
            "needs": self.needs,
        }


def detect(head: bytes, filename: str) -> Detection:
    """Recognise the file from its first bytes (read HEAD_BYTES of it).

    Raises TraceParseError for an empty file, a binary one, or text with no rows of numbers.
    """
    reject_non_text(head, filename)
    text = decode_text(head)
    notes: list[str] = []
    if "np.float" in text:
        text = strip_numpy_repr(text)
        notes.append(_NUMPY_NOTE)
    # The same line limit as the parse (MAX_LINE_BYTES); the head's last line counts even
    # when the head cut it short, since it is already over the limit.
    check_block_lines(head + b"\n", start_line=1)
    lines = split_lines(text)
    if len(head) >= HEAD_BYTES:
        lines = lines[:-1]  # the head most likely cut the last line short
    table = read_table(lines)
    candidates = [c for c in (m(table, filename) for m in MATCHERS) if c is not None]
    best: Candidate = candidates[0] if candidates else match_custom(table, filename)
    alternatives = [(c.format, FORMATS[c.format]) for c in candidates[1:]]
    if best.format != "custom":
        alternatives.append(("custom", FORMATS["custom"]))
    return Detection(
        format=best.format,
        label=FORMATS[best.format],
        confidence=best.confidence,
        spec=best.spec,
        header=table.header,
        preview=table.rows[:PREVIEW_ROWS],
        notes=[*notes, *best.notes],
        alternatives=alternatives,
    )
