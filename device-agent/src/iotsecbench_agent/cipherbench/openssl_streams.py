"""Streaming implementations of the ``openssl`` crypto library's mechanisms (through the
``cryptography`` binding), for cipher-bench data above 1 MiB: the same framing and the same
families as ``streams`` (one OpenSSL context per direction and repetition, fed chunk after
chunk; CBC pads the last chunk; GCM's tag made and checked once at the end; HMAC over the
stream), over OpenSSL contexts instead of pycryptodome objects.
"""

from __future__ import annotations

from typing import Any, Callable

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.decrepit.ciphers.algorithms import ARC4, TripleDES
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import hmac as c_hmac
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from iotsecbench_contract.mechanisms import NULL

from iotsecbench_agent.cipherbench.streams import (
    AeadStream,
    CbcStream,
    HmacStream,
    KeystreamStream,
    NullStream,
    Stream,
    UnknownStream,
)
from iotsecbench_agent.security import registry

_CTR_ZERO = bytes(8)


class _Context:
    """An OpenSSL context as the ``streams`` families call a cipher object: ``encrypt`` /
    ``decrypt`` continue it; for GCM ``digest`` ends encryption and ``verify`` decryption."""

    def __init__(self, cipher: Cipher[Any]) -> None:
        self._cipher = cipher
        self._enc: Any = None
        self._dec: Any = None

    def encrypt(self, data: bytes) -> bytes:
        if self._enc is None:
            self._enc = self._cipher.encryptor()
        out: bytes = self._enc.update(data)
        return out

    def decrypt(self, data: bytes) -> bytes:
        if self._dec is None:
            self._dec = self._cipher.decryptor()
        out: bytes = self._dec.update(data)
        return out

    def digest(self) -> bytes:
        self._enc.finalize()
        tag: bytes = self._enc.tag
        return tag

    def verify(self, tag: bytes) -> None:
        try:
            self._dec.finalize_with_tag(tag)
        except InvalidTag:
            raise ValueError("tag") from None


class _OpensslMac:
    """OpenSSL's HMAC-SHA256 with the ``update``/``digest`` of ``HmacStream``'s MAC."""

    def __init__(self, key: bytes) -> None:
        self._mac = c_hmac.HMAC(key, hashes.SHA256())
        self.update = self._mac.update

    def digest(self) -> bytes:
        return self._mac.finalize()


class OpensslHmacStream(HmacStream):
    """HMAC-SHA256 over the stream with OpenSSL's HMAC."""

    def new_mac(self) -> Any:
        return _OpensslMac(self._key)


def _cbc(algorithm: Any) -> Callable[[bytes], _Context]:
    return lambda iv: _Context(Cipher(algorithm, modes.CBC(iv)))


def make_openssl_stream(name: str, key: bytes) -> Stream:
    """The streaming implementation of ``name`` in the ``openssl`` library (UnknownStream
    for a mechanism it does not provide)."""
    info = registry.describe(name)
    if info.kind == NULL:
        return NullStream()
    if name.startswith("aes-"):
        aes = algorithms.AES(key)
        if name.endswith("-cbc"):
            return CbcStream(_cbc(aes), 16)
        if name.endswith("-ctr"):
            return KeystreamStream(
                lambda nonce: _Context(Cipher(aes, modes.CTR(nonce + _CTR_ZERO))), 8
            )
        if name.endswith("-gcm"):
            return AeadStream(lambda nonce: _Context(Cipher(aes, modes.GCM(nonce))))
    if name == "des-cbc":
        return CbcStream(_cbc(TripleDES(key * 3)), 8)  # K1 = K2 = K3: DES
    if name == "3des-cbc":
        return CbcStream(_cbc(TripleDES(key)), 8)
    if name == "rc4":
        return KeystreamStream(lambda nonce: _Context(Cipher(ARC4(key + nonce), None)), 16)
    if name == "hmac-sha256":
        return OpensslHmacStream(key)
    raise UnknownStream(f"no openssl streaming implementation of mechanism {name!r}")
