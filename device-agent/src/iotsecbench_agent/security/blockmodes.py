"""Bare block-cipher ECB and CBC with explicit key and IV, for ``iotsecbench-agent encrypt``:
check a device's ciphers against any published vector by hand.

ECB takes whole blocks and adds no padding (the form vectors are published in); CBC pads
with PKCS#7 and needs the IV. Cipher names: ``aes-128``, ``aes-192``, ``aes-256``, ``des``,
``3des`` (3-key) and the native lightweight ciphers (``tea``, ``present-80``, ...); a
mechanism name such as ``aes-128-cbc`` or ``tea-ecb`` names its cipher too.
"""

from __future__ import annotations

from Crypto.Cipher import AES, DES, DES3
from iotsecbench_contract.mechanisms import LWC_BLOCK_BYTES

from iotsecbench_agent.security import lightweight_mechanisms as lwc
from iotsecbench_agent.security.base import MechanismError, pkcs7_pad

ECB = "ecb"
CBC = "cbc"
MODES = (ECB, CBC)

# name -> (key bytes, block bytes) for the pycryptodome ciphers.
LIBRARY_CIPHERS = {
    "aes-128": (16, 16),
    "aes-192": (24, 16),
    "aes-256": (32, 16),
    "des": (8, 8),
    "3des": (24, 8),
}


def cipher_names() -> list[str]:
    return [*LIBRARY_CIPHERS, *lwc.BLOCK_CIPHER_KEY_BYTES]


def cipher_name(name: str) -> str:
    """The block cipher a (cipher or mechanism) name means, or MechanismError."""
    base = name.lower()
    for suffix in ("-ecb", "-cbc"):
        base = base.removesuffix(suffix)
    if base in LIBRARY_CIPHERS or base in lwc.BLOCK_CIPHER_KEY_BYTES:
        return base
    raise MechanismError(f"{name!r} is not a block cipher; one of: {', '.join(cipher_names())}")


def encrypt(name: str, mode: str, key: bytes, data: bytes, iv: bytes | None = None) -> bytes:
    """``data`` encrypted with block cipher ``name`` in ``mode``; MechanismError (with a
    message for the user) on a wrong key, IV or data length."""
    cipher = cipher_name(name)
    if mode not in MODES:
        raise MechanismError(f"mode must be ecb or cbc, got {mode!r}")
    if cipher in LIBRARY_CIPHERS:
        key_bytes, block = LIBRARY_CIPHERS[cipher]
    else:
        key_bytes, block = lwc.BLOCK_CIPHER_KEY_BYTES[cipher], LWC_BLOCK_BYTES
    if len(key) != key_bytes:
        raise MechanismError(
            f"{cipher} needs a {key_bytes}-byte key ({key_bytes * 8} bits), got {len(key)} bytes"
        )
    if mode == ECB:
        if iv is not None:
            raise MechanismError("ECB takes no IV")
        if not data or len(data) % block:
            raise MechanismError(
                f"ECB takes whole {block}-byte blocks and adds no padding; got {len(data)} bytes"
            )
    else:
        if iv is None:
            raise MechanismError(f"CBC needs an IV (--iv, {block} bytes)")
        if len(iv) != block:
            raise MechanismError(f"{cipher} CBC needs a {block}-byte IV, got {len(iv)} bytes")
    if cipher not in LIBRARY_CIPHERS:
        native = lwc.block_cipher(cipher, key)
        return native.ecb_encrypt(data) if mode == ECB else native.cbc_encrypt(iv or b"", data)
    try:
        return _library_encrypt(cipher, mode, key, data, iv or b"")
    except ValueError as exc:  # e.g. a 3DES key that degenerates to single DES
        raise MechanismError(f"{cipher}: {exc}") from None


def _library_encrypt(cipher: str, mode: str, key: bytes, data: bytes, iv: bytes) -> bytes:
    if cipher.startswith("aes"):
        if mode == ECB:
            return AES.new(key, AES.MODE_ECB).encrypt(data)
        return AES.new(key, AES.MODE_CBC, iv=iv).encrypt(pkcs7_pad(data, 16))
    if cipher == "3des":
        if mode == ECB:
            return DES3.new(key, DES3.MODE_ECB).encrypt(data)
        return DES3.new(key, DES3.MODE_CBC, iv=iv).encrypt(pkcs7_pad(data, 8))
    # DES is broken; it is here because the papers measured it.
    if mode == ECB:
        return DES.new(key, DES.MODE_ECB).encrypt(data)  # noqa: S304
    return DES.new(key, DES.MODE_CBC, iv=iv).encrypt(pkcs7_pad(data, 8))  # noqa: S304
