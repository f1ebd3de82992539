"""The mechanisms over the native lightweight ciphers (needs the C extension)."""

from __future__ import annotations

import os

import pytest

import iotsecbench_agent._lwc  # noqa: F401  (built at install; its absence is a failure)
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import DecryptError
from iotsecbench_agent.security.lightweight_mechanisms import (
    BLOCK_CIPHER_KEY_BYTES,
    block_cipher,
)

NATIVE = [info.name for info in registry.infos() if info.native]


@pytest.mark.parametrize("name", NATIVE)
def test_native_mechanism_round_trips_every_length_with_exact_overhead_when_unsecured(
    name: str,
) -> None:
    mech = registry.create(name)
    for length in range(301):
        payload = os.urandom(length)
        wire = mech.secure(payload)
        assert len(wire) - length == mech.overhead(length)
        assert mech.unsecure(wire) == payload


@pytest.mark.parametrize("cipher", sorted(BLOCK_CIPHER_KEY_BYTES))
def test_native_cbc_frame_is_the_extensions_cbc_when_secured(cipher: str) -> None:
    key = os.urandom(BLOCK_CIPHER_KEY_BYTES[cipher])
    mech = registry.create(f"{cipher}-cbc", key)
    payload = b"forty-two bytes of application payload!!!!"
    wire = mech.secure(payload)
    assert wire[8:] == block_cipher(cipher, key).cbc_encrypt(wire[:8], payload)
    assert mech.unsecure(wire) == payload


@pytest.mark.parametrize("cipher", sorted(BLOCK_CIPHER_KEY_BYTES))
def test_native_ecb_pads_then_encrypts_in_one_call_when_secured(cipher: str) -> None:
    key = os.urandom(BLOCK_CIPHER_KEY_BYTES[cipher])
    mech = registry.create(f"{cipher}-ecb", key)
    payload = b"sixteen  bytes!!"
    assert mech.secure(payload) == block_cipher(cipher, key).ecb_encrypt(payload + b"\x08" * 8)


@pytest.mark.parametrize("name", [n for n in NATIVE if n.endswith(("-cbc", "-ecb"))])
def test_native_block_mechanism_refuses_frame_when_not_whole_blocks(name: str) -> None:
    mech = registry.create(name)
    wire = mech.secure(b"abc")
    for length in (0, 1, 7, len(wire) - 1):
        with pytest.raises(DecryptError):
            mech.unsecure(wire[:length])


def test_ascon_refuses_every_single_bit_flip_when_tampered() -> None:
    mech = registry.create("ascon-aead128")
    wire = mech.secure(os.urandom(24))
    for index in range(len(wire)):
        tampered = bytearray(wire)
        tampered[index] ^= 0x80 >> (index % 8)
        with pytest.raises(DecryptError):
            mech.unsecure(bytes(tampered))
