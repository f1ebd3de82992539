"""Bad files become a TraceParseError naming the line, the column and what was expected; never
an Arrow or numpy traceback."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from power.parsing import (
    HEAD_BYTES,
    ChannelSpec,
    ParseSpec,
    TimeSpec,
    TraceParseError,
    detect,
    parse_file,
)
from power.parsing.text import MAX_LINE_BYTES
from power.tests.parsing.conftest import FIXTURES

Write = Callable[..., Path]

MONSOON = ParseSpec(
    format="monsoon",
    skip_lines=1,
    time=TimeSpec(0, "s"),
    current=ChannelSpec(1, "mA"),
    voltage=ChannelSpec(2, "V"),
)
HEADER = "Time(ms),Main(mA),Main Voltage(V),\n"


def parse_error(path: Path, spec: ParseSpec = MONSOON) -> TraceParseError:
    with pytest.raises(TraceParseError) as caught:
        parse_file(path, spec)
    return caught.value


def detect_error(content: bytes, filename: str = "trace.csv") -> TraceParseError:
    with pytest.raises(TraceParseError) as caught:
        detect(content, filename)
    return caught.value


def test_non_numeric_cell_names_line_column_and_header(write: Write) -> None:
    path = write(HEADER + "0.1,12.3,4.2,\n0.2,abc,4.2,\n")

    error = parse_error(path)

    assert error.message == 'Line 3, column 2 (Main(mA)): expected a number, found "abc".'
    assert (error.line, error.column, error.expected) == (3, 2, "a number")
    assert error.to_json() == {"message": error.message, "line": 3, "column": 2}


def test_empty_cell_is_reported_as_empty(write: Write) -> None:
    error = parse_error(write(HEADER + "0.1,12.3,4.2,\n0.2,,4.2,\n"))

    assert error.message == "Line 3, column 2 (Main(mA)): expected a number, found an empty cell."
    assert (error.line, error.column) == (3, 2)


def test_nan_is_not_a_measurement(write: Write) -> None:
    error = parse_error(write(HEADER + "0.1,12.3,4.2,\n0.2,12.3,nan,\n"))

    assert error.message == 'Line 3, column 3 (Main Voltage(V)): expected a number, found "nan".'
    assert (error.line, error.column) == (3, 3)


def test_line_with_too_few_fields_names_the_missing_column(write: Write) -> None:
    error = parse_error(write(HEADER + "0.1,12.3,4.2,\n0.2,12.1\n0.3,12.0,4.2,\n"))

    assert error.message == (
        "Line 3 has 2 fields, but column 3 (Main Voltage(V)) is mapped to voltage: "
        'expected at least 3 fields separated by ",".'
    )
    assert (error.line, error.column) == (3, 3)


def test_spec_column_beyond_every_line_is_reported_on_the_first_data_line(write: Write) -> None:
    spec = ParseSpec(
        format="custom", skip_lines=1, time=TimeSpec(0, "s"), power=ChannelSpec(5, "W")
    )

    error = parse_error(write(HEADER + "0.1,12.3,4.2,\n"), spec)

    assert error.message == (
        "Line 2 has 4 fields, but column 6 is mapped to power: expected at least 6 fields "
        'separated by ",".'
    )
    assert (error.line, error.column) == (2, 6)


def test_header_repeated_mid_file_is_reported_as_two_recordings(write: Write) -> None:
    error = parse_error(write(HEADER + "0.1,12.3,4.2,\n" + HEADER + "0.1,12.3,4.2,\n"))

    assert error.message.startswith(
        "Line 3 repeats the header line; the file seems to hold more than one recording."
    )
    assert (error.line, error.column) == (3, 1)


def test_decimal_comma_in_a_comma_file_gets_a_hint(write: Write) -> None:
    error = parse_error(write(HEADER + '0.1,12.3,4.2,\n0.2,"12,3",4.2,\n'))

    assert error.message == (
        'Line 3, column 2 (Main(mA)): expected a number, found "12,3". It looks like a decimal '
        'comma: set decimal_comma (and a ";" delimiter).'
    )
    assert (error.line, error.column) == (3, 2)


def test_large_backwards_time_jump_names_its_line(write: Write) -> None:
    # Blank lines before the jump must not shift the reported line number.
    path = write(HEADER + "0.1,12.3,4.2,\n\n5.2,12.3,4.2,\n\n0.3,12.3,4.2,\n")

    error = parse_error(path)

    assert error.message == (
        "Line 6, column 1 (Time(ms)): the time steps back from 5.1 s to 0.2 s (counted from the "
        "first sample). A file holding two recordings must be split into one file per recording."
    )
    assert (error.line, error.column) == (6, 1)


def test_time_that_never_advances_asks_for_a_rate(write: Write) -> None:
    error = parse_error(write(HEADER + "0.1,12.3,4.2,\n0.1,12.3,4.2,\n"))

    assert error.message == (
        "The time column (column 1 (Time(ms))) never advances: every line has the same stamp. "
        "Map another column, or give sample_rate_hz instead."
    )
    assert error.column == 1


def test_datetime_not_matching_the_format_names_line_and_format(write: Write) -> None:
    spec = ParseSpec(
        format="rdtech_um",
        delimiter=";",
        skip_lines=1,
        time=TimeSpec(0, "datetime", "%Y-%m-%d %H:%M:%S.%f"),
        power=ChannelSpec(1, "W"),
    )
    path = write("Date;Power (W)\n2024-03-05 14:02:11.25;1\n05/03/2024 14:02:12;1\n")

    error = parse_error(path, spec)

    assert error.message == (
        'Line 3, column 1 (Date): expected a date and time in the format "%Y-%m-%d %H:%M:%S.%f", '
        'found "05/03/2024 14:02:12".'
    )
    assert (error.line, error.column) == (3, 1)


def test_current_only_spec_without_supply_voltage_is_refused(write: Write) -> None:
    spec = ParseSpec(
        format="ppk2", skip_lines=1, time=TimeSpec(0, "ms"), current=ChannelSpec(1, "uA")
    )

    error = parse_error(write("Timestamp(ms),Current(uA)\n0,1204.551\n"), spec)

    assert error.message == (
        "The spec maps current but no voltage or power column: give supply_voltage_v, the supply "
        "voltage in volts (e.g. 5.0 for USB), so power can be computed."
    )


def test_empty_file_is_refused_by_detect_and_parse(write: Write) -> None:
    assert detect_error(b"", "empty.csv").message == 'The file "empty.csv" is empty.'

    error = parse_error(write(b"", "empty.csv"))

    assert error.message == 'The file "empty.csv" is empty.'
    assert error.line is None


def test_file_of_blank_lines_counts_as_empty() -> None:
    assert detect_error(b"\n  \r\n\n").message == 'The file "trace.csv" is empty.'


def test_header_without_data_lines_is_refused(write: Write) -> None:
    error = parse_error(write(HEADER + "\n\n"))

    assert error.message == "The file has no data lines after line 1; check skip_lines."


def test_skipping_more_lines_than_the_file_has_is_refused(write: Write) -> None:
    error = parse_error(write("a\nb\n"), ParseSpec(**{**MONSOON.__dict__, "skip_lines": 5}))

    assert error.message == (
        "The file has only 2 lines, but the spec skips 5 before the data; lower skip_lines."
    )
    assert error.line == 2


def test_blank_trailing_lines_and_crlf_are_fine(write: Write) -> None:
    path = write(HEADER.replace("\n", "\r\n") + "0.1,12.3,4.2,\r\n0.2,12.3,4.2,\r\n\r\n  \r\n\n")

    trace = parse_file(path, MONSOON)

    assert trace.lines == 2
    assert trace.t_s.tolist() == pytest.approx([0.0, 0.1])


def test_nul_bytes_make_it_a_binary_file(write: Write) -> None:
    content = b"Time,x\n1,2\n\x00\x01\x02\x03"

    error = parse_error(write(content, "dump.csv"))

    assert error.message == (
        'Line 3 of "dump.csv" contains a NUL byte: this is a binary file, not a text export '
        "from a power meter."
    )
    assert error.line == 3
    assert detect_error(content, "dump.csv").message == error.message


@pytest.mark.parametrize(
    ("content", "what"),
    [
        (b"\x89PNG\r\n\x1a\n" + bytes(64), "a PNG image"),
        (
            b"PK\x03\x04" + bytes(64),
            "a ZIP archive (an Excel .xlsx workbook or an Otii .otii project is one)",
        ),
        (b"\x1f\x8b\x08" + bytes(64), "a gzip-compressed file (decompress it first)"),
    ],
    ids=["png", "zip", "gzip"],
)
def test_file_that_is_not_what_its_name_says_is_named_for_what_it_is(
    write: Write, content: bytes, what: str
) -> None:
    expected = f'The file "trace.csv" is {what}, not a text export from a power meter.'

    detected, parsed = detect_error(content), parse_error(write(content))

    assert detected.message == parsed.message == expected
    assert detected.line == parsed.line == 1


def test_utf16_text_is_refused_with_a_fix() -> None:
    error = detect_error("Time,Power\n".encode("utf-16"))

    assert error.message == (
        'The file "trace.csv" is UTF-16 text; save it as UTF-8 (or plain ANSI) CSV and upload '
        "it again."
    )


def test_control_characters_without_nul_are_not_text() -> None:
    error = detect_error(bytes(range(1, 32)) * 50, "blob.csv")

    assert error.message.startswith('"blob.csv" is not text')


def test_prose_is_not_a_meter_export() -> None:
    error = detect_error(b"Dear colleague,\nplease find the results attached.\n")

    assert error.message == (
        "This does not look like a meter export: its last lines are not rows of numbers."
    )


LINE_TOO_LONG = (
    "Line {line} is longer than 16 KiB; a meter export has short lines, so this is not a "
    "trace file (or its lines do not end in line feeds)."
)


def test_line_longer_than_the_line_limit_is_named(write: Write) -> None:
    content = HEADER.encode() + b"0.1,1,4.2,\n" + b"1" * (MAX_LINE_BYTES + 10) + b"\n0.2,1,4.2,\n"

    error = parse_error(write(content))

    assert error.message == LINE_TOO_LONG.format(line=3)
    assert error.line == 3


def test_long_line_without_a_line_feed_is_named_without_reading_it_all(write: Write) -> None:
    error = parse_error(write(HEADER.encode() + b"2" * (3 * MAX_LINE_BYTES)))

    assert error.line == 2


def test_head_without_a_line_break_is_not_a_trace() -> None:
    error = detect_error(b"1," * (HEAD_BYTES // 2))

    assert error.message == LINE_TOO_LONG.format(line=1)
    assert error.line == 1


@pytest.mark.parametrize("line", [2, 3])
def test_upload_and_parse_refuse_a_line_at_the_same_limit(write: Write, line: int) -> None:
    rows = [b"0.1,1,4.2,", b"0.2,1,4.2,", b"0.3,1,4.2,"]
    long_row = rows[line - 2] + b"0" * (MAX_LINE_BYTES + 1 - len(rows[line - 2]))
    rows[line - 2] = long_row
    content = HEADER.encode() + b"\n".join(rows) + b"\n"

    detected, parsed = detect_error(content), parse_error(write(content))

    assert detected.message == parsed.message == LINE_TOO_LONG.format(line=line)
    assert (detected.line, parsed.line) == (line, line)


def test_lines_of_exactly_the_limit_are_uploaded_and_parsed(write: Write) -> None:
    header = HEADER.encode().rstrip(b"\n")
    header += b" " * (MAX_LINE_BYTES - len(header))
    row = b"0.1,1,4.2,"
    row += b"0" * (MAX_LINE_BYTES - len(row))
    content = header + b"\n" + row + b"\n0.2,1,4.2,\n"

    assert detect(content, "trace.csv").format
    assert parse_file(write(content), MONSOON).t_s.size == 2


def test_overlong_header_line_is_named(write: Write) -> None:
    error = parse_error(write(b"x" * (MAX_LINE_BYTES + 5) + b"\n0.1,1,4.2,\n"))

    assert error.line == 1


def test_latin1_header_is_read(write: Write) -> None:
    content = "Zeit (s);Spannung (V);Strom (A);Temperatur (°C)\n0;5,0;0,1;20\n1;5,0;0,2;20\n"
    path = write(content.encode("latin-1"))
    spec = ParseSpec(
        format="custom",
        delimiter=";",
        decimal_comma=True,
        skip_lines=1,
        time=TimeSpec(0, "s"),
        voltage=ChannelSpec(1, "V"),
        current=ChannelSpec(2, "A"),
    )

    trace = parse_file(path, spec)

    assert trace.power_w.tolist() == pytest.approx([0.5, 1.0])
    detection = detect(content.encode("latin-1"), "messung.csv")
    assert detection.header[3] == "Temperatur (°C)"
    assert detection.spec.decimal_comma is True


def test_stray_carriage_return_inside_a_line_is_not_a_crash() -> None:
    detection = detect(b"time_s,power_W\n0,1\r5\n1,2\n2,3\n", "trace.csv")

    assert detection.spec.power == ChannelSpec(1, "W")


def test_mutated_fixtures_fail_only_with_trace_parse_errors(tmp_path: Path) -> None:
    """Cut, garble and splice the fixtures: whatever comes out, it is a trace or a
    TraceParseError, never an Arrow, numpy or csv exception."""
    rng = random.Random(20251122)
    sources = sorted(p for p in FIXTURES.iterdir() if p.suffix in (".csv", ".txt"))
    noise = [b",", b";", b"\n", b"\r", b"\t", b"abc", b"nan", b"\xff", b'"', b"#", b"np.float64("]
    path = tmp_path / "mutant.csv"
    for _ in range(300):
        data = bytearray(rng.choice(sources).read_bytes())
        for _ in range(rng.randint(1, 4)):
            at = rng.randint(0, len(data))
            if rng.random() < 0.6:
                data[at:at] = rng.choice(noise)
            else:
                del data[at : at + rng.randint(1, 12)]
        path.write_bytes(bytes(data))
        try:
            spec = detect(bytes(data[:HEAD_BYTES]), path.name).spec
            if spec.current and not (spec.voltage or spec.power or spec.supply_voltage_v):
                spec = replace(spec, supply_voltage_v=5.0)
            parse_file(path, spec)
        except TraceParseError:
            pass
