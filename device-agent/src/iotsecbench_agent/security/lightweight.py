"""Lightweight ciphers implemented natively (``iotsecbench_agent._lwc``), with their parameters.

The ciphers themselves run in C, one native call per message, so that a timing measures
the cipher and not the interpreter.  This module adds the typed entry points and a table
of parameters; see ``docs/lightweight-ciphers.md`` for the specifications and byte orders,
and ``vectors_lightweight.py`` for the published vectors they are tested against.

* Block ciphers (64-bit block): ``BlockCipher(name, key)`` computes the key schedule once;
  ``ecb_encrypt``/``ecb_decrypt`` take whole 8-byte blocks, ``cbc_encrypt``/``cbc_decrypt``
  take an 8-byte IV and add/strip PKCS#7 padding (1..8 bytes, always added).
* Ascon-AEAD128 (NIST SP 800-232): ``ascon_aead128_encrypt(key, nonce, ad, plaintext)``
  returns ciphertext || 16-byte tag; decryption raises ``ValueError("tag mismatch")``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Final, Literal

from iotsecbench_agent._lwc import (
    BLOCK_CIPHERS,
    BlockCipher,
    ascon_aead128_decrypt,
    ascon_aead128_encrypt,
)

if TYPE_CHECKING:
    from typing_extensions import Buffer

__all__ = [
    "ASCON_AEAD128",
    "BLOCK_CIPHERS",
    "BLOCK_CIPHER_PARAMS",
    "BLOCK_SIZE",
    "LIGHTWEIGHT_CIPHERS",
    "BlockCipher",
    "CipherParams",
    "ascon_aead128_decrypt",
    "ascon_aead128_encrypt",
    "block_cipher",
    "cbc_ciphertext_size",
]

BLOCK_SIZE: Final = 8
"""Block size of every native block cipher, in bytes."""


@dataclass(frozen=True)
class CipherParams:
    """Fixed parameters of one lightweight cipher; sizes in bytes."""

    name: str
    kind: Literal["block", "aead"]
    key_size: int
    block_size: int
    rounds: int
    """As the designers count them: TEA/XTEA cycles, KLEIN/PRESENT/LBlock rounds, Ascon p^a."""
    nonce_size: int = 0
    tag_size: int = 0


def _block(name: str, key_size: int, rounds: int) -> CipherParams:
    return CipherParams(name, "block", key_size, BLOCK_SIZE, rounds)


BLOCK_CIPHER_PARAMS: Final[Mapping[str, CipherParams]] = MappingProxyType(
    {
        p.name: p
        for p in (
            _block("tea", 16, 32),
            _block("xtea", 16, 32),
            _block("present-80", 10, 31),
            _block("present-128", 16, 31),
            _block("klein-64", 8, 12),
            _block("klein-80", 10, 16),
            _block("klein-96", 12, 20),
            _block("lblock", 10, 32),
        )
    }
)
"""The native block ciphers by name, in the order of ``_lwc.BLOCK_CIPHERS``."""

ASCON_AEAD128: Final = CipherParams(
    name="ascon-aead128",
    kind="aead",
    key_size=16,
    block_size=16,  # the rate: 128 bits absorbed per permutation call
    rounds=12,
    nonce_size=16,
    tag_size=16,
)

LIGHTWEIGHT_CIPHERS: Final[Mapping[str, CipherParams]] = MappingProxyType(
    {**BLOCK_CIPHER_PARAMS, ASCON_AEAD128.name: ASCON_AEAD128}
)
"""Every native cipher by name: the block ciphers, then Ascon-AEAD128."""


def block_cipher(name: str, key: Buffer) -> BlockCipher:
    """The block cipher `name` keyed with `key` (ValueError names the expected length)."""
    return BlockCipher(name, key)


def cbc_ciphertext_size(plaintext_size: int) -> int:
    """Length of ``cbc_encrypt`` output: PKCS#7 always adds 1..8 bytes."""
    if plaintext_size < 0:
        raise ValueError("plaintext_size must not be negative")
    return (plaintext_size // BLOCK_SIZE + 1) * BLOCK_SIZE
