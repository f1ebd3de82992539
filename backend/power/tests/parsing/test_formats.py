"""Every supported layout: its fixture is detected with the right spec and parses to the
figures worked out by hand from the fixture's numbers (fixtures/power-traces/README.md)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import numpy as np
import pytest

from power.parsing import FORMATS, ChannelSpec, ParseSpec, TimeSpec, parse_file
from power.tests.parsing.conftest import detect_fixture, fixture_path


def approx(values: list[float], tol: float = 1e-6) -> object:
    return pytest.approx(values, abs=tol)


def test_pyummeter_export_is_detected_with_its_date_column_and_parsed_to_utc() -> None:
    detection = detect_fixture("um25c-pyummeter.csv")

    assert (detection.format, detection.confidence) == ("rdtech_um", "high")
    assert detection.label == FORMATS["rdtech_um"]
    assert detection.spec == ParseSpec(
        format="rdtech_um",
        delimiter=";",
        skip_lines=1,
        time=TimeSpec(0, "datetime", "%Y-%m-%d %H:%M:%S.%f", "UTC"),
        voltage=ChannelSpec(1, "V"),
        current=ChannelSpec(2, "A"),
        power=ChannelSpec(3, "W"),
    )
    assert detection.header[:4] == ["Date", "Voltage (V)", "Intensity (A)", "Power (W)"]
    assert detection.header[8] == "Temperature (°C)"
    assert detection.preview[3][:4] == ["2024-03-05 14:02:14", "5.08", "0.1018", "0.517"]
    assert ("custom", FORMATS["custom"]) in detection.alternatives

    trace = parse_file(fixture_path("um25c-pyummeter.csv"), detection.spec)

    assert trace.lines == 6
    # 14:02:11.250000 is the first stamp; row 4 has no fraction (isoformat drops zeros).
    assert trace.t_s.tolist() == approx([0.0, 1.001031, 2.000412, 2.75, 3.99987, 5.000113])
    assert trace.power_w.tolist() == approx([0.518, 0.778, 1.02, 0.517, 0.518, 0.517])
    assert trace.voltage_v is not None
    assert trace.voltage_v.tolist() == approx([5.081, 5.08, 5.079, 5.08, 5.081, 5.081])
    assert trace.absolute_start == datetime(2024, 3, 5, 14, 2, 11, 250000, tzinfo=UTC)


def test_pyummeter_dates_are_placed_in_the_spec_time_zone() -> None:
    spec = detect_fixture("um25c-pyummeter.csv").spec
    assert spec.time is not None
    berlin = replace(spec, time=replace(spec.time, timezone="Europe/Berlin"))

    trace = parse_file(fixture_path("um25c-pyummeter.csv"), berlin)

    # 5 March is winter time in Berlin, UTC+1.
    assert trace.absolute_start == datetime(2024, 3, 5, 13, 2, 11, 250000, tzinfo=UTC)
    assert trace.t_s[-1] == pytest.approx(5.000113)


def test_um_export_with_elapsed_seconds_and_decimal_commas_is_read() -> None:
    detection = detect_fixture("um34c-elapsed-decimal-comma.csv")

    assert (detection.format, detection.confidence) == ("rdtech_um", "high")
    assert detection.spec == ParseSpec(
        format="rdtech_um",
        delimiter=";",
        decimal_comma=True,
        skip_lines=1,
        time=TimeSpec(0, "s"),
        voltage=ChannelSpec(1, "V"),
        current=ChannelSpec(2, "A"),
        power=ChannelSpec(3, "W"),
    )
    assert detection.preview[0] == ["0", "5,081", "0,1021", "0,518"]

    trace = parse_file(fixture_path("um34c-elapsed-decimal-comma.csv"), detection.spec)

    assert trace.lines == 6
    assert trace.t_s.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert trace.power_w.tolist() == approx([0.518, 0.778, 1.02, 0.517, 0.518, 0.517])
    assert trace.current_a is not None
    assert trace.current_a[2] == pytest.approx(0.201)
    assert trace.absolute_start is None


def test_fnirsi_logger_output_spreads_overlapping_packets_and_keeps_unix_time() -> None:
    detection = detect_fixture("fnirsi-logger.txt")

    assert (detection.format, detection.confidence) == ("fnirsi", "high")
    assert detection.spec == ParseSpec(
        format="fnirsi",
        delimiter=" ",
        skip_lines=2,
        time=TimeSpec(0, "s"),
        voltage=ChannelSpec(2, "V"),
        current=ChannelSpec(3, "A"),
    )
    assert detection.header[:4] == ["timestamp", "sample_in_packet", "voltage_V", "current_A"]

    trace = parse_file(fixture_path("fnirsi-logger.txt"), detection.spec)

    assert trace.lines == 12
    # Stamps .775 .785 .795 .805 | .784 .794 .804 .814 | ...: the second packet's first three
    # step back; raised to .805 they are spread over .805 -> .814, i.e. 2.25 ms apart.
    expected = [0.0, 0.01, 0.02, 0.03, 0.03225, 0.0345, 0.03675, 0.039, 0.049, 0.059, 0.069]
    assert trace.t_s.tolist() == approx([*expected, 0.079])
    assert trace.absolute_start == datetime(2022, 7, 11, 19, 38, 46, 775000, tzinfo=UTC)
    volts = [5.12] * 4 + [5.1] * 4 + [5.11] * 4
    amps = [0.1, 0.2, 0.1, 0.1, 0.1, 0.15, 0.1, 0.1, 0.3, 0.1, 0.1, 0.1]
    assert trace.power_w.tolist() == approx([v * a for v, a in zip(volts, amps, strict=True)])
    assert (
        "3 time stamps stepped backwards or repeated within packets; spread evenly between "
        "neighbours." in trace.notes
    )
    assert "The time column holds Unix time; the trace starts at 2022-07-11 19:38:46.775 UTC." in (
        trace.notes
    )


def test_joulescope_statistics_use_their_power_column() -> None:
    detection = detect_fixture("joulescope-statistics.csv")

    assert (detection.format, detection.confidence) == ("joulescope_stats", "high")
    assert detection.spec == ParseSpec(
        format="joulescope_stats",
        skip_lines=1,
        time=TimeSpec(0, "s"),
        current=ChannelSpec(1, "A"),
        voltage=ChannelSpec(2, "V"),
        power=ChannelSpec(3, "W"),
    )
    assert detection.header == ["time", "current", "voltage", "power", "charge", "energy"]
    assert "One averaged row every 0.5 s (the statistics rate)." in detection.notes

    trace = parse_file(fixture_path("joulescope-statistics.csv"), detection.spec)

    assert trace.lines == 6
    assert trace.t_s.tolist() == [0.0, 0.5, 1.0, 1.5, 2.0, 2.5]
    powers = [1.89553, 1.90114, 1.89532, 1.89572, 1.89497, 2.18967]
    assert trace.power_w.tolist() == approx(powers)


def test_joulescope_headerless_export_gets_a_suggested_rate_to_confirm() -> None:
    detection = detect_fixture("joulescope-recording-export.csv")

    assert (detection.format, detection.confidence) == ("joulescope_iv", "medium")
    assert detection.header == []
    assert detection.spec == ParseSpec(
        format="joulescope_iv",
        sample_rate_hz=2_000_000.0,
        current=ChannelSpec(0, "A"),
        voltage=ChannelSpec(1, "V"),
    )
    assert any("set the rate the recording was made at" in note for note in detection.notes)

    trace = parse_file(fixture_path("joulescope-recording-export.csv"), detection.spec)

    assert trace.lines == 8
    assert trace.t_s[-1] == pytest.approx(7 / 2_000_000)
    assert trace.power_w[2] == pytest.approx(0.045123 * 3.2861)
    assert trace.power_w[5] == pytest.approx(1.2e-05 * 3.3001)


def test_joulescope_headerless_export_is_only_a_low_guess_without_the_name() -> None:
    detection = detect_fixture("joulescope-recording-export.csv", filename="export.csv")

    assert (detection.format, detection.confidence) == ("joulescope_iv", "low")


def test_otii_export_multiplies_main_current_by_main_voltage() -> None:
    detection = detect_fixture("otii-export.csv")

    assert (detection.format, detection.confidence) == ("otii", "high")
    assert detection.spec == ParseSpec(
        format="otii",
        skip_lines=1,
        time=TimeSpec(0, "s"),
        current=ChannelSpec(1, "A"),
        voltage=ChannelSpec(2, "V"),
    )

    trace = parse_file(fixture_path("otii-export.csv"), detection.spec)

    assert trace.lines == 6
    assert trace.t_s.tolist() == approx([0.0, 0.001, 0.002, 0.003, 0.004, 0.005])
    currents = [0.0121, 0.0119, 0.0854, 0.0861, 0.0122, 0.0120]
    assert trace.power_w.tolist() == approx([c * 3.3 for c in currents])
    assert "Power computed from voltage times current." in trace.notes


def test_monsoon_time_column_is_seconds_and_the_trailing_comma_is_ignored() -> None:
    detection = detect_fixture("monsoon-pymonsoon.csv")

    assert (detection.format, detection.confidence) == ("monsoon", "high")
    assert detection.spec == ParseSpec(
        format="monsoon",
        skip_lines=1,
        time=TimeSpec(0, "s"),
        current=ChannelSpec(1, "mA"),
        voltage=ChannelSpec(2, "V"),
    )
    assert detection.header == ["Time(ms)", "Main(mA)", "Main Voltage(V)"]
    assert detection.preview[0] == ["0.0002", "112.5", "4.2"]
    assert (
        "Monsoon (PyMonsoon) writes seconds under the Time(ms) header; read as seconds."
        in detection.notes
    )
    assert "Every line ends with a delimiter; the empty last field is ignored." in detection.notes

    trace = parse_file(fixture_path("monsoon-pymonsoon.csv"), detection.spec)

    assert trace.lines == 9
    # Packets stamped 0.0002, 0.0008, 0.0014 (three samples each), spread 0.2 ms apart; the
    # last packet takes the median step.
    assert trace.t_s.tolist() == approx([i * 0.0002 for i in range(9)], tol=1e-12)
    milliamps = [112.5, 113.0, 112.0, 250.0, 248.0, 252.0, 112.5, 112.5, 113.0]
    assert trace.power_w.tolist() == approx([ma / 1000 * 4.2 for ma in milliamps])
    assert (
        "6 time stamps stepped backwards or repeated within packets; spread evenly between "
        "neighbours." in trace.notes
    )


def test_monsoon_written_under_numpy_2_has_its_reprs_unwrapped() -> None:
    detection = detect_fixture("monsoon-pymonsoon-numpy2.csv")

    assert detection.format == "monsoon"
    assert detection.preview[0][:3] == ["0.0002", "112.5", "4.2"]
    assert any("np.float64" in note for note in detection.notes)

    trace = parse_file(fixture_path("monsoon-pymonsoon-numpy2.csv"), detection.spec)

    assert trace.lines == 6
    assert trace.power_w.tolist() == approx([0.4725, 0.4746, 0.4704, 1.05, 1.0416, 1.0584])


def test_ppk2_export_is_current_only_and_parses_once_the_supply_is_given() -> None:
    detection = detect_fixture("ppk2-export.csv")

    assert (detection.format, detection.confidence) == ("ppk2", "high")
    assert detection.spec == ParseSpec(
        format="ppk2", skip_lines=1, time=TimeSpec(0, "ms"), current=ChannelSpec(1, "uA")
    )
    assert detection.spec.supply_voltage_v is None
    assert any("give the supply voltage" in note for note in detection.notes)

    trace = parse_file(
        fixture_path("ppk2-export.csv"), replace(detection.spec, supply_voltage_v=3.0)
    )

    assert trace.lines == 8
    assert trace.t_s[-1] == pytest.approx(7e-5)  # written as 0.07000000000000001 ms
    assert trace.power_w[3] == pytest.approx(5320.118e-6 * 3.0)
    assert trace.voltage_v is None
    assert "Power computed from current times the 3 V supply." in trace.notes


def test_ppk2_export_with_digital_channels_reads_only_time_and_current() -> None:
    detection = detect_fixture("ppk2-export-digital.csv")

    assert (detection.format, detection.confidence) == ("ppk2", "high")
    assert detection.spec.current == ChannelSpec(1, "uA")
    assert "The digital channels D0-D7 are not read." in detection.notes

    trace = parse_file(
        fixture_path("ppk2-export-digital.csv"), replace(detection.spec, supply_voltage_v=5.0)
    )

    assert trace.lines == 6
    assert trace.power_w.tolist() == approx(
        [u * 1e-6 * 5.0 for u in [1204.551, 1198.002, 1201.337, 5320.118, 5311.905, 1203.44]]
    )


def test_ina219_logger_uses_its_power_register_and_millis() -> None:
    detection = detect_fixture("ina219-logger.csv")

    assert (detection.format, detection.confidence) == ("ina2xx", "high")
    assert detection.spec == ParseSpec(
        format="ina2xx",
        skip_lines=1,
        time=TimeSpec(0, "ms"),
        voltage=ChannelSpec(1, "V"),
        current=ChannelSpec(3, "mA"),
        power=ChannelSpec(4, "mW"),
    )

    trace = parse_file(fixture_path("ina219-logger.csv"), detection.spec)

    assert trace.lines == 6
    assert trace.t_s.tolist() == approx([0.0, 0.1, 0.2, 0.3, 0.4, 0.5])
    assert trace.power_w.tolist() == approx([0.26, 0.26, 0.486, 0.488, 0.258, 0.26])
    assert "The first time stamp is 1 s; times are counted from the first sample." in trace.notes


def test_ina226_serial_log_prefers_the_load_voltage() -> None:
    detection = detect_fixture("ina226-serial.csv")

    assert (detection.format, detection.confidence) == ("ina2xx", "high")
    assert detection.spec.time == TimeSpec(0, "s")
    assert detection.spec.voltage == ChannelSpec(3, "V")
    assert detection.spec.power == ChannelSpec(5, "mW")

    trace = parse_file(fixture_path("ina226-serial.csv"), detection.spec)

    assert trace.t_s.tolist() == [0.0, 0.5, 1.0, 1.5, 2.0, 2.5]
    assert trace.voltage_v is not None
    assert trace.voltage_v.tolist() == approx([4.99, 4.99, 4.98, 4.98, 4.99, 4.99])


def test_current_only_log_takes_the_supply_stated_in_its_comment() -> None:
    detection = detect_fixture("current-only-5v.csv")

    assert (detection.format, detection.confidence) == ("current_only", "medium")
    assert detection.spec == ParseSpec(
        format="current_only",
        skip_lines=3,
        time=TimeSpec(0, "s"),
        current=ChannelSpec(1, "mA"),
        supply_voltage_v=5.0,
    )
    assert 'Supply voltage 5 V taken from line 2 ("# USB supply 5 V, shunt 1 ohm").' in (
        detection.notes
    )

    trace = parse_file(fixture_path("current-only-5v.csv"), detection.spec)

    assert trace.lines == 6
    milliamps = [71.2, 70.8, 118.4, 120.1, 71.0, 70.9]
    assert trace.power_w.tolist() == approx([ma / 1000 * 5.0 for ma in milliamps])


def test_other_csv_is_mapped_by_header_names_with_low_confidence() -> None:
    detection = detect_fixture("bench-logger-other.csv")

    assert (detection.format, detection.confidence) == ("custom", "low")
    assert detection.label == "Other CSV (map the columns)"
    assert detection.alternatives == []
    assert detection.spec == ParseSpec(
        format="custom",
        skip_lines=1,
        time=TimeSpec(1, "s"),
        voltage=ChannelSpec(2, "V"),
        current=ChannelSpec(3, "mA"),
    )

    trace = parse_file(fixture_path("bench-logger-other.csv"), detection.spec)

    assert trace.t_s.tolist() == approx([0.0, 0.2, 0.4, 0.6, 0.8])
    assert trace.power_w.tolist() == approx([3.3 * ma / 1000 for ma in [20, 20.5, 45, 21, 20]])


def test_every_format_has_a_fixture_that_is_detected_as_it() -> None:
    detected = {
        detect_fixture(path.name).format
        for path in fixture_path(".").iterdir()
        if path.suffix in (".csv", ".txt")
    }

    assert detected == set(FORMATS)


def test_parsed_arrays_have_the_documented_types() -> None:
    trace = parse_file(fixture_path("otii-export.csv"), detect_fixture("otii-export.csv").spec)

    assert trace.t_s.dtype == np.float64
    assert trace.power_w.dtype == np.float32
    assert trace.voltage_v is not None
    assert trace.voltage_v.dtype == np.float32
    assert trace.current_a is not None
    assert trace.current_a.dtype == np.float32
