"""spec_from_json: every wrong field gets a message naming it and what is allowed; specs
survive a round trip through JSON."""

from __future__ import annotations

from typing import Any

import pytest

from power.parsing import (
    ISO8601,
    ChannelSpec,
    ParseSpec,
    TimeSpec,
    TraceParseError,
    spec_from_json,
    spec_to_json,
)

# The example of docs/power-traces.md, "Parse spec (JSON)".
DOC_EXAMPLE: dict[str, Any] = {
    "format": "ppk2",
    "delimiter": ",",
    "decimal_comma": False,
    "skip_lines": 1,
    "time": {"column": 0, "unit": "ms", "datetime_format": None, "timezone": "UTC"},
    "sample_rate_hz": None,
    "voltage": None,
    "current": {"column": 1, "unit": "uA"},
    "power": None,
    "supply_voltage_v": 5.0,
}


def with_(**changes: Any) -> dict[str, Any]:
    return {**DOC_EXAMPLE, **changes}


def test_doc_example_is_a_valid_spec() -> None:
    assert spec_from_json(DOC_EXAMPLE) == ParseSpec(
        format="ppk2",
        skip_lines=1,
        time=TimeSpec(0, "ms"),
        current=ChannelSpec(1, "uA"),
        supply_voltage_v=5.0,
    )


def test_spec_to_json_gives_the_documented_shape() -> None:
    assert spec_to_json(spec_from_json(DOC_EXAMPLE)) == DOC_EXAMPLE


@pytest.mark.parametrize(
    "spec",
    [
        ParseSpec(
            format="ppk2",
            skip_lines=1,
            time=TimeSpec(0, "ms"),
            current=ChannelSpec(1, "uA"),
            supply_voltage_v=3.3,
        ),
        ParseSpec(
            format="rdtech_um",
            delimiter=";",
            decimal_comma=True,
            skip_lines=1,
            time=TimeSpec(0, "datetime", "%d.%m.%Y %H:%M:%S,%f", "Europe/Berlin"),
            voltage=ChannelSpec(1, "V"),
            current=ChannelSpec(2, "A"),
            power=ChannelSpec(3, "W"),
        ),
        ParseSpec(
            format="joulescope_iv",
            sample_rate_hz=2e6,
            current=ChannelSpec(0, "A"),
            voltage=ChannelSpec(1, "V"),
        ),
        ParseSpec(
            format="custom",
            delimiter="\t",
            skip_lines=4,
            time=TimeSpec(2, "datetime", ISO8601),
            power=ChannelSpec(0, "uW"),
        ),
        ParseSpec(
            format="fnirsi",
            delimiter=" ",
            skip_lines=2,
            time=TimeSpec(0, "ns"),
            voltage=ChannelSpec(2, "mV"),
            current=ChannelSpec(3, "nA"),
        ),
    ],
    ids=["current-only", "datetime-decimal-comma", "sample-rate", "iso8601", "small-units"],
)
def test_spec_survives_a_json_round_trip(spec: ParseSpec) -> None:
    assert spec_from_json(spec_to_json(spec)) == spec


