"""Exports and the methods paragraph of cipher-benchmark and throughput runs: their samples
and summaries, every row carrying the run's parameters as the messaging exports do."""

from __future__ import annotations

import csv
import io
import json
import math

import pyarrow.parquet as pq
import pytest

from experiments.models import ExperimentKind
from results.services import (
    run_methods,
    run_records_csv,
    run_records_parquet,
    run_summary_csv,
    run_summary_parquet,
)
from results.services.exports import PARQUET_METADATA_KEY
from results.services.summaries import RunStatistics
from results.tests.conftest import FACTS, bench_spec


def _no_statistics() -> RunStatistics:
    raise AssertionError("a sample kind's methods paragraph reads no round-trip statistics")


# Two repetitions of AES-128-CBC encrypting 16 bytes: 1 and 3 µs wall, 0.5 and 0.7 µs CPU.
# By hand: mean 2 µs, sample variance ((1-2)² + (3-2)²) / (2-1) = 2 µs², std √2 µs,
# CPU 0.6 µs, peak RSS the larger 5200 KB, throughput 16 B / 2 µs = 8 MB/s.
AES = [
    ("aes-128-cbc", "encrypt", 16, 1000, 500, 5000, None),
    ("aes-128-cbc", "encrypt", 16, 3000, 700, 5200, None),
    ("aes-128-cbc", "decrypt", 16, 2000, 600, 5200, None),
]
# Two 2 s windows of securing with no mechanism: 1000 and 3000 packets = 500 and 1500 /s.
WINDOWS = [
    ("none", "secure", 16, 2_000_000_000, 1_900_000_000, 40_000, 1000),
    ("none", "secure", 16, 2_000_000_000, 1_900_000_000, 40_000, 3000),
]
SAMPLE_COLUMNS = [
    "mechanism",
    "operation",
    "data_bytes",
    "repetition",
    "wall_ns",
    "cpu_ns",
    "peak_rss_kb",
    "packets",
    "calls",
]


def _csv_rows(body: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(body.decode())))


@pytest.mark.django_db
def test_bench_records_csv_has_one_row_per_sample_with_the_run_parameters(make_bench_run):
    made = make_bench_run({"pi-b": AES[:1], "pi-a": AES})
    rows = _csv_rows(b"".join(run_records_csv(run=made.run)))

    header = list(rows[0])
    assert header[:5] == ["run_id", "run_status", "experiment_id", "experiment_name", "kind"]
    assert header[-11:] == ["device_id", "device_name", *SAMPLE_COLUMNS]
    assert {(r["kind"], r["repetitions"], r["mechanisms"]) for r in rows} == {
        ("cipher_bench", "2", json.dumps(["aes-128-cbc", "ed25519"]))
    }
    # By device name, mechanism, size, operation, repetition.
    assert [
        (r["device_name"], r["operation"], r["repetition"], r["wall_ns"], r["packets"])
        for r in rows
    ] == [
        ("pi-a", "decrypt", "0", "2000", ""),
        ("pi-a", "encrypt", "0", "1000", ""),
        ("pi-a", "encrypt", "1", "3000", ""),
        ("pi-b", "encrypt", "0", "1000", ""),
    ]


@pytest.mark.django_db
def test_bench_records_parquet_reads_back_typed_with_the_same_columns_as_the_csv(
    make_bench_run,
):
    made = make_bench_run({"pi-a": WINDOWS}, kind=ExperimentKind.THROUGHPUT)
    with run_records_parquet(run=made.run) as out:
        table = pq.read_table(out)

    csv_header = next(csv.reader(io.StringIO(b"".join(run_records_csv(run=made.run)).decode())))
    assert table.column_names == csv_header
    assert table.num_rows == 2
    assert table.column("packets").to_pylist() == [1000, 3000]
    assert str(table.schema.field("wall_ns").type) == "int64"
    assert set(table.column("kind").to_pylist()) == {"throughput"}
    meta = json.loads(table.schema.metadata[PARQUET_METADATA_KEY])
    assert meta["spec"]["data_sizes"] == [16, 8192]
    assert meta["devices"][0]["facts"]["cpu_model"] == FACTS["cpu_model"]


