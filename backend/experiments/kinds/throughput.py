"""Throughput: secured packets per window, over loopback and over UDP."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from iotsecbench_contract.benchspec import ThroughputSpec

from experiments.kinds.base import sample_kind
from experiments.models import ExperimentKind
from experiments.rules import datagram_errors, sample_errors, spec_errors

SPEC_FIELDS = ("mechanisms", "data_sizes", "repetitions", "window_ms", "crypto_library")


def design_errors(attrs: Mapping[str, Any]) -> dict[str, list[str]]:
    errors = sample_errors(attrs, datagram_errors(attrs["mechanisms"], attrs["data_sizes"]))
    return errors or spec_errors(ThroughputSpec.parse, attrs, SPEC_FIELDS)


KIND = sample_kind(ExperimentKind.THROUGHPUT, design_errors, ThroughputSpec.parse, SPEC_FIELDS)
