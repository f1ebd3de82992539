"""Mechanisms over the native lightweight ciphers (``iotsecbench_agent._lwc``, a C
extension): TEA, XTEA, PRESENT-80/128, KLEIN-64/80/96, LBlock in ECB and CBC, and
Ascon-AEAD128.

The extension is imported when a mechanism is built, never at package import, so the
agent (and every other mechanism) works on a host where it was not compiled; building one
there raises MechanismError. Each message is one native call: the C code, not the
interpreter, is what gets timed.
"""

from __future__ import annotations

import importlib
from typing import Protocol, cast

from iotsecbench_contract.mechanisms import (
    ASCON_NONCE_BYTES,
    ASCON_TAG_BYTES,
    LIGHTWEIGHT_CIPHERS,
    LWC_BLOCK_BYTES,
    MechanismInfo,
)

from iotsecbench_agent.security.base import (
    DEFAULT_RANDOM,
    DecryptError,
    Mechanism,
    MechanismError,
    RandomBytes,
    pkcs7_pad,
    pkcs7_unpad,
)
from iotsecbench_agent.security.mechanisms import KeyedMechanism, RandomNonces

NATIVE_MODULE = "iotsecbench_agent._lwc"
# Native cipher name -> key bytes (the extension's contract).
BLOCK_CIPHER_KEY_BYTES = {cipher: key for cipher, (_, key) in LIGHTWEIGHT_CIPHERS.items()}


class NativeBlockCipher(Protocol):
    """``_lwc.BlockCipher``: one key schedule, whole-block ECB, CBC with PKCS#7."""

    block_size: int

    def ecb_encrypt(self, data: bytes) -> bytes: ...

    def ecb_decrypt(self, data: bytes) -> bytes: ...

    def cbc_encrypt(self, iv: bytes, plaintext: bytes) -> bytes: ...

    def cbc_decrypt(self, iv: bytes, ciphertext: bytes) -> bytes: ...


class NativeModule(Protocol):
    """The part of ``iotsecbench_agent._lwc`` these adapters use."""

    def BlockCipher(self, name: str, key: bytes) -> NativeBlockCipher: ...

    def ascon_aead128_encrypt(self, key: bytes, nonce: bytes, ad: bytes, pt: bytes) -> bytes: ...

    def ascon_aead128_decrypt(
        self, key: bytes, nonce: bytes, ad: bytes, ct_tag: bytes
    ) -> bytes: ...


def load_native() -> NativeModule:
    """The native module, or MechanismError saying it is not built here."""
    try:
        module = importlib.import_module(NATIVE_MODULE)
    except ImportError as exc:
        raise MechanismError(
            f"lightweight ciphers need the native module {NATIVE_MODULE}, which is not "
            f"available on this device ({exc}); reinstall the agent with a C compiler"
        ) from None
    return cast(NativeModule, module)


def native_available() -> bool:
    try:
        load_native()
    except MechanismError:
        return False
    return True


def block_cipher(name: str, key: bytes) -> NativeBlockCipher:
    """A native block cipher with its key schedule done, or MechanismError."""
    expected = BLOCK_CIPHER_KEY_BYTES.get(name)
    if expected is None:
        raise MechanismError(f"unknown lightweight block cipher {name!r}")
    if len(key) != expected:
        raise MechanismError(
            f"{name} needs a {expected}-byte key ({expected * 8} bits), got {len(key)} bytes"
        )
    native = load_native()
    try:
        return native.BlockCipher(name, key)
    except ValueError as exc:
        raise MechanismError(f"{name}: {exc}") from None


class LwcEcb(Mechanism):
    """``ECB(pad(payload))``: PKCS#7 to 8 bytes in Python, then one native ECB call. ECB
    leaks equal blocks; it is here because the MQTT-SN paper measured block ciphers bare."""

    def __init__(self, info: MechanismInfo, *, cipher: NativeBlockCipher) -> None:
        super().__init__(info)
        self.cipher = cipher

    def secure(self, payload: bytes) -> bytes:
        return self.cipher.ecb_encrypt(pkcs7_pad(payload, LWC_BLOCK_BYTES))

    def unsecure(self, data: bytes) -> bytes:
        if not data or len(data) % LWC_BLOCK_BYTES:
            raise DecryptError(f"{self.name}: frame of {len(data)} bytes is not whole blocks")
        return pkcs7_unpad(self.cipher.ecb_decrypt(data), LWC_BLOCK_BYTES, self.name)


class LwcCbc(RandomNonces):
    """``iv(8) || CBC(iv, pad(payload))``: one native call each way (padding included)."""

    def __init__(
        self,
        info: MechanismInfo,
        *,
        cipher: NativeBlockCipher,
        random_bytes: RandomBytes = DEFAULT_RANDOM,
    ) -> None:
        super().__init__(info, random_bytes=random_bytes)
        self.cipher = cipher

    def secure(self, payload: bytes) -> bytes:
        iv = self._random(LWC_BLOCK_BYTES)
        return iv + self.cipher.cbc_encrypt(iv, payload)

    def unsecure(self, data: bytes) -> bytes:
        if len(data) < 2 * LWC_BLOCK_BYTES or len(data) % LWC_BLOCK_BYTES:
            raise DecryptError(
                f"{self.name}: frame of {len(data)} bytes is not an 8-byte IV and whole blocks"
            )
        try:
            return self.cipher.cbc_decrypt(data[:LWC_BLOCK_BYTES], data[LWC_BLOCK_BYTES:])
        except ValueError:
            raise DecryptError(f"{self.name}: bad padding") from None


class AsconAead128(KeyedMechanism):
    """Ascon-AEAD128 (NIST SP 800-232): ``nonce(16) || ciphertext || tag(16)``."""

    def __init__(
        self,
        info: MechanismInfo,
        *,
        native: NativeModule,
        key: bytes,
        random_bytes: RandomBytes = DEFAULT_RANDOM,
    ) -> None:
        super().__init__(info, key=key, random_bytes=random_bytes)
        self._native = native

    def seal(self, nonce: bytes, ad: bytes, plaintext: bytes) -> bytes:
        return self._native.ascon_aead128_encrypt(self._key, nonce, ad, plaintext)

    def open(self, nonce: bytes, ad: bytes, sealed: bytes) -> bytes:
        try:
            return self._native.ascon_aead128_decrypt(self._key, nonce, ad, sealed)
        except ValueError:
            raise DecryptError(f"{self.name}: authentication tag does not verify") from None

    def secure(self, payload: bytes) -> bytes:
        nonce = self._random(ASCON_NONCE_BYTES)
        return nonce + self._native.ascon_aead128_encrypt(self._key, nonce, b"", payload)

    def unsecure(self, data: bytes) -> bytes:
        if len(data) < ASCON_NONCE_BYTES + ASCON_TAG_BYTES:
            raise DecryptError(f"{self.name}: frame of {len(data)} bytes is too short")
        return self.open(data[:ASCON_NONCE_BYTES], b"", data[ASCON_NONCE_BYTES:])
