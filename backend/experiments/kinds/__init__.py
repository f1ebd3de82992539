"""Benchmark kinds as plug-ins, experiments' layer: what a kind's design must satisfy and
whether its results are samples or message records. Each kind is one module here; the layers
above have their own seam (measurements.kinds: summary; results.services.kinds: export and methods
paragraph), each keyed by ExperimentKind and checked complete by the tests."""

from __future__ import annotations

from experiments.kinds import cipher_bench, messaging, throughput
from experiments.kinds.base import Kind
from experiments.models import ExperimentKind

KINDS: dict[str, Kind] = {k.name: k for k in (messaging.KIND, cipher_bench.KIND, throughput.KIND)}


def kind_get(name: str) -> Kind:
    return KINDS[ExperimentKind(name)]


__all__ = ["KINDS", "Kind", "kind_get"]
