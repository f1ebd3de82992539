"""What the sample kinds (cipher benchmark, throughput) share in results: their samples
export and benchmark summary rows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# pyarrow ships no type information (pyproject may or may not list it as ignored)
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

from experiments.models import ExperimentKind, Run
from measurements.models import BenchSample, BenchStatistic
from measurements.selectors import NS_PER_US, BenchBaselines, bench_statistics
from results.services.kinds.base import (
    RecordSource,
    ResultsKind,
    SummaryInput,
    us,
)
from results.services.methods import AddressWords
from results.services.summaries import RunStatistics

SAMPLE_COLUMNS = {  # cipher-benchmark and throughput samples
    "mechanism": pa.string(),
    "operation": pa.string(),
    "data_bytes": pa.int64(),
    "repetition": pa.int32(),
    "wall_ns": pa.int64(),
    "cpu_ns": pa.int64(),
    "peak_rss_kb": pa.int64(),
    "packets": pa.int64(),  # throughput windows only
    "calls": pa.int32(),  # cipher bench: calls timed in the repetition (times are per call)
}
SAMPLES = RecordSource(
    model=BenchSample,
    select=", ".join(f"r.{name}" for name in SAMPLE_COLUMNS),
    columns=SAMPLE_COLUMNS,
    # As the run page's summary: by device, mechanism, size, then operation.
    order="d.name, r.mechanism, r.data_bytes, r.operation, r.repetition",
)


def _bench_row(
    of: SummaryInput,
    row: BenchStatistic,
    baselines: BenchBaselines,
) -> dict[str, Any]:
    """One (device, mechanism, data size, operation) of a benchmark, in the run page's units
    (experiments.apis.runs `bench_summary`), with its cost net of the null floor and relative to
    no security where the run has those rows."""
    return {
        **of.leading_columns(row.run_device.device_id, row.run_device.device.name),
        "mechanism": row.mechanism,
        "operation": row.operation,
        "data_bytes": row.data_bytes,
        "n": row.n,
        "mean_us": us(row.wall_mean_ns),
        "variance_us2": None if row.wall_var_ns2 is None else row.wall_var_ns2 / NS_PER_US**2,
        "std_us": us(row.wall_std_ns),
        "cpu_mean_us": us(row.cpu_mean_ns),
        "peak_rss_kb": row.peak_rss_kb,
        "calls_per_repetition": row.calls,
        # bytes per µs = MB/s (decimal megabytes), as the run page's throughput
        "throughput_mb_s": (
            row.data_bytes / (row.wall_mean_ns / NS_PER_US) if row.wall_mean_ns else None
        ),
        "packets_per_s_mean": row.rate_mean,
        "packets_per_s_std": row.rate_std,
        "net_mean_us": baselines.net_mean_us(row),
        "relative_cost": baselines.relative_cost(row),
    }


BENCH_SUMMARY_COLUMNS = (
    "mechanism",
    "operation",
    "data_bytes",
    "n",
    "mean_us",
    "variance_us2",
    "std_us",
    "cpu_mean_us",
    "peak_rss_kb",
    "calls_per_repetition",
    "throughput_mb_s",
    "packets_per_s_mean",
    "packets_per_s_std",
    "net_mean_us",
    "relative_cost",
)


def summary_rows(of: SummaryInput) -> list[dict[str, Any]]:
    """One row per device, mechanism, data size and operation (no all-devices row)."""
    bench = list(bench_statistics(run=of.run))
    baselines = BenchBaselines.of(bench)
    return [_bench_row(of, b, baselines) for b in bench]


def sample_kind(name: ExperimentKind, paragraph: Callable[..., str]) -> ResultsKind:
    """A sample kind's entry: its samples, the benchmark summary, its methods `paragraph`
    (run=...), which reads no round-trip statistics."""

    def methods(run: Run, statistics: Callable[[], RunStatistics], addresses: AddressWords) -> str:
        return paragraph(run=run, addresses=addresses)

    return ResultsKind(
        name=name,
        records=SAMPLES,
        summary_rows=summary_rows,
        summary_columns=BENCH_SUMMARY_COLUMNS,
        methods=methods,
    )
