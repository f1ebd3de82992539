"""Every published known-answer vector, through the mechanisms' own code paths."""

from __future__ import annotations

import dataclasses

import pytest

from iotsecbench_agent.security import registry
from iotsecbench_agent.security.selftest import (
    FAIL,
    PASS,
    LightweightVector,
    Mismatch,
    check,
    check_lightweight,
    lightweight_vectors,
    results,
)
from iotsecbench_agent.security.vectors import VECTORS, Vector


def vector_id(vector: Vector) -> str:
    return f"{vector.mechanism}: {vector.source}"


@pytest.mark.parametrize("vector", VECTORS, ids=vector_id)
def test_vector_passes_when_run_through_its_mechanism(vector: Vector) -> None:
    check(vector)


@pytest.mark.parametrize("vector", VECTORS, ids=vector_id)
def test_vector_fails_when_one_ciphertext_bit_is_wrong(vector: Vector) -> None:
    wrong = bytearray(vector.ciphertext)
    wrong[len(wrong) // 2] ^= 0x01
    with pytest.raises(Mismatch):
        check(dataclasses.replace(vector, ciphertext=bytes(wrong)))


def test_every_mechanism_with_cryptography_has_a_published_vector_when_listed() -> None:
    # A native mechanism's vectors name its cipher ("tea"), checked in both of its modes.
    covered = {v.mechanism for v in VECTORS} | {v.mechanism for v in lightweight_vectors()}
    without = [
        info.name
        for info in registry.infos()
        if info.name not in ("none", "null")
        and info.name not in covered
        and info.name.removesuffix("-ecb").removesuffix("-cbc") not in covered
    ]
    assert without == []
    assert all(v.source for v in VECTORS)


def test_selftest_reports_every_builtin_vector_as_passed_when_run() -> None:
    statuses = [r.status for r in results()]
    assert statuses.count(FAIL) == 0
    assert statuses.count(PASS) >= len(VECTORS)


LIGHTWEIGHT = list(lightweight_vectors())


def test_lightweight_vectors_are_present() -> None:
    assert len(LIGHTWEIGHT) >= 40


@pytest.mark.parametrize(
    "vector", LIGHTWEIGHT, ids=[f"{v.mechanism}: {v.source}"[:80] for v in LIGHTWEIGHT]
)
def test_lightweight_vector_passes_through_its_mechanism_when_native_module_is_built(
    vector: LightweightVector,
) -> None:
    check_lightweight(vector)
