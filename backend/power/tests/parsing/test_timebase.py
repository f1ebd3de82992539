"""Time stamps: packets spread evenly, big steps back refused, wall-clock stamps placed in
their time zone."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from power.parsing import ChannelSpec, ParseSpec, TimeSpec, TraceParseError, parse_file
from power.parsing.timebase import BackwardsJump, make_monotonic

Write = Callable[..., Path]


def seconds_spec(unit: str = "s") -> ParseSpec:
    return ParseSpec(
        format="custom",
        skip_lines=1,
        time=TimeSpec(0, unit),  # type: ignore[arg-type]
        power=ChannelSpec(1, "W"),
    )


def datetime_spec(fmt: str, timezone: str = "UTC") -> ParseSpec:
    return ParseSpec(
        format="custom",
        delimiter=";",
        skip_lines=1,
        time=TimeSpec(0, "datetime", fmt, timezone),
        power=ChannelSpec(1, "W"),
    )


def csv(times: list[str], delimiter: str = ",") -> str:
    return f"time{delimiter}power\n" + "".join(f"{t}{delimiter}1.5\n" for t in times)


def test_packets_stamped_four_at_a_time_are_spread_to_the_next_stamp(write: Write) -> None:
    stamps = ["0.000"] * 4 + ["0.004"] * 4 + ["0.008"] * 4

    trace = parse_file(write(csv(stamps)), seconds_spec())

    # The last packet has no next stamp and takes the median step, 1 ms.
    assert trace.t_s.tolist() == pytest.approx([i * 0.001 for i in range(12)], abs=1e-12)
    assert trace.notes[0] == (
        "9 time stamps stepped backwards or repeated within packets; spread evenly between "
        "neighbours."
    )


def test_a_small_step_back_is_raised_and_spread_to_the_next_stamp() -> None:
    times, adjusted = make_monotonic(np.array([0.0, 0.01, 0.02, 0.015, 0.03, 0.04]))

    assert times.tolist() == pytest.approx([0.0, 0.01, 0.02, 0.025, 0.03, 0.04], abs=1e-12)
    assert adjusted == 1


def test_strictly_increasing_times_are_left_alone() -> None:
    original = np.array([0.0, 0.1, 0.25, 0.3])

    times, adjusted = make_monotonic(original)

    assert times is original
    assert adjusted == 0


def test_a_step_back_of_exactly_one_second_is_still_spread() -> None:
    times, adjusted = make_monotonic(np.array([0.0, 2.0, 1.0, 2.5]))

    assert times.tolist() == pytest.approx([0.0, 2.0, 2.25, 2.5])
    assert adjusted == 1


def test_a_step_back_of_more_than_a_second_is_a_jump() -> None:
    with pytest.raises(BackwardsJump) as caught:
        make_monotonic(np.array([0.0, 1.0, 2.0, 0.5, 3.0]))

    assert (caught.value.index, caught.value.before_s, caught.value.after_s) == (3, 2.0, 0.5)


def test_times_are_counted_from_the_first_sample(write: Write) -> None:
    trace = parse_file(write(csv(["1500", "1510", "1520"])), seconds_spec("ms"))

    assert trace.t_s.tolist() == pytest.approx([0.0, 0.01, 0.02])
    assert trace.absolute_start is None
    assert "The first time stamp is 1.5 s; times are counted from the first sample." in trace.notes


def test_unix_time_in_milliseconds_becomes_an_absolute_start(write: Write) -> None:
    trace = parse_file(write(csv(["1700000000000", "1700000000250"])), seconds_spec("ms"))

    assert trace.absolute_start == datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)
    assert trace.t_s.tolist() == pytest.approx([0.0, 0.25])


def test_iso8601_stamps_with_offsets_ignore_the_spec_time_zone(write: Write) -> None:
    stamps = ["2024-03-05T14:02:11.25+01:00", "2024-03-05T14:02:12+01:00"]

    trace = parse_file(write(csv(stamps, ";")), datetime_spec("ISO8601", "America/New_York"))

    assert trace.absolute_start == datetime(2024, 3, 5, 13, 2, 11, 250000, tzinfo=UTC)
    assert trace.t_s.tolist() == pytest.approx([0.0, 0.75])


def test_german_dates_with_comma_fractions_are_read(write: Write) -> None:
    stamps = ["05.03.2024 14:02:11,5", "05.03.2024 14:02:12,75"]

    trace = parse_file(write(csv(stamps, ";")), datetime_spec("%d.%m.%Y %H:%M:%S,%f"))

    assert trace.absolute_start == datetime(2024, 3, 5, 14, 2, 11, 500000, tzinfo=UTC)
    assert trace.t_s.tolist() == pytest.approx([0.0, 1.25])


def test_clock_only_stamps_pass_midnight_and_have_no_absolute_start(write: Write) -> None:
    trace = parse_file(
        write(csv(["23:59:59", "00:00:00", "00:00:01"], ";")), datetime_spec("%H:%M:%S")
    )

    assert trace.t_s.tolist() == [0.0, 1.0, 2.0]
    assert trace.absolute_start is None


def test_local_stamps_across_the_spring_gap_are_one_second_apart(write: Write) -> None:
    # Berlin skips 02:00-03:00 on 31 March 2024: 01:59:59 CET is 00:59:59 UTC, 03:00 CEST 01:00.
    stamps = ["2024-03-31 01:59:59", "2024-03-31 03:00:00"]

    trace = parse_file(write(csv(stamps, ";")), datetime_spec("%Y-%m-%d %H:%M:%S", "Europe/Berlin"))

    assert trace.absolute_start == datetime(2024, 3, 31, 0, 59, 59, tzinfo=UTC)
    assert trace.t_s.tolist() == [0.0, 1.0]


def test_local_stamps_repeating_the_autumn_hour_fail_at_the_repeat(write: Write) -> None:
    # The documented hazard: 02:59:59 then 02:00:00 on 27 October 2024 both take the first
    # (summer) offset, so time seems to step back almost an hour.
    stamps = ["2024-10-27 02:59:59", "2024-10-27 02:00:00"]

    with pytest.raises(TraceParseError) as caught:
        parse_file(write(csv(stamps, ";")), datetime_spec("%Y-%m-%d %H:%M:%S", "Europe/Berlin"))

    assert caught.value.line == 3
    assert "the time steps back from 0 s to -3599 s" in caught.value.message


def test_sample_rate_gives_evenly_spaced_times(write: Write) -> None:
    spec = ParseSpec(format="custom", sample_rate_hz=4.0, power=ChannelSpec(0, "mW"))

    trace = parse_file(write("250\n500\n750\n1000\n"), spec)

    assert trace.t_s.tolist() == [0.0, 0.25, 0.5, 0.75]
    assert trace.power_w.tolist() == pytest.approx([0.25, 0.5, 0.75, 1.0])
