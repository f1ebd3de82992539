"""Error handling of the native lightweight ciphers: keys, lengths, padding, tags."""

from __future__ import annotations

import hashlib

import pytest

from iotsecbench_agent import _lwc
from iotsecbench_agent.security.lightweight import (
    ASCON_AEAD128,
    BLOCK_CIPHER_PARAMS,
    BlockCipher,
    ascon_aead128_decrypt,
    ascon_aead128_encrypt,
    block_cipher,
    cbc_ciphertext_size,
)

NAMES = list(BLOCK_CIPHER_PARAMS)
KEY, NONCE = bytes(range(16)), bytes(range(16, 32))


def keyed(name: str) -> BlockCipher:
    return block_cipher(name, hashlib.sha256(name.encode()).digest()[: key_size(name)])


def key_size(name: str) -> int:
    return BLOCK_CIPHER_PARAMS[name].key_size


def cbc_without_padding(cipher: BlockCipher, iv: bytes, blocks: bytes) -> bytes:
    out, chain = b"", iv
    for i in range(0, len(blocks), 8):
        chain = cipher.ecb_encrypt(bytes(a ^ b for a, b in zip(blocks[i : i + 8], chain)))
        out += chain
    return out


@pytest.mark.parametrize("name", NAMES)
def test_block_cipher_reports_expected_key_length_when_key_is_too_short_or_long(
    name: str,
) -> None:
    size = key_size(name)
    for wrong in (0, size - 1, size + 1, 32):
        with pytest.raises(ValueError, match=rf"must be {size} bytes \({8 * size} bits\)"):
            block_cipher(name, bytes(wrong))


def test_block_cipher_lists_known_names_when_name_is_unknown() -> None:
    with pytest.raises(ValueError, match="unknown block cipher 'aes'; expected one of: tea, xtea"):
        block_cipher("aes", bytes(16))


def test_block_cipher_rejects_non_bytes_when_key_is_a_str() -> None:
    with pytest.raises(TypeError):
        BlockCipher("tea", "0123456789abcdef")  # type: ignore[arg-type]


@pytest.mark.parametrize("name", NAMES)
def test_block_cipher_exposes_its_parameters_when_constructed(name: str) -> None:
    cipher = keyed(name)
    params = BLOCK_CIPHER_PARAMS[name]
    assert (cipher.name, cipher.block_size, cipher.key_size, cipher.rounds) == (
        params.name,
        params.block_size,
        params.key_size,
        params.rounds,
    )
    assert repr(cipher) == f"<BlockCipher {name}>"


def test_parameter_table_matches_the_extension_when_compared() -> None:
    assert tuple(BLOCK_CIPHER_PARAMS) == _lwc.BLOCK_CIPHERS
    assert _lwc.BLOCK_SIZE == 8
    sizes = (_lwc.ASCON_KEY_SIZE, _lwc.ASCON_NONCE_SIZE, _lwc.ASCON_TAG_SIZE)
    assert sizes == (ASCON_AEAD128.key_size, ASCON_AEAD128.nonce_size, ASCON_AEAD128.tag_size)


@pytest.mark.parametrize("name", NAMES)
def test_ecb_raises_value_error_when_data_is_not_whole_blocks(name: str) -> None:
    cipher = keyed(name)
    for n in (1, 7, 9, 15, 17):
        with pytest.raises(ValueError, match=f"multiple of 8 bytes, got {n}"):
            cipher.ecb_encrypt(bytes(n))
        with pytest.raises(ValueError, match=f"multiple of 8 bytes, got {n}"):
            cipher.ecb_decrypt(bytes(n))


@pytest.mark.parametrize("name", NAMES)
def test_cbc_raises_value_error_when_iv_is_not_8_bytes(name: str) -> None:
    cipher = keyed(name)
    for n in (0, 7, 9, 16):
        with pytest.raises(ValueError, match=f"iv must be 8 bytes, got {n}"):
            cipher.cbc_encrypt(bytes(n), b"x")
        with pytest.raises(ValueError, match=f"iv must be 8 bytes, got {n}"):
            cipher.cbc_decrypt(bytes(n), bytes(8))


@pytest.mark.parametrize("name", NAMES)
def test_cbc_decrypt_raises_value_error_when_ciphertext_is_empty_or_ragged(name: str) -> None:
    cipher = keyed(name)
    for n in (0, 1, 7, 9, 23):
        with pytest.raises(ValueError, match="positive multiple of 8 bytes"):
            cipher.cbc_decrypt(bytes(8), bytes(n))