@pytest.mark.django_db
def test_bench_summary_has_the_statistics_worked_by_hand_and_the_device_facts(make_bench_run):
    made = make_bench_run({"pi-a": AES})
    rows = _csv_rows(run_summary_csv(run=made.run))

    assert [(r["mechanism"], r["operation"], r["data_bytes"], r["n"]) for r in rows] == [
        ("aes-128-cbc", "decrypt", "16", "1"),
        ("aes-128-cbc", "encrypt", "16", "2"),
    ]
    encrypt = rows[1]
    assert float(encrypt["mean_us"]) == pytest.approx(2.0)
    assert float(encrypt["variance_us2"]) == pytest.approx(2.0)
    assert float(encrypt["std_us"]) == pytest.approx(math.sqrt(2))
    assert float(encrypt["cpu_mean_us"]) == pytest.approx(0.6)
    assert encrypt["peak_rss_kb"] == "5200"
    assert float(encrypt["throughput_mb_s"]) == pytest.approx(8.0)
    assert encrypt["packets_per_s_mean"] == ""
    assert encrypt["calls_per_repetition"] == ""  # one call each (no count uploaded)
    assert rows[0]["variance_us2"] == ""  # one repetition: no sample variance
    assert encrypt["device_hardware_model"] == FACTS["hardware_model"]
    assert encrypt["device_lib_pycryptodome"] == "4.4.0"
    assert encrypt["run_id"] == str(made.run.pk)

    table = pq.read_table(io.BytesIO(run_summary_parquet(run=made.run)))
    assert table.column_names == list(rows[0])
    assert table.column("mean_us").to_pylist() == pytest.approx([2.0, 2.0])
    assert PARQUET_METADATA_KEY in table.schema.metadata


@pytest.mark.django_db
def test_throughput_summary_has_the_mean_rate_and_its_sample_std(make_bench_run):
    made = make_bench_run({"pi-a": WINDOWS}, kind=ExperimentKind.THROUGHPUT)
    (row,) = _csv_rows(run_summary_csv(run=made.run))
    assert float(row["packets_per_s_mean"]) == pytest.approx(1000.0)
    # sqrt(((500-1000)² + (1500-1000)²) / 1) = 707.1
    assert float(row["packets_per_s_std"]) == pytest.approx(707.1068, abs=1e-3)


@pytest.mark.django_db
def test_bench_summary_has_each_cost_net_of_the_null_floor_as_the_run_page(
    make_bench_run, owner_client
):
    null = [
        ("null", "encrypt", 16, 300, 300, 5200, None),
        ("null", "decrypt", 16, 200, 200, 5200, None),
    ]
    made = make_bench_run({"pi-a": [*AES, *null]})
    rows = {(r["mechanism"], r["operation"]): r for r in _csv_rows(run_summary_csv(run=made.run))}

    # AES encrypt: mean of 1000 and 3000 ns = 2.0 µs, less null's 0.3 µs
    assert float(rows[("aes-128-cbc", "encrypt")]["net_mean_us"]) == pytest.approx(1.7)
    assert float(rows[("aes-128-cbc", "decrypt")]["net_mean_us"]) == pytest.approx(1.8)
    assert float(rows[("null", "encrypt")]["net_mean_us"]) == pytest.approx(0.0)
    assert rows[("aes-128-cbc", "encrypt")]["relative_cost"] == ""  # no `none` rows
    page = owner_client.get(f"/api/runs/{made.run.pk}/").json()["bench_summary"]
    assert {(r["mechanism"], r["operation"]): r["net_mean_us"] for r in page} == {
        key: pytest.approx(float(row["net_mean_us"])) for key, row in rows.items()
    }


@pytest.mark.django_db
def test_throughput_summary_has_each_rate_relative_to_no_security(make_bench_run):
    present = [
        ("present-80-cbc", "secure", 16, 2_000_000_000, 1_900_000_000, 40_000, 250),
        ("present-80-cbc", "secure", 16, 2_000_000_000, 1_900_000_000, 40_000, 750),
    ]
    made = make_bench_run({"pi-a": [*WINDOWS, *present]}, kind=ExperimentKind.THROUGHPUT)
    rows = {r["mechanism"]: r for r in _csv_rows(run_summary_csv(run=made.run))}

    # none: 1000 packets/s on average; PRESENT: 250 → 4x the cost
    assert float(rows["present-80-cbc"]["relative_cost"]) == pytest.approx(4.0)
    assert float(rows["none"]["relative_cost"]) == pytest.approx(1.0)


