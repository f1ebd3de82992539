"""Power-meter file parsing: detect a file's format, parse it into samples.

    detection = detect(head_bytes, "um25c.csv")       # suggest a spec from the first HEAD_BYTES
    spec = spec_from_json(user_json)                   # validate the spec the user confirmed
    trace = parse_file(path, spec, progress=callback)  # stream the file into arrays

Every failure is a TraceParseError whose message names the line, the column and what was
expected. The JSON shapes are in docs/power-traces.md; the sample files of every format, with
their provenance, are in fixtures/power-traces/.
"""

from .detect import Detection, detect
from .errors import TraceParseError
from .parse import ParsedTrace, parse_file
from .spec import (
    FORMATS,
    ISO8601,
    ChannelSpec,
    ParseSpec,
    TimeSpec,
    spec_from_json,
    spec_to_json,
    validate_spec,
)
from .text import HEAD_BYTES, MAX_LINE_BYTES

__all__ = [
    "FORMATS",
    "HEAD_BYTES",
    "ISO8601",
    "MAX_LINE_BYTES",
    "ChannelSpec",
    "Detection",
    "ParseSpec",
    "ParsedTrace",
    "TimeSpec",
    "TraceParseError",
    "detect",
    "parse_file",
    "spec_from_json",
    "spec_to_json",
    "validate_spec",
]
