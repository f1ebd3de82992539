"""Benchmark kinds as plug-ins, results' layer: each kind's records export, summary export
and methods paragraph, one module per kind (experiments.kinds has the kinds themselves,
measurements.kinds their summaries)."""

from __future__ import annotations

from collections.abc import Callable

from experiments.models import ExperimentKind, Run
from results.services.kinds import cipher_bench, messaging, throughput
from results.services.kinds.base import RecordSource, ResultsKind
from results.services.methods import AddressWords, address_as_stored
from results.services.summaries import RunStatistics

KINDS: dict[str, ResultsKind] = {
    k.name: k for k in (messaging.KIND, cipher_bench.KIND, throughput.KIND)
}


def results_kind(name: str) -> ResultsKind:
    return KINDS[ExperimentKind(name)]


def run_methods(
    *,
    run: Run,
    statistics: Callable[[], RunStatistics],
    addresses: AddressWords = address_as_stored,
) -> str:
    """The run's methods paragraph; `statistics`: a messaging run's (called only if needed);
    `addresses`: how it names the addresses the run used (a shared page's: without them)."""
    return results_kind(run.experiment.kind).methods(run, statistics, addresses)


__all__ = ["KINDS", "RecordSource", "ResultsKind", "results_kind", "run_methods"]
