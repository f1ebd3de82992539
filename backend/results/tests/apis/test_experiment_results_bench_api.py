"""GET /api/experiments/<id>/results/ of cipher-benchmark and throughput experiments: cells per
mechanism, data size and operation with their own figures and intervals (issue #20, point 1),
and the results table as CSV and Parquet (point 4)."""

from __future__ import annotations

import csv
import io
from typing import Any

import pyarrow.parquet as pq
import pytest

from experiments.models import ExperimentKind, RunStatus
from results.tests.conftest import Sample, bench_spec

pytestmark = pytest.mark.django_db


def _cipher(wall_ns: list[int], rss: int = 100) -> list[Sample]:
    """aes-128-cbc encrypt on 16 B, one sample per wall time, and one decrypt of 8192 B."""
    encrypt: list[Sample] = [("aes-128-cbc", "encrypt", 16, w, w, rss, None) for w in wall_ns]
    return [*encrypt, ("aes-128-cbc", "decrypt", 8192, 4096, 4000, rss, None)]


def _get(client: Any, experiment: Any, path: str = "") -> Any:
    return client.get(f"/api/experiments/{experiment.pk}/results/{path}")


def _cells(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["label"]: c for c in body["cells"]}


def _metrics(cell: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {m["name"]: m for m in cell["metrics"]}


def _two_repeats(make_bench_run: Any) -> Any:
    made = make_bench_run({"pi-a": _cipher([1000, 3000], rss=100)})
    experiment = made.run.experiment
    make_bench_run({"pi-a": _cipher([2000, 6000], rss=250)}, experiment=experiment, repeat=2)
    return experiment


def test_cipher_bench_cells_give_seconds_mb_s_and_peak_memory_with_run_level_intervals(
    make_bench_run, owner_client
):
    experiment = _two_repeats(make_bench_run)
    response = _get(owner_client, experiment)
    assert response.status_code == 200
    body = response.json()
    assert (body["kind"], body["overheads"]) == ("cipher_bench", [])
    cells = _cells(body)
    assert list(cells) == ["aes-128-cbc · 16 B · encrypt", "aes-128-cbc · 8192 B · decrypt"]
    cell = cells["aes-128-cbc · 16 B · encrypt"]
    assert cell["parameters"] == {
        "mechanism": "aes-128-cbc",
        "data_bytes": 16,
        "operation": "encrypt",
    }
    assert (cell["interval_level"], cell["messages"], len(cell["runs"])) == ("runs", 4, 2)
    assert sorted(r["repeat"] for r in cell["runs"]) == [1, 2]
    metrics = _metrics(cell)
    assert list(metrics) == ["seconds", "mb_s", "peak_rss_kb"]
    # The runs' means are 2 µs and 4 µs: the cell's is their mean, 3 µs.
    seconds = metrics["seconds"]
    assert (seconds["unit"], seconds["value"]) == ("s", pytest.approx(3e-6))
    assert seconds["ci"][0] < seconds["value"] < seconds["ci"][1]
    # MB/s per repetition, bytes per µs: (16, 5.33) in run 1, (8, 2.67) in run 2.
    assert metrics["mb_s"]["value"] == pytest.approx(((16 + 16 / 3) / 2 + (8 + 8 / 3) / 2) / 2)
    assert metrics["peak_rss_kb"] == {
        "name": "peak_rss_kb",
        "unit": "kB",
        "value": 250.0,
        "ci": None,
    }


def test_a_benchmark_cells_intervals_stop_at_zero_and_say_so_when_two_runs_disagree(
    make_bench_run, owner_client
):
    # Runs of 1 µs and 100 µs per call: widened for two runs (9.2 times), the interval of
    # the seconds would reach far below 0, which a time cannot.
    made = make_bench_run({"pi-a": _cipher([900, 1000, 1100])})
    experiment = made.run.experiment
    make_bench_run({"pi-a": _cipher([99_000, 100_000, 101_000])}, experiment=experiment, repeat=2)
    cell = _cells(_get(owner_client, experiment).json())["aes-128-cbc · 16 B · encrypt"]
    seconds = _metrics(cell)["seconds"]
    assert seconds["value"] == pytest.approx(50.5e-6)
    assert seconds["ci"][0] == 0.0 < seconds["value"] < seconds["ci"][1]
    assert cell["ci_clipped"] is True
    # The decrypt cell's runs agree (one 4 µs call each): nothing to clip.
    decrypt = _cells(_get(owner_client, experiment).json())["aes-128-cbc · 8192 B · decrypt"]
    assert decrypt["ci_clipped"] is False


def test_a_benchmark_cell_with_one_run_has_its_interval_over_repetitions_and_says_so(
    make_bench_run, owner_client
):
    made = make_bench_run({"pi-a": _cipher([1000, 3000])})
    make_bench_run(
        {"pi-a": _cipher([1000])}, experiment=made.run.experiment, status=RunStatus.FAILED
    )
    cell = _cells(_get(owner_client, made.run.experiment).json())["aes-128-cbc · 16 B · encrypt"]
    assert cell["interval_level"] == "repetitions"
    assert (len(cell["runs"]), cell["other_runs"]) == (1, {"failed": 1})
    assert _metrics(cell)["seconds"]["value"] == pytest.approx(2e-6)


def test_throughput_cells_give_packets_per_second_and_mb_s_per_mechanism_and_size(
    make_bench_run, owner_client
):
    # Windows of 1 s (wall_ns 1e9): 1000 and 3000 packets of 64 B.
    windows: list[Sample] = [
        ("none", "secure", 64, 10**9, 10**9, 50, 1000),
        ("none", "secure", 64, 10**9, 10**9, 60, 3000),
        ("aes-128-cbc", "secure", 64, 10**9, 10**9, 70, 500),
    ]
    made = make_bench_run(
        {"pi-a": windows},
        kind=ExperimentKind.THROUGHPUT,
        spec=bench_spec(mechanisms=["none", "aes-128-cbc"], data_sizes=[64]),
    )
    cells = _cells(_get(owner_client, made.run.experiment).json())
    assert list(cells) == ["none · 64 B · secure", "aes-128-cbc · 64 B · secure"]
    none = _metrics(cells["none · 64 B · secure"])
    assert list(none) == ["packets_per_s", "mb_s", "peak_rss_kb"]
    assert none["packets_per_s"]["value"] == pytest.approx(2000)
    assert none["mb_s"]["value"] == pytest.approx(2000 * 64 / 1e6)
    assert none["peak_rss_kb"]["value"] == 60
    assert cells["none · 64 B · secure"]["interval_level"] == "repetitions"
    assert _metrics(cells["aes-128-cbc · 64 B · secure"])["packets_per_s"]["value"] == 500


def test_results_table_csv_has_one_row_per_cell_with_each_metric_and_interval(
    make_bench_run, owner_client
):
    experiment = _two_repeats(make_bench_run)
    response = _get(owner_client, experiment, "table.csv")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv"
    assert f"experiment-{experiment.pk}-results.csv" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [r["label"] for r in rows] == [
        "aes-128-cbc · 16 B · encrypt",
        "aes-128-cbc · 8192 B · decrypt",
    ]
    first = rows[0]
    assert (first["mechanism"], first["data_bytes"], first["runs"]) == ("aes-128-cbc", "16", "2")
    assert float(first["seconds"]) == pytest.approx(3e-6)
    assert float(first["seconds_ci_low"]) < 3e-6 < float(first["seconds_ci_high"])
    assert (first["interval_level"], first["peak_rss_kb"], first["peak_rss_kb_ci_low"]) == (
        "runs",
        "250.0",
        "",
    )


def test_results_table_parquet_reads_back_with_the_csv_columns(make_bench_run, owner_client):
    experiment = _two_repeats(make_bench_run)
    response = _get(owner_client, experiment, "table.parquet")
    assert response.status_code == 200
    table = pq.read_table(io.BytesIO(response.content))
    header = next(
        csv.reader(io.StringIO(_get(owner_client, experiment, "table.csv").content.decode()))
    )
    assert table.column_names == header
    assert table.column("runs").to_pylist() == [2, 2]
    assert table.column("seconds").to_pylist()[0] == pytest.approx(3e-6)


def test_results_carry_a_methods_paragraph_naming_the_design_and_the_interval_method(
    make_bench_run, owner_client
):
    experiment = _two_repeats(make_bench_run)
    methods = _get(owner_client, experiment).json()["methods"]
    assert "2 cells" in methods
    assert "2 completed runs per cell" in methods
    assert "two-stage bootstrap" in methods
    assert "seconds per operation" in methods


def test_outsider_gets_404_for_an_experiments_results_table(make_bench_run, outsider_client):
    experiment = _two_repeats(make_bench_run)
    for path in ("table.csv", "table.parquet"):
        response = _get(outsider_client, experiment, path)
        assert (response.status_code, response.json()["code"]) == (404, "not_found")