def test_missing_optional_fields_take_their_defaults() -> None:
    spec = spec_from_json(
        {"format": "custom", "sample_rate_hz": 10, "power": {"column": 0, "unit": "W"}}
    )

    assert spec == ParseSpec(format="custom", sample_rate_hz=10.0, power=ChannelSpec(0, "W"))
    assert isinstance(spec.sample_rate_hz, float)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([1, 2], "The parse spec must be a JSON object."),
        (
            with_(colour="red"),
            'The parse spec has an unknown field "colour"; the fields are format, delimiter, '
            "decimal_comma, skip_lines, time, sample_rate_hz, voltage, current, power, "
            "supply_voltage_v.",
        ),
        (
            with_(format="excel"),
            'format: unknown format "excel"; use one of rdtech_um, fnirsi, joulescope_stats, '
            "joulescope_iv, otii, monsoon, ppk2, ina2xx, current_only, custom.",
        ),
        (
            with_(delimiter="::"),
            'delimiter: "::" is not a delimiter this parser reads; use one of ",", ";", "\\t" '
            '(tab), " " (spaces) or "|".',
        ),
        (with_(decimal_comma="yes"), 'decimal_comma must be true or false; got "yes".'),
        (
            with_(skip_lines=-1),
            "skip_lines must be a whole number from 0 to 10000 (the lines before the first data "
            "line, header included); got -1.",
        ),
        (
            with_(skip_lines=True),
            "skip_lines must be a whole number from 0 to 10000 (the lines before the first data "
            "line, header included); got True.",
        ),
        (
            with_(time={"column": 0, "unit": "min"}),
            'time.unit: unknown unit "min"; use s, ms, us, ns, or datetime for wall-clock stamps.',
        ),
        (
            with_(time={"column": -1, "unit": "s"}),
            "time.column must be a whole number of 0 or more (0 is the first column); got -1.",
        ),
        (
            with_(current={"column": 1, "unit": "kA"}),
            'current.unit: unknown unit "kA"; use A, mA, uA or nA.',
        ),
        (
            with_(current={"column": 1, "unit": "µA"}),
            'current.unit: unknown unit "µA" (write "u" for micro); use A, mA, uA or nA.',
        ),
        (
            with_(voltage={"column": 2, "unit": "kV"}),
            'voltage.unit: unknown unit "kV"; use V or mV.',
        ),
        (
            with_(power={"column": 2, "unit": "kW"}),
            'power.unit: unknown unit "kW"; use W, mW or uW.',
        ),
        (
            with_(voltage={"column": -3, "unit": "V"}),
            "voltage.column must be a whole number of 0 or more (0 is the first column); got -3.",
        ),
        (
            with_(voltage={"column": 1.5, "unit": "V"}),
            "voltage.column must be a whole number of 0 or more (0 is the first column); got 1.5.",
        ),
        (
            with_(current={"column": 1, "unit": "uA", "scale": 2}),
            'current has an unknown field "scale"; its fields are column and unit.',
        ),
        (
            with_(time=None),
            "Map a time column, or give sample_rate_hz for a file without one.",
        ),
        (
            with_(sample_rate_hz=1000),
            "Give either a time column or sample_rate_hz, not both.",
        ),
        (
            with_(time=None, sample_rate_hz=0),
            "sample_rate_hz must be a rate in Hz above 0 and at most 1e+09; got 0.",
        ),
        (
            with_(current=None),
            "Map a power column, or a current column with a voltage column or supply_voltage_v; "
            "the spec maps none of them.",
        ),
        (
            with_(current=None, voltage={"column": 1, "unit": "V"}),
            "Map a power column, or a current column with a voltage column or supply_voltage_v: "
            "a voltage alone cannot give power.",
        ),
        (
            with_(supply_voltage_v=None),
            "The spec maps current but no voltage or power column: give supply_voltage_v, the "
            "supply voltage in volts (e.g. 5.0 for USB), so power can be computed.",
        ),
        (
            with_(supply_voltage_v=-5),
            "supply_voltage_v must be a voltage in volts above 0 and at most 1000; got -5.",
        ),
        (
            with_(supply_voltage_v="5 V"),
            'supply_voltage_v must be a voltage in volts above 0 and at most 1000; got "5 V".',
        ),
        (
            with_(time={"column": 0, "unit": "s", "timezone": "Mars/Olympus"}),
            'time.timezone: unknown time zone "Mars/Olympus"; use an IANA name such as "UTC" or '
            '"Europe/Berlin".',
        ),
        (
            with_(time={"column": 0, "unit": "datetime"}),
            'time.datetime_format is needed with unit "datetime": a strftime pattern such as '
            '"%Y-%m-%d %H:%M:%S.%f", or "ISO8601".',
        ),
        (
            with_(time={"column": 0, "unit": "ms", "datetime_format": "%H:%M"}),
            'time.datetime_format is only used with unit "datetime"; the unit is "ms". Set it to '
            "null.",
        ),
        (
            with_(time={"column": 0, "unit": "datetime", "datetime_format": "%H:%M:%S.%f %d"}),
            'time.datetime_format "%H:%M:%S.%f %d": %f (fractions of a second) may only come '
            'last, after "." or "," (as in "%H:%M:%S.%f").',
        ),
        (
            with_(time={"column": 0, "unit": "datetime", "datetime_format": "yyyy-mm-dd"}),
            'time.datetime_format "yyyy-mm-dd" has no % directive; use a strftime pattern such as '
            '"%Y-%m-%d %H:%M:%S", or "ISO8601".',
        ),
        (
            with_(voltage={"column": 1, "unit": "V"}),
            "voltage and current both use column 1 (column 2 counting from 1); each needs its own "
            "column.",
        ),
        (
            with_(delimiter=",", decimal_comma=True),
            'decimal_comma cannot be used with the "," delimiter: a number like 1,5 would be split '
            'into two fields. Use ";" or tab as the delimiter.',
        ),
    ],
)
def test_invalid_spec_is_refused_with_a_field_specific_message(data: object, message: str) -> None:
    with pytest.raises(TraceParseError) as caught:
        spec_from_json(data)

    assert caught.value.message == message


def test_unit_error_says_which_units_are_expected() -> None:
    with pytest.raises(TraceParseError) as caught:
        spec_from_json(with_(current={"column": 1, "unit": "amps"}))

    assert caught.value.expected == "A, mA, uA or nA"


def test_duplicate_column_error_points_at_the_column() -> None:
    with pytest.raises(TraceParseError) as caught:
        spec_from_json(with_(current={"column": 0, "unit": "uA"}))

    assert caught.value.message.startswith("time and current both use column 0")
    assert caught.value.column == 1
