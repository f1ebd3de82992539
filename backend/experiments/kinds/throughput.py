"""Throughput: secured packets per window, over loopback and over UDP."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from iotsecbench_contract.benchspec import ThroughputSpec

from experiments.addressing import target_url_errors
from experiments.kinds.base import sample_kind
from experiments.models import ExperimentKind
from experiments.rules import datagram_errors, sample_errors, spec_errors

# The design's fields of the job spec; ``target_url`` is the spec's ``target`` (spec()).
SPEC_FIELDS = (
    "mechanisms",
    "data_sizes",
    "repetitions",
    "window_ms",
    "crypto_library",
    "target_url",
)


def spec(design: Mapping[str, Any]) -> ThroughputSpec:
    """The job spec of a design: its fields, and ``target`` (udp://host:port) only when
    ``target_url`` is set, so that a design without one freezes the same spec as before
    (the agent then sends to its own loopback sink)."""
    fields = {f: design[f] for f in SPEC_FIELDS if f != "target_url"}
    if design.get("target_url"):
        fields["target"] = design["target_url"]
    return ThroughputSpec.parse(fields)


def design_errors(attrs: Mapping[str, Any]) -> dict[str, list[str]]:
    errors = sample_errors(attrs, datagram_errors(attrs["mechanisms"], attrs["data_sizes"]))
    return errors or target_url_errors(attrs) or spec_errors(spec, attrs, SPEC_FIELDS)


KIND = sample_kind(ExperimentKind.THROUGHPUT, design_errors, spec, SPEC_FIELDS)
