"""Exports: files with the run's parameters, streamed; the methods paragraph."""

from __future__ import annotations

import csv
import io

import pyarrow.parquet as pq
import pytest
from conftest import client_for

from experiments.models import ExperimentKind
from results.tests.conftest import MS

MESSAGES = {"pi-a": [1 * MS, None, 3 * MS], "pi-b": [2 * MS]}
EXPORTS = ["records.csv", "records.parquet", "summary.csv", "summary.parquet"]


@pytest.mark.django_db
def test_records_csv_is_streamed_as_an_attachment_with_run_parameters(make_run, owner_client):
    made = make_run(MESSAGES)
    response = owner_client.get(
        f"/api/runs/{made.run.pk}/export/records.csv", HTTP_ACCEPT="text/csv"
    )

    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Type"] == "text/csv"
    assert response["Content-Disposition"] == (
        f'attachment; filename="run-{made.run.pk}-records.csv"'
    )
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [(r["device_name"], r["seq"], r["rtt_ms"]) for r in rows] == [
        ("pi-a", "0", "1"),
        ("pi-a", "1", ""),
        ("pi-a", "2", "3"),
        ("pi-b", "0", "2"),
    ]
    assert {(r["run_id"], r["protocol"], r["payload_size"]) for r in rows} == {
        (str(made.run.pk), "mqtt", "66")
    }


@pytest.mark.django_db
def test_parquet_and_summary_exports_download(make_run, owner_client):
    made = make_run(MESSAGES)
    base = f"/api/runs/{made.run.pk}/export/"

    records = owner_client.get(base + "records.parquet")
    assert records.status_code == 200
    assert records["Content-Type"] == "application/vnd.apache.parquet"
    assert "records.parquet" in records["Content-Disposition"]
    table = pq.read_table(io.BytesIO(b"".join(records.streaming_content)))
    assert table.num_rows == 4

    summary = owner_client.get(base + "summary.csv")
    assert summary.status_code == 200
    rows = list(csv.DictReader(io.StringIO(summary.content.decode())))
    assert [r["device_name"] for r in rows] == ["pi-a", "pi-b", "All devices"]

    summary_parquet = owner_client.get(base + "summary.parquet")
    assert summary_parquet.status_code == 200
    assert pq.read_table(io.BytesIO(summary_parquet.content)).num_rows == 3


@pytest.mark.django_db
def test_methods_answer_a_paragraph(make_run, personas):
    made = make_run(MESSAGES)
    response = client_for(personas.teammate).get(f"/api/runs/{made.run.pk}/methods/")
    assert response.status_code == 200
    body = response.json()
    assert body["run_id"] == str(made.run.pk)
    assert "Of 4 messages, 3 were delivered, 1 lost and 0 rejected." in body["text"]


@pytest.mark.django_db
@pytest.mark.parametrize("path", [*(f"export/{name}" for name in EXPORTS), "methods/"])
def test_exports_are_404_outside_the_workspace_and_401_anonymous(
    make_run, outsider_client, anonymous_client, path
):
    made = make_run(MESSAGES)
    accept = "text/csv" if path.endswith(".csv") else "application/json"
    outsider = outsider_client.get(f"/api/runs/{made.run.pk}/{path}", HTTP_ACCEPT=accept)
    assert outsider.status_code == 404
    assert outsider.json()["code"] == "not_found"  # errors stay JSON whatever Accept says
    assert anonymous_client.get(f"/api/runs/{made.run.pk}/{path}").status_code == 401


BENCH = {
    "pi-a": [
        ("aes-128-cbc", "encrypt", 16, 1000, 500, 5000, None),
        ("aes-128-cbc", "encrypt", 16, 3000, 700, 5200, None),
    ]
}


@pytest.mark.django_db
@pytest.mark.parametrize("kind", [ExperimentKind.CIPHER_BENCH, ExperimentKind.THROUGHPUT])
def test_benchmark_runs_export_their_samples_and_summary(make_bench_run, owner_client, kind):
    made = make_bench_run(BENCH, kind=kind)
    client = owner_client
    base = f"/api/runs/{made.run.pk}/export/"

    records = client.get(base + "records.csv", HTTP_ACCEPT="text/csv")
    assert records.status_code == 200
    assert records.streaming
    rows = list(csv.DictReader(io.StringIO(b"".join(records.streaming_content).decode())))
    assert [(r["kind"], r["mechanism"], r["repetition"], r["wall_ns"]) for r in rows] == [
        (kind, "aes-128-cbc", "0", "1000"),
        (kind, "aes-128-cbc", "1", "3000"),
    ]

    parquet = client.get(base + "records.parquet")
    assert parquet.status_code == 200
    assert parquet["Content-Type"] == "application/vnd.apache.parquet"
    table = pq.read_table(io.BytesIO(b"".join(parquet.streaming_content)))
    assert table.column("cpu_ns").to_pylist() == [500, 700]

    summary = client.get(base + "summary.csv")
    assert summary.status_code == 200
    (row,) = list(csv.DictReader(io.StringIO(summary.content.decode())))
    assert (row["device_name"], row["n"], row["mean_us"], row["variance_us2"]) == (
        "pi-a",
        "2",
        "2.0",
        "2.0",
    )
    summary_parquet = client.get(base + "summary.parquet")
    assert pq.read_table(io.BytesIO(summary_parquet.content)).num_rows == 1


@pytest.mark.django_db
def test_benchmark_methods_answer_a_paragraph(make_bench_run, owner_client):
    made = make_bench_run(BENCH)
    response = owner_client.get(f"/api/runs/{made.run.pk}/methods/")
    assert response.status_code == 200
    assert response.json()["text"].startswith("Cipher timings were measured with IoTSecBench")


@pytest.mark.django_db
@pytest.mark.parametrize("path", [*(f"export/{name}" for name in EXPORTS), "methods/"])
def test_benchmark_exports_are_404_outside_the_workspace(make_bench_run, outsider_client, path):
    made = make_bench_run(BENCH)
    assert outsider_client.get(f"/api/runs/{made.run.pk}/{path}").status_code == 404
