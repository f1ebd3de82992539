"""Cipher benchmark: each mechanism timed on each data size, on the device itself."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from experiments.kinds.base import Kind
from experiments.models import ExperimentKind
from experiments.rules import BENCH_NO_NONE, sample_errors


def design_errors(attrs: Mapping[str, Any]) -> dict[str, list[str]]:
    own = {"mechanisms": [BENCH_NO_NONE]} if "none" in attrs["mechanisms"] else {}
    return sample_errors(attrs, own)


KIND = Kind(name=ExperimentKind.CIPHER_BENCH, samples=True, design_errors=design_errors)
