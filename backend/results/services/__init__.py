"""Computations of the results app over measurements (and the one write: the round-trip
cache). One module per concern; the tests mirror them in tests/services/."""

from results.services.compare import COMPARE_RUNS_MAX, Comparison, runs_compare
from results.services.distribution import (
    BINS_DEFAULT,
    BINS_MAX,
    Distribution,
    run_distribution_compute,
)
from results.services.exports import (
    PARQUET_MEDIA_TYPE,
    run_records_csv,
    run_records_parquet,
    run_summary_csv,
    run_summary_parquet,
)
from results.services.kinds import run_methods
from results.services.methods import run_methods_paragraph
from results.services.round_trips import run_round_trips_load
from results.services.sizes import SizeBreakdown, run_sizes_compute
from results.services.summaries import RunStatistics, run_statistics_compute

__all__ = [
    "BINS_DEFAULT",
    "BINS_MAX",
    "COMPARE_RUNS_MAX",
    "PARQUET_MEDIA_TYPE",
    "Comparison",
    "Distribution",
    "RunStatistics",
    "SizeBreakdown",
    "run_distribution_compute",
    "run_methods",
    "run_methods_paragraph",
    "run_records_csv",
    "run_records_parquet",
    "run_round_trips_load",
    "run_sizes_compute",
    "run_statistics_compute",
    "run_summary_csv",
    "run_summary_parquet",
    "runs_compare",
]
