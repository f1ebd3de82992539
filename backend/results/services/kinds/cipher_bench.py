"""Cipher-benchmark runs' results: their samples, benchmark summary and methods."""

from experiments.models import ExperimentKind
from results.services.kinds.samples import sample_kind
from results.services.methods_bench import cipher_bench_methods_paragraph

KIND = sample_kind(ExperimentKind.CIPHER_BENCH, cipher_bench_methods_paragraph)
