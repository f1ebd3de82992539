"""Exports carry the run's parameters on every row; the methods paragraph states the facts."""

from __future__ import annotations

import csv
import io
import json

import pyarrow.parquet as pq
import pytest

from results.services import (
    run_methods_paragraph,
    run_records_csv,
    run_records_parquet,
    run_statistics_compute,
    run_summary_csv,
    run_summary_parquet,
)
from results.services.exports import PARQUET_METADATA_KEY
from results.tests.conftest import FACTS, MS, T0, messaging_spec

MESSAGES = {"pi-a": [1 * MS, None, (3 * MS, "decrypt_error")], "pi-b": [2 * MS]}
SPEC = messaging_spec(
    security="aes-128-cbc",
    interval_ms=250,
    interval_distribution="uniform",
    interval_seed=42,
    ca_cert="-----BEGIN CERTIFICATE-----",
)


@pytest.mark.django_db
def test_records_csv_has_one_row_per_record_with_the_run_parameters(make_run):
    made = make_run(MESSAGES, spec=SPEC)
    body = b"".join(run_records_csv(run=made.run)).decode()
    rows = list(csv.DictReader(io.StringIO(body)))

    assert len(rows) == 4
    header = list(rows[0])
    assert header[:5] == ["run_id", "run_status", "experiment_id", "experiment_name", "kind"]
    assert header[-12:] == [
        "seq",
        "t_send_ns",
        "t_recv_ns",
        "rtt_ms",
        "app_bytes",
        "wire_bytes",
        "outcome",
        "secure_ns",
        "unsecure_ns",
        "floor_secure_ns",
        "floor_unsecure_ns",
        "mechanism",
    ]
    assert "ca_cert" not in header
    assert "broker_url" not in header
    assert {r["run_id"] for r in rows} == {str(made.run.pk)}
    assert {(r["security"], r["qos"], r["interval_seed"]) for r in rows} == {
        ("aes-128-cbc", "1", "42")
    }
    assert [(r["device_name"], r["seq"], r["outcome"], r["rtt_ms"]) for r in rows] == [
        ("pi-a", "0", "ok", "1"),
        ("pi-a", "1", "lost", ""),
        ("pi-a", "2", "decrypt_error", ""),
        ("pi-b", "0", "ok", "2"),
    ]
    assert rows[0]["t_send_ns"] == str(T0)
    # The conftest's delivered rows carry floors 100 and 200 ns, lost ones none.
    assert [(r["floor_secure_ns"], r["floor_unsecure_ns"]) for r in rows] == [
        ("100", "200"),
        ("", ""),
        ("100", "200"),
        ("100", "200"),
    ]


@pytest.mark.django_db
def test_records_parquet_has_typed_columns_and_the_facts_in_its_metadata(make_run):
    made = make_run(MESSAGES, spec=SPEC)
    with run_records_parquet(run=made.run) as out:
        table = pq.read_table(out)

    assert table.num_rows == 4
    assert table.column("rtt_ms").to_pylist() == [1.0, None, None, 2.0]
    assert table.column("floor_secure_ns").to_pylist() == [100, None, 100, 100]
    assert str(table.schema.field("floor_unsecure_ns").type) == "int64"
    assert str(table.schema.field("t_send_ns").type) == "int64"
    assert str(table.schema.field("qos").type) == "int64"
    assert set(table.column("security").to_pylist()) == {"aes-128-cbc"}
    csv_header = next(csv.reader(io.StringIO(b"".join(run_records_csv(run=made.run)).decode())))
    assert table.column_names == csv_header  # the same columns in the same order
    meta = json.loads(table.schema.metadata[PARQUET_METADATA_KEY])
    assert meta["spec"]["interval_seed"] == 42
    assert "ca_cert" not in meta["spec"]
    assert [d["name"] for d in meta["devices"]] == ["pi-a", "pi-b"]
    assert meta["devices"][0]["facts"]["hardware_model"] == FACTS["hardware_model"]


@pytest.mark.django_db
def test_summary_exports_have_a_row_per_device_and_one_for_all_with_device_facts(make_run):
    made = make_run(MESSAGES, spec=SPEC)
    statistics = run_statistics_compute(run=made.run)
    rows = list(
        csv.DictReader(io.StringIO(run_summary_csv(run=made.run, statistics=statistics).decode()))
    )

    assert [r["device_name"] for r in rows] == ["pi-a", "pi-b", "All devices"]
    assert [(r["records"], r["n"], r["lost"], r["rejected"]) for r in rows] == [
        ("3", "1", "1", "1"),
        ("1", "1", "0", "0"),
        ("4", "2", "1", "1"),
    ]
    assert rows[0]["device_hardware_model"] == FACTS["hardware_model"]
    assert rows[0]["device_lib_pycryptodome"] == "4.4.0"
    assert rows[2]["device_hardware_model"] == ""
    assert {r["security"] for r in rows} == {"aes-128-cbc"}
    assert rows[2]["mean_ms"] == "1.5"
    assert rows[2]["mean_of_device_means_ms"] == "1.5"

    table = pq.read_table(io.BytesIO(run_summary_parquet(run=made.run, statistics=statistics)))
    assert table.column("device_name").to_pylist() == ["pi-a", "pi-b", "All devices"]
    assert table.column("mean_ms").to_pylist() == [1.0, 2.0, 1.5]
    assert PARQUET_METADATA_KEY in table.schema.metadata


