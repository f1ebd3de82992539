"""Cipher benchmark: each mechanism timed on each data size, on the device itself."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from iotsecbench_contract.benchspec import CipherBenchSpec

from experiments.kinds.base import sample_kind
from experiments.models import ExperimentKind
from experiments.rules import BENCH_NO_NONE, sample_errors, spec_errors

SPEC_FIELDS = ("mechanisms", "data_sizes", "repetitions", "crypto_library")


def design_errors(attrs: Mapping[str, Any]) -> dict[str, list[str]]:
    own = {"mechanisms": [BENCH_NO_NONE]} if "none" in attrs["mechanisms"] else {}
    return sample_errors(attrs, own) or spec_errors(CipherBenchSpec.parse, attrs, SPEC_FIELDS)


KIND = sample_kind(ExperimentKind.CIPHER_BENCH, design_errors, CipherBenchSpec.parse, SPEC_FIELDS)
