"""Every published known-answer vector, through the mechanisms' own code paths."""

from __future__ import annotations

import dataclasses

import pytest

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


def test_vectors_cover_every_pycryptodome_mechanism_family_when_listed() -> None:
    covered = {v.mechanism for v in VECTORS}
    assert covered >= {
        "aes-128-cbc",
        "aes-192-cbc",
        "aes-256-cbc",
        "aes-128-ctr",
        "aes-192-ctr",
        "aes-256-ctr",
        "aes-128-gcm",
        "aes-192-gcm",
        "aes-256-gcm",
        "des-cbc",
        "3des-cbc",
        "rc4",
        "chacha20-poly1305",
        "hmac-sha256",
        "ed25519",
        "ecdsa-p256",
        "rsa-2048-pkcs1v15",
        "rsa-2048-pss",
    }
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
