from __future__ import annotations

import pytest

from iotsecbench_contract import mechanisms
from iotsecbench_contract.mechanisms import MECHANISMS, NAMES, describe


def test_names_are_unique_lowercase_and_in_table_order() -> None:
    assert len(set(NAMES)) == len(NAMES) == 41
    assert all(name == name.lower() and " " not in name for name in NAMES)
    assert NAMES[:2] == ("none", "null")


@pytest.mark.parametrize("info", MECHANISMS, ids=NAMES)
def test_every_mechanism_is_consistent(info: mechanisms.MechanismInfo) -> None:
    assert info.kind in mechanisms.KINDS
    assert info.label
    assert info.family
    assert info.description
    assert info.framing
    assert info.fixed_overhead >= 0
    assert info.pad_block in (0, info.block_bytes)
    if info.kind in (mechanisms.NONE, mechanisms.NULL):
        assert info.key_bits == 0
        assert info.key_bytes == 0
    else:
        assert info.key_bits > 0
    if info.key_bytes and info.kind != mechanisms.MAC and info.name not in ("des-cbc", "3des-cbc"):
        assert info.key_bits == info.key_bytes * 8
    assert info.native == (info.family == "Lightweight")


def test_describe_finds_every_name_and_refuses_others() -> None:
    assert [describe(name) for name in NAMES] == list(MECHANISMS)
    with pytest.raises(KeyError, match="unknown security mechanism"):
        describe("rot13")


@pytest.mark.parametrize(
    ("name", "size", "overhead"),
    [
        ("none", 10, 0),
        ("null", 10, 16),
        ("aes-128-cbc", 0, 32),  # iv + a whole block of padding
        ("aes-128-cbc", 15, 17),
        ("aes-128-cbc", 16, 32),
        ("aes-256-gcm", 5, 28),
        ("tea-ecb", 8, 8),
        ("rsa-3072-pss", 100, 384),
        ("ascon-aead128", 1, 32),
    ],
)
def test_overhead_is_the_fixed_frame_plus_padding(name: str, size: int, overhead: int) -> None:
    assert describe(name).overhead(size) == overhead


def test_overhead_refuses_a_negative_size() -> None:
    with pytest.raises(ValueError, match=">= 0"):
        describe("none").overhead(-1)


@pytest.mark.parametrize("info", MECHANISMS, ids=NAMES)
def test_largest_payload_is_the_largest_that_fits(info: mechanisms.MechanismInfo) -> None:
    limit = 1200
    size = info.largest_payload(limit)
    assert size + info.overhead(size) <= limit
    assert size + 1 + info.overhead(size + 1) > limit
    assert info.largest_payload(0) == 0
