"""Throughput: secured packets per window, over loopback and over UDP."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from experiments.kinds.base import Kind
from experiments.models import ExperimentKind
from experiments.rules import datagram_errors, sample_errors


def design_errors(attrs: Mapping[str, Any]) -> dict[str, list[str]]:
    return sample_errors(attrs, datagram_errors(attrs["mechanisms"], attrs["data_sizes"]))


KIND = Kind(name=ExperimentKind.THROUGHPUT, samples=True, design_errors=design_errors)
