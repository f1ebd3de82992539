"""The native lightweight ciphers against their published known-answer vectors."""

from __future__ import annotations

import pytest

from iotsecbench_agent.security.lightweight import (
    LIGHTWEIGHT_CIPHERS,
    ascon_aead128_decrypt,
    ascon_aead128_encrypt,
    block_cipher,
)
from iotsecbench_agent.security.vectors_lightweight import KNOWN_ANSWERS, KnownAnswer

ECB = [v for v in KNOWN_ANSWERS if v.mode == "ecb"]
AEAD = [v for v in KNOWN_ANSWERS if v.mode == "aead"]


def vector_id(v: KnownAnswer) -> str:
    same = [w for w in KNOWN_ANSWERS if w.mechanism == v.mechanism]
    return f"{v.mechanism}-{same.index(v)}"


@pytest.mark.parametrize("v", ECB, ids=vector_id)
def test_ecb_encrypt_gives_published_ciphertext_when_keyed_with_vector(v: KnownAnswer) -> None:
    assert block_cipher(v.mechanism, v.key).ecb_encrypt(v.plaintext).hex() == v.ciphertext.hex()


@pytest.mark.parametrize("v", ECB, ids=vector_id)
def test_ecb_decrypt_gives_published_plaintext_when_keyed_with_vector(v: KnownAnswer) -> None:
    assert block_cipher(v.mechanism, v.key).ecb_decrypt(v.ciphertext).hex() == v.plaintext.hex()


@pytest.mark.parametrize("v", AEAD, ids=vector_id)
def test_ascon_encrypt_gives_published_kat_when_given_its_inputs(v: KnownAnswer) -> None:
    assert v.nonce is not None
    assert v.ad is not None
    got = ascon_aead128_encrypt(v.key, v.nonce, v.ad, v.plaintext)
    assert got.hex() == v.ciphertext.hex()


@pytest.mark.parametrize("v", AEAD, ids=vector_id)
def test_ascon_decrypt_gives_published_plaintext_when_given_kat_ciphertext(
    v: KnownAnswer,
) -> None:
    assert v.nonce is not None
    assert v.ad is not None
    assert ascon_aead128_decrypt(v.key, v.nonce, v.ad, v.ciphertext) == v.plaintext


def test_vectors_cover_every_native_cipher_when_listed() -> None:
    assert {v.mechanism for v in KNOWN_ANSWERS} == set(LIGHTWEIGHT_CIPHERS)


def test_vectors_are_well_formed_when_listed() -> None:
    for v in KNOWN_ANSWERS:
        params = LIGHTWEIGHT_CIPHERS[v.mechanism]
        assert len(v.key) == params.key_size, v
        assert v.source.strip(), v
        if v.mode == "ecb":
            assert params.kind == "block"
            assert len(v.plaintext) == len(v.ciphertext) == 8, v
            assert v.nonce is None
            assert v.ad is None
        else:
            assert params.kind == "aead"
            assert v.nonce is not None
            assert len(v.nonce) == params.nonce_size
            assert len(v.ciphertext) == len(v.plaintext) + params.tag_size, v


def test_ascon_kats_span_empty_partial_and_multi_block_inputs_when_listed() -> None:
    pt_lengths = {len(v.plaintext) for v in AEAD}
    ad_lengths = {len(v.ad or b"") for v in AEAD}
    # empty, shorter than a word, between word and rate, exactly one rate block, beyond it
    assert {0, 1, 9, 15, 16, 30, 32} <= pt_lengths
    assert {0, 1, 9, 16, 25, 32} <= ad_lengths
    assert any(not v.plaintext and not v.ad for v in AEAD)