BAD_LAST_BLOCKS = [
    bytes(8),  # pad byte 0
    b"ABCDEFG\x09",  # pad byte 9 > block size
    b"ABCDEFG\xff",
    b"ABCDE\x01\x02\x03",  # says 3, the two before are not 3
    b"ABC\x06\x05\x05\x05\x05",  # says 5, the first of the five is 6
    b"\x07" * 7 + b"\x08",  # says 8, the first seven are 7
]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("last", BAD_LAST_BLOCKS, ids=lambda b: b.hex())
def test_cbc_decrypt_raises_bad_padding_when_last_block_padding_is_invalid(
    name: str, last: bytes
) -> None:
    cipher = keyed(name)
    iv = bytes(range(8))
    for head in (b"", b"0123456789abcdef"):  # one block alone, and after two others
        ct = cbc_without_padding(cipher, iv, head + last)
        with pytest.raises(ValueError, match=r"^bad padding$"):
            cipher.cbc_decrypt(iv, ct)


@pytest.mark.parametrize("name", NAMES)
def test_cbc_decrypt_strips_every_valid_padding_when_pad_is_1_to_8(name: str) -> None:
    cipher = keyed(name)
    iv = bytes(range(8))
    for pad in range(1, 9):
        block = b"Z" * (8 - pad) + bytes([pad]) * pad
        assert cipher.cbc_decrypt(iv, cbc_without_padding(cipher, iv, block)) == b"Z" * (8 - pad)


@pytest.mark.parametrize("name", NAMES)
def test_methods_raise_type_error_when_called_with_wrong_arguments(name: str) -> None:
    cipher = keyed(name)
    with pytest.raises(TypeError, match=r"ecb_encrypt\(\) takes exactly 1 argument \(0 given\)"):
        cipher.ecb_encrypt()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"takes exactly 2 arguments \(1 given\)"):
        cipher.cbc_encrypt(bytes(8))  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        cipher.ecb_encrypt("not bytes")  # type: ignore[arg-type]


def test_cbc_ciphertext_size_rejects_negative_when_size_is_below_zero() -> None:
    assert [cbc_ciphertext_size(n) for n in (0, 7, 8, 9)] == [8, 8, 16, 16]
    with pytest.raises(ValueError, match="negative"):
        cbc_ciphertext_size(-1)


def sealed(pt: bytes = b"attack at dawn", ad: bytes = b"hdr") -> bytes:
    return ascon_aead128_encrypt(KEY, NONCE, ad, pt)


def test_ascon_decrypt_raises_tag_mismatch_when_any_byte_is_flipped() -> None:
    good = sealed()
    for i in range(len(good)):  # every ciphertext and every tag byte
        bad = bytearray(good)
        bad[i] ^= 0x01
        with pytest.raises(ValueError, match=r"^tag mismatch$"):
            ascon_aead128_decrypt(KEY, NONCE, b"hdr", bytes(bad))


def test_ascon_decrypt_raises_tag_mismatch_when_ad_nonce_or_key_differ() -> None:
    good = sealed()
    other = bytes(16)
    for key, nonce, ad in ((KEY, NONCE, b"hdR"), (KEY, NONCE, b""), (KEY, other, b"hdr")):
        with pytest.raises(ValueError, match=r"^tag mismatch$"):
            ascon_aead128_decrypt(key, nonce, ad, good)
    with pytest.raises(ValueError, match=r"^tag mismatch$"):
        ascon_aead128_decrypt(other, NONCE, b"hdr", good)


def test_ascon_decrypt_raises_tag_mismatch_when_ciphertext_is_truncated_or_extended() -> None:
    good = sealed(pt=bytes(40))
    for bad in (good[:-1], good[1:], good + b"\x00", good[:16]):
        with pytest.raises(ValueError, match=r"^tag mismatch$"):
            ascon_aead128_decrypt(KEY, NONCE, b"hdr", bad)


def test_ascon_decrypt_raises_value_error_when_input_is_shorter_than_the_tag() -> None:
    for n in (0, 1, 15):
        with pytest.raises(ValueError, match="at least 16 bytes"):
            ascon_aead128_decrypt(KEY, NONCE, b"", bytes(n))


def test_ascon_raises_value_error_when_key_or_nonce_is_not_16_bytes() -> None:
    for n in (0, 15, 17, 32):
        with pytest.raises(ValueError, match=f"key must be 16 bytes, got {n}"):
            ascon_aead128_encrypt(bytes(n), NONCE, b"", b"")
        with pytest.raises(ValueError, match=f"nonce must be 16 bytes, got {n}"):
            ascon_aead128_encrypt(KEY, bytes(n), b"", b"")
        with pytest.raises(ValueError, match=f"key must be 16 bytes, got {n}"):
            ascon_aead128_decrypt(bytes(n), NONCE, b"", bytes(16))


def test_ascon_raises_type_error_when_called_with_wrong_arguments() -> None:
    with pytest.raises(TypeError, match=r"takes exactly 4 arguments \(3 given\)"):
        ascon_aead128_encrypt(KEY, NONCE, b"")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        ascon_aead128_encrypt(KEY, NONCE, "ad", b"")  # type: ignore[arg-type]