@pytest.mark.django_db
def test_bench_summary_without_statistics_still_has_its_columns(make_bench_run):
    made = make_bench_run({"pi-a": []})
    body = run_summary_csv(run=made.run).decode()
    assert body.splitlines()[0].endswith(
        "packets_per_s_mean,packets_per_s_std,net_mean_us,relative_cost"
    )
    assert len(body.splitlines()) == 1
    table = pq.read_table(io.BytesIO(run_summary_parquet(run=made.run)))
    assert table.num_rows == 0
    assert "mean_us" in table.column_names


@pytest.mark.django_db
def test_cipher_bench_methods_paragraph_names_mechanisms_sizes_counts_and_timing(
    make_bench_run,
):
    made = make_bench_run({"pi-a": AES, "pi-b": AES}, planned=16)
    text = run_methods(run=made.run, statistics=_no_statistics)
    for expected in (
        "Cipher timings were measured with IoTSecBench 0.1.0",
        str(made.run.pk),
        "2 devices took part: pi-a, pi-b (Raspberry Pi 4 Model B Rev 1.4",
        "Each device timed AES-128-CBC and Ed25519 on 16 B and 8 KiB of pseudo-random data, "
        "2 repetitions of each mechanism, size and direction",
        "a fresh child process per mechanism and size",
        "(perf_counter_ns)",
        "(VmHWM)",
        "Of 32 samples planned, 6 were stored.",
        "standard deviation (n\u22121)",
    ):
        assert expected in text


@pytest.mark.django_db
def test_throughput_methods_paragraph_names_the_window_and_both_modes(make_bench_run):
    spec = bench_spec(mechanisms=["none", "present-80-cbc"], data_sizes=[16], window_ms=2000)
    made = make_bench_run({"pi-a": WINDOWS}, kind=ExperimentKind.THROUGHPUT, spec=spec)
    text = run_methods(run=made.run, statistics=_no_statistics)
    for expected in (
        "Packet rates were measured with IoTSecBench",
        "in windows of 2,000 ms with None and PRESENT-80-CBC at payloads of 16 B",
        "securing each packet only (nothing sent)",
        "over UDP to a sink on the device itself (127.0.0.1; the MQTT-SN paper's loopback mode)",
        "2 windows were stored.",  # no planned total recorded
    ):
        assert expected in text


@pytest.mark.django_db
def test_methods_paragraph_names_the_crypto_library_and_its_reported_version(make_bench_run):
    default = make_bench_run({"pi-a": AES})
    text = run_methods(run=default.run, statistics=_no_statistics)
    assert "The mechanisms were those of pycryptodome (pycryptodome 4.4.0)." in text

    spec = bench_spec(mechanisms=["aes-128-cbc"], crypto_library="openssl")
    made = make_bench_run({"pi-a": AES}, spec=spec)
    made.run.run_devices.update(
        facts={**FACTS, "libraries": {"cryptography": "50.0.2", "openssl": "OpenSSL 3.5.4"}}
    )
    text = run_methods(run=made.run, statistics=_no_statistics)
    assert (
        "The mechanisms were those of OpenSSL in the agent's process through the cryptography "
        "binding (cryptography 50.0.2, OpenSSL 3.5.4)." in text
    )
    assert "(VmHWM)" in text

    # An agent built with its EVP extension reports the libcrypto its CBC calls ran on.
    evp = {"cryptography": "50.0.2", "openssl": "OpenSSL 3.5.4", "openssl-evp": "OpenSSL 3.0.19"}
    made.run.run_devices.update(facts={**FACTS, "libraries": evp})
    text = run_methods(run=made.run, statistics=_no_statistics)
    assert (
        "through the cryptography binding (cryptography 50.0.2, OpenSSL 3.5.4, CBC calls "
        "through the agent's EVP extension on OpenSSL 3.0.19)." in text
    )


@pytest.mark.django_db
def test_openssl_cli_methods_paragraph_says_each_repetition_is_an_openssl_process(
    make_bench_run,
):
    spec = bench_spec(mechanisms=["aes-128-cbc"], crypto_library="openssl-cli")
    made = make_bench_run({"pi-a": AES}, spec=spec)
    text = run_methods(run=made.run, statistics=_no_statistics)
    for expected in (
        "Each device ran openssl enc with AES-128-CBC on files of 16 B and 8 KiB",
        "its peak memory the process's own resident high-water mark (ru_maxrss from wait4",
        "The mechanisms were those of the OpenSSL command (openssl enc), one process per "
        "operation (version not reported).",
    ):
        assert expected in text
    assert "VmHWM" not in text
    assert "child process per mechanism" not in text
