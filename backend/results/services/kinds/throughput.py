"""Throughput runs' results: their windows, benchmark summary and methods."""

from experiments.models import ExperimentKind
from results.services.kinds.samples import sample_kind
from results.services.methods_bench import throughput_methods_paragraph

KIND = sample_kind(ExperimentKind.THROUGHPUT, throughput_methods_paragraph)
