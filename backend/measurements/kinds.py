"""Benchmark kinds as plug-ins, measurements' layer: how each kind's run is summarised
(experiments.kinds has the kinds themselves; results.services.kinds their exports)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from experiments.models import ExperimentKind
from experiments.selectors import run_kind
from measurements.services.summary import bench_summarize, run_summarize

# kind -> the summary of one of its runs (stored as RunStatistic or BenchStatistic rows)
SUMMARIES: dict[str, Callable[..., object]] = {
    ExperimentKind.MESSAGING: run_summarize,
    ExperimentKind.CIPHER_BENCH: bench_summarize,
    ExperimentKind.THROUGHPUT: bench_summarize,
}


def summarize(*, run_id: Any) -> None:
    """Compute the summary that fits the run's kind."""
    SUMMARIES[run_kind(run_id=run_id)](run_id=run_id)