@pytest.mark.django_db
def test_summary_exports_give_each_devices_agent_resources_on_its_row_only(make_run):
    made = make_run(MESSAGES, spec=SPEC)
    made.run.run_devices.filter(device__name="pi-a").update(
        resources_window_ns=2_500_000_000,
        cpu_user_ns=400_000_000,
        cpu_system_ns=100_000_000,
        peak_rss_kb=71_234,
        peak_rss_scope="run",
        bytes_sent=6_680,
        bytes_received=6_520,
    )
    rows = list(csv.DictReader(io.StringIO(run_summary_csv(run=made.run).decode())))

    resources = {r["device_name"]: [r[c] for c in r if c.startswith("agent_")] for r in rows}
    assert resources == {
        "pi-a": ["2.5", "0.4", "0.1", "71234", "run", "6680", "6520"],
        "pi-b": [""] * 7,  # not recorded (an older agent)
        "All devices": [""] * 7,  # each agent's own figures; no sum is given
    }
    table = pq.read_table(io.BytesIO(run_summary_parquet(run=made.run)))
    assert table.column("agent_bytes_sent").to_pylist() == [6_680, None, None]
    assert table.column("agent_cpu_user_s").to_pylist() == [0.4, None, None]


@pytest.mark.django_db
def test_summary_exports_show_securing_raw_its_harness_floor_net_of_it_and_medians(make_run):
    # Every timed record: secure 1000 ns, unsecure 2000 ns, floors 100 and 200 ns.
    made = make_run(MESSAGES, spec=SPEC)
    statistics = run_statistics_compute(run=made.run)
    rows = list(
        csv.DictReader(io.StringIO(run_summary_csv(run=made.run, statistics=statistics).decode()))
    )

    columns = [
        "secure_mean_us",
        "floor_secure_mean_us",
        "net_secure_mean_us",
        "secure_median_us",
        "net_secure_median_us",
        "unsecure_mean_us",
        "floor_unsecure_mean_us",
        "net_unsecure_mean_us",
        "unsecure_median_us",
        "net_unsecure_median_us",
    ]
    assert list(rows[0])[-len(columns) :] == columns
    assert {tuple(r[c] for c in columns) for r in rows} == {
        ("1.0", "0.1", "0.9", "1.0", "0.9", "2.0", "0.2", "1.8", "2.0", "1.8")
    }
    table = pq.read_table(io.BytesIO(run_summary_parquet(run=made.run, statistics=statistics)))
    assert table.column("net_unsecure_mean_us").to_pylist() == [1.8, 1.8, 1.8]


@pytest.mark.django_db
def test_summary_exports_leave_the_floor_and_net_empty_when_the_run_has_no_summary_yet(make_run):
    made = make_run(MESSAGES, spec=SPEC, status="running")
    rows = list(csv.DictReader(io.StringIO(run_summary_csv(run=made.run).decode())))

    assert [r["device_name"] for r in rows] == ["pi-a", "pi-b", "All devices"]
    assert {(r["secure_mean_us"], r["net_secure_mean_us"]) for r in rows} == {("", "")}


@pytest.mark.django_db
def test_methods_paragraph_names_srup_and_its_signature(make_run):
    spec = messaging_spec(protocol="srup", srup_signature="ed25519", mqtt_version="5")
    made = make_run(MESSAGES, spec=spec)
    text = run_methods_paragraph(run=made.run, statistics=run_statistics_compute(run=made.run))
    assert "over SRUP (signed MQTT) with Ed25519 signatures over MQTT 5 (QoS 1" in text
    assert (
        "on its SRUP topic through the platform's broker to a device end that verified each one"
        in text
    )


@pytest.mark.django_db
def test_methods_paragraph_names_devices_versions_conditions_counts_and_dates(make_run):
    made = make_run(MESSAGES, spec=SPEC)
    text = run_methods_paragraph(run=made.run, statistics=run_statistics_compute(run=made.run))

    for expected in (
        "IoTSecBench 0.1.0",
        str(made.run.pk),
        "2 devices took part",
        "pi-a, pi-b (Raspberry Pi 4 Model B Rev 1.4, ARM Cortex-A72, 4 cores, 4.0 GiB RAM, "
        "Debian GNU/Linux 12 (bookworm), Linux 6.6.51+rpt-rpi-v8, Python 3.11.2, "
        "iotsecbench-agent 0.1.0, paho-mqtt 2.2.0, pycryptodome 4.4.0)",
        "100 messages of 66 bytes over MQTT 3.1.1 (QoS 1, MQTT over TCP)",
        "to its own per-run topic on the platform's broker secured with AES-128-CBC",
        "at intervals drawn uniformly between 0 and 500 ms (seed 42)",
        "within 5000 ms counted as lost",
        "Of 4 messages, 2 were delivered, 1 lost and 1 rejected.",
        "The mean round-trip time was 1.50 ms",
        "combined mean of the per-device means was 1.50 ms",
    ):
        assert expected in text
