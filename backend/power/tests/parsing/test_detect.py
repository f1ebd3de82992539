"""Detection beyond the fixtures: delimiters, cut-off heads, variants of the known layouts."""

from __future__ import annotations

from power.parsing import HEAD_BYTES, ChannelSpec, ParseSpec, TimeSpec, detect


def test_head_cut_mid_line_ignores_the_partial_last_line() -> None:
    body = "".join(f"{i * 0.01:.2f},{1200 + i % 50}.125\n" for i in range(20_000))
    # Pad the comment so that the 64 KiB head ends inside a time stamp: a one-field fragment
    # that would not look like a data row.
    heads = (f"# {'x' * pad}\nTimestamp(ms),Current(uA)\n{body}".encode() for pad in range(32))
    head = next(h[:HEAD_BYTES] for h in heads if b"," not in h[:HEAD_BYTES].rsplit(b"\n", 1)[1])

    detection = detect(head, "ppk.csv")

    assert detection.format == "ppk2"
    assert detection.spec.skip_lines == 2
    assert detection.preview[0] == ["0.00", "1200.125"]


def test_semicolon_file_with_decimal_commas_is_not_split_on_the_commas() -> None:
    detection = detect(b"Zeit (s);Leistung (mW)\n0;12,5\n1;13,25\n2;12,75\n", "messung.csv")

    assert detection.spec.delimiter == ";"
    assert detection.spec.decimal_comma is True
    assert detection.preview == [["0", "12,5"], ["1", "13,25"], ["2", "12,75"]]
    assert detection.spec.power == ChannelSpec(1, "mW")


def test_tab_separated_file_is_sniffed() -> None:
    detection = detect(b"time [s]\tpower [W]\n0.0\t1.5\n0.5\t1.6\n", "bench.tsv")

    assert detection.spec.delimiter == "\t"
    assert detection.spec.time == TimeSpec(0, "s")
    assert detection.spec.power == ChannelSpec(1, "W")


def test_ppk2_export_without_timestamps_assumes_its_sample_rate() -> None:
    detection = detect(b"Current(uA)\n1204.551\n1198.002\n", "ppk.csv")

    assert detection.format == "ppk2"
    assert detection.spec == ParseSpec(
        format="ppk2", skip_lines=1, sample_rate_hz=100_000.0, current=ChannelSpec(0, "uA")
    )
    assert "No timestamp column: assuming the PPK2's 100 kHz sample rate." in detection.notes


def test_monsoon_without_voltage_asks_for_vout() -> None:
    detection = detect(b"Time(ms),Main(mA),\n0.0002,112.5,\n0.0002,113.0,\n", "m.csv")

    assert detection.format == "monsoon"
    assert detection.spec.voltage is None
    assert any("Vout" in note for note in detection.notes)


def test_otii_power_only_export_uses_the_power_column() -> None:
    detection = detect(b"Timestamp (s),Main power (mW)\n0,39.9\n0.001,39.3\n", "otii.csv")

    assert (detection.format, detection.confidence) == ("otii", "high")
    assert detection.spec.power == ChannelSpec(1, "mW")
    assert detection.spec.current is None


def test_supply_voltage_can_come_from_the_file_name() -> None:
    detection = detect(b"t_ms,i_ua\n0,120.5\n1,121.0\n", "sensor_node_3V3.csv")

    assert detection.format == "current_only"
    assert detection.spec.supply_voltage_v == 3.3
    assert detection.notes == [
        'Supply voltage 3.3 V taken from the file name ("sensor_node_3V3.csv").'
    ]


def test_current_only_log_without_a_stated_supply_asks_for_it() -> None:
    detection = detect(b"time_s,current_mA\n0.0,71.2\n0.1,70.8\n", "log.csv")

    assert (detection.format, detection.confidence) == ("current_only", "low")
    assert detection.spec.supply_voltage_v is None
    assert detection.notes == ["Current only: give the supply voltage so power can be computed."]


def test_file_without_recognisable_columns_asks_for_a_mapping() -> None:
    detection = detect(b"a,b,c\n1,2,3\n4,5,6\n", "x.csv")

    assert (detection.format, detection.confidence) == ("custom", "low")
    assert detection.spec == ParseSpec(format="custom", skip_lines=1)
    assert "No time column recognised: map one, or give the sample rate." in detection.notes
    assert "No voltage, current or power column recognised: map them." in detection.notes


def test_comment_lines_before_the_header_are_skipped() -> None:
    detection = detect(b"# logger v2\n# started 12:00\n\ntime_s,power_W\n0,1.5\n1,1.6\n", "x.csv")

    assert detection.spec.skip_lines == 4
    assert detection.header == ["time_s", "power_W"]


def test_detection_json_has_the_documented_shape() -> None:
    detection = detect(b"Time(ms),Main(mA),Main Voltage(V),\n0.0002,12.3,4.2,\n", "m.csv")

    assert detection.to_json() == {
        "format": "monsoon",
        "label": "Monsoon Power Monitor CSV",
        "confidence": "high",
        "spec": {
            "format": "monsoon",
            "delimiter": ",",
            "decimal_comma": False,
            "skip_lines": 1,
            "time": {"column": 0, "unit": "s", "datetime_format": None, "timezone": "UTC"},
            "sample_rate_hz": None,
            "voltage": {"column": 2, "unit": "V"},
            "current": {"column": 1, "unit": "mA"},
            "power": None,
            "supply_voltage_v": None,
        },
        "header": ["Time(ms)", "Main(mA)", "Main Voltage(V)"],
        "preview": [["0.0002", "12.3", "4.2"]],
        "notes": detection.notes,
        "alternatives": [{"format": "custom", "label": "Other CSV (map the columns)"}],
        "needs": [],
    }


def test_a_ppk2_export_needs_the_supply_voltage_it_cannot_carry() -> None:
    detection = detect(b"Timestamp(ms),Current(uA)\n0,1204.551\n0.01,1198.002\n", "ppk.csv")

    assert detection.format == "ppk2"
    assert [need["field"] for need in detection.needs] == ["supply_voltage_v"]
    assert detection.to_json()["needs"] == detection.needs


def test_a_current_only_file_naming_its_supply_needs_nothing() -> None:
    detection = detect(b"time (s),current (mA)\n0,120\n1,125\n", "logger_5V.csv")

    assert detection.spec.supply_voltage_v == 5.0
    assert detection.needs == []
