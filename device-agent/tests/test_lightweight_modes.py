"""ECB, CBC+PKCS#7 and Ascon-AEAD128 round trips and chaining, on pseudo-random payloads."""

from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor

import pytest

from iotsecbench_agent.security.lightweight import (
    BLOCK_CIPHER_PARAMS,
    BlockCipher,
    ascon_aead128_decrypt,
    ascon_aead128_encrypt,
    block_cipher,
    cbc_ciphertext_size,
)

NAMES = list(BLOCK_CIPHER_PARAMS)
LENGTHS = range(301)  # every payload length 0..300


def prng(label: str, n: int) -> bytes:
    """Deterministic pseudo-random bytes, so a failure reproduces."""
    return hashlib.shake_256(label.encode()).digest(n) if n else b""


def keyed(name: str, label: str = "key") -> BlockCipher:
    return block_cipher(name, prng(f"{name}/{label}", BLOCK_CIPHER_PARAMS[name].key_size))


def xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b))


def pkcs7(data: bytes) -> bytes:
    pad = 8 - len(data) % 8
    return data + bytes([pad]) * pad


def chained_ecb_encrypt(cipher: BlockCipher, iv: bytes, padded: bytes) -> bytes:
    """CBC by hand: C_i = E(P_i xor C_{i-1}), C_0 = IV, one ECB call per block."""
    out, chain = b"", iv
    for i in range(0, len(padded), 8):
        chain = cipher.ecb_encrypt(xor(padded[i : i + 8], chain))
        out += chain
    return out


def chained_ecb_decrypt(cipher: BlockCipher, iv: bytes, ciphertext: bytes) -> bytes:
    out, chain = b"", iv
    for i in range(0, len(ciphertext), 8):
        block = ciphertext[i : i + 8]
        out += xor(cipher.ecb_decrypt(block), chain)
        chain = block
    return out


@pytest.mark.parametrize("name", NAMES)
def test_cbc_roundtrip_restores_plaintext_when_payload_is_any_length_0_to_300(name: str) -> None:
    cipher = keyed(name)
    for n in LENGTHS:
        iv = prng(f"{name}/iv/{n}", 8)
        pt = prng(f"{name}/pt/{n}", n)
        ct = cipher.cbc_encrypt(iv, pt)
        assert len(ct) == cbc_ciphertext_size(n), n
        assert cipher.cbc_decrypt(iv, ct) == pt, n


@pytest.mark.parametrize("name", NAMES)
def test_ecb_roundtrip_restores_plaintext_when_payload_is_whole_blocks_up_to_300(
    name: str,
) -> None:
    cipher = keyed(name)
    for n in range(0, 301, 8):
        pt = prng(f"{name}/ecb/{n}", n)
        ct = cipher.ecb_encrypt(pt)
        assert len(ct) == n
        assert cipher.ecb_decrypt(ct) == pt, n


def test_aead_roundtrip_restores_plaintext_when_payload_is_any_length_0_to_300() -> None:
    key = prng("ascon/key", 16)
    for n in LENGTHS:
        nonce = prng(f"ascon/nonce/{n}", 16)
        ad = prng(f"ascon/ad/{n}", (7 * n) % 41)  # AD lengths 0..40 vary with n
        pt = prng(f"ascon/pt/{n}", n)
        sealed = ascon_aead128_encrypt(key, nonce, ad, pt)
        assert len(sealed) == n + 16
        assert ascon_aead128_decrypt(key, nonce, ad, sealed) == pt, n


@pytest.mark.parametrize("name", NAMES)
def test_cbc_equals_chained_ecb_with_pkcs7_when_iv_is_known(name: str) -> None:
    cipher = keyed(name)
    iv = bytes.fromhex("0001020304050607")
    for n in (0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 300):
        pt = prng(f"{name}/chain/{n}", n)
        expected = chained_ecb_encrypt(cipher, iv, pkcs7(pt))
        got = cipher.cbc_encrypt(iv, pt)
        assert got.hex() == expected.hex(), n
        assert chained_ecb_decrypt(cipher, iv, got) == pkcs7(pt)


@pytest.mark.parametrize("name", NAMES)
def test_cbc_adds_a_whole_padding_block_when_plaintext_is_block_aligned(name: str) -> None:
    cipher = keyed(name)
    iv = bytes(8)
    ct = cipher.cbc_encrypt(iv, bytes(16))
    assert len(ct) == 24
    # the last plaintext block is eight 0x08 bytes, chained on the second ciphertext block
    assert cipher.ecb_decrypt(ct[16:]) == xor(b"\x08" * 8, ct[8:16])


@pytest.mark.parametrize("name", NAMES)
def test_ecb_of_large_input_equals_ecb_of_its_blocks_when_the_gil_is_released(name: str) -> None:
    cipher = keyed(name)
    data = prng(f"{name}/large", 64 * 1024)  # above the native GIL-release threshold
    whole = cipher.ecb_encrypt(data)
    assert whole == b"".join(cipher.ecb_encrypt(data[i : i + 8]) for i in range(0, len(data), 8))
    assert cipher.ecb_decrypt(whole) == data
    iv = prng(f"{name}/large-iv", 8)
    assert cipher.cbc_decrypt(iv, cipher.cbc_encrypt(iv, data)) == data


def test_ciphers_give_identical_results_when_one_object_is_shared_across_threads() -> None:
    cipher = keyed("present-80")
    key, nonce = prng("threads/key", 16), prng("threads/nonce", 16)
    data = prng("threads/data", 32 * 1024)
    want_ecb = cipher.ecb_encrypt(data)
    want_aead = ascon_aead128_encrypt(key, nonce, b"", data)

    def work(_: int) -> tuple[bytes, bytes]:
        return cipher.ecb_encrypt(data), ascon_aead128_encrypt(key, nonce, b"", data)

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(work, range(16)))
    assert all(r == (want_ecb, want_aead) for r in results)


@pytest.mark.parametrize("name", NAMES)
def test_methods_accept_bytearray_and_memoryview_when_given_buffers(name: str) -> None:
    cipher = keyed(name)
    data = prng(f"{name}/buf", 24)
    iv = prng(f"{name}/buf-iv", 8)
    assert cipher.ecb_encrypt(bytearray(data)) == cipher.ecb_encrypt(memoryview(data))
    assert cipher.cbc_encrypt(bytearray(iv), memoryview(data)) == cipher.cbc_encrypt(iv, data)
    assert BlockCipher(
        name, bytearray(prng(f"{name}/key", BLOCK_CIPHER_PARAMS[name].key_size))
    ).ecb_encrypt(data) == cipher.ecb_encrypt(data)


@pytest.mark.parametrize("name", NAMES)
def test_different_keys_give_different_ciphertexts_when_plaintext_is_fixed(name: str) -> None:
    a, b = keyed(name, "a"), keyed(name, "b")
    assert a.ecb_encrypt(bytes(8)) != b.ecb_encrypt(bytes(8))
