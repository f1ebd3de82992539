"""Streaming implementations of the security mechanisms, for cipher-bench data sizes that
must not be held in memory (§7: above 1 MiB, up to 1 GiB and more).

The registry's mechanisms (``security/``) take a whole payload per call. Here each mechanism
family is split into calls the engine (``cipherbench``) times one by one over a stream of
chunks: ``start_forward``, ``forward(chunk)`` per chunk, ``finish_forward``, and the same
for the backward direction, which recovers each plaintext chunk (decrypt) or re-hashes the
data (verify). The wire bytes are the registry's framing (``header || pieces || trailer``,
e.g. ``iv || CBC(pad(data))``, ``nonce || ct || tag``, ``data || signature``) unless said
otherwise below, with the same algorithms and parameters:

- pycryptodome ciphers (AES-CBC/CTR/GCM, DES/3DES-CBC, RC4, ChaCha20-Poly1305): ONE cipher
  object per direction and repetition, fed chunk after chunk (pycryptodome's successive
  ``encrypt`` calls continue the chain, counter or keystream). CBC pads the last chunk
  only; AEADs produce/verify the tag once at the end.
- HMAC-SHA256 and the signatures hash the stream incrementally, then MAC/sign the digest.
  RSA (PKCS#1 v1.5, PSS) and ECDSA over SHA-256 give exactly the signature of the whole
  data. **Ed25519 is the exception**: pure Ed25519 (RFC 8032) hashes the message twice
  and cannot be streamed, so streamed sizes use Ed25519ph (RFC 8032 §5.1, the SHA-512
  prehash variant: pycryptodome's ``eddsa`` in ``rfc8032`` mode given a SHA512 hash
  object). Same curve and key, a different signature: numbers for the pure one (≤ 1 MiB)
  and the prehashed one (streamed) are not interchangeable for that reason.
- Native lightweight block ciphers (``_lwc``): ECB per chunk (padding on the last). The
  native ``cbc_encrypt``/``cbc_decrypt`` always add/strip PKCS#7, so a non-final chunk
  (whole blocks) comes out with one extra padding block, which the backward direction
  decrypts and strips again; the chain continues from the chunk's last ciphertext block.
  That is one extra block per chunk (8 B per 256 KiB), and the extra blocks are not
  part of the CBC wire format.
- Ascon-AEAD128: the native module seals one message per call, so the stream is sealed
  in segments (one per chunk), each ``ct || tag`` under the nonce with the segment number
  in its last 8 bytes and associated data ``0x01`` on the last segment, ``0x00`` before
  (the STREAM construction of Hoang, Reyhanitabar, Rogaway, Vizár 2015, as in age/Tink),
  so that reordering or truncation fails verification.
- null: a copy each way, the floor of the harness.
"""

from __future__ import annotations

import abc
import hmac as std_hmac
import os
import re
from typing import Any, Callable, ClassVar, Protocol

from Crypto.Cipher import AES, ARC4, DES, DES3, ChaCha20_Poly1305
from Crypto.Hash import HMAC, SHA256, SHA512
from Crypto.Signature import DSS, eddsa, pkcs1_15, pss
from iotsecbench_contract.mechanisms import MAC, NULL, SIGNATURE

from iotsecbench_agent.errors import AgentError
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.lightweight_mechanisms import block_cipher, load_native

ENCRYPT_OPS = ("encrypt", "decrypt")
SIGN_OPS = ("sign", "verify")

LWC_BLOCK_BYTES = 8
ASCON_NONCE_BYTES = 16
STREAM_NONCE_PREFIX_BYTES = 8  # Ascon segments: 8 random bytes || 8-byte segment number


class VerificationFailed(AgentError):
    """A decrypt did not give the plaintext back, or a tag/MAC/signature did not verify."""


class UnknownStream(AgentError):
    """No streaming implementation for this mechanism name."""


class Stream(abc.ABC):
    """One mechanism over a stream, split into separately timed calls.

    A pass is: ``start_forward``, ``start_backward``, then per chunk ``forward`` followed
    by ``backward`` of its output, then ``finish_forward`` and ``finish_backward``.
    ``header`` (IV/nonce) is set by ``start_forward``, ``trailer`` (tag/MAC/signature) by
    ``finish_forward``; wire bytes = header || forward outputs || trailer. Every chunk but
    the last is a whole number of cipher blocks (the engine's chunk size is a multiple).
    """

    operations: ClassVar[tuple[str, str]] = ENCRYPT_OPS

    def __init__(self) -> None:
        self.header = b""
        self.trailer = b""

    @abc.abstractmethod
    def start_forward(self) -> None: ...

    @abc.abstractmethod
    def forward(self, chunk: bytes, last: bool) -> bytes: ...

    def finish_forward(self) -> None:  # noqa: B027 - most families have nothing to finish
        pass

    @abc.abstractmethod
    def start_backward(self) -> None: ...

    @abc.abstractmethod
    def backward(self, piece: bytes, last: bool) -> bytes:
        """The plaintext of ``piece`` (ciphers), or ``piece`` itself once hashed."""

    def finish_backward(self) -> None:  # noqa: B027
        pass


class _Cipher(Protocol):
    def encrypt(self, plaintext: bytes) -> bytes: ...

    def decrypt(self, ciphertext: bytes) -> bytes: ...


def pkcs7_pad(data: bytes, block: int) -> bytes:
    n = block - len(data) % block
    return data + bytes((n,)) * n


def pkcs7_unpad(data: bytes, block: int) -> bytes:
    n = data[-1] if data else 0
    if not 1 <= n <= block or data[-n:] != bytes((n,)) * n:
        raise VerificationFailed("bad padding after decryption")
    return data[:-n]


class CbcStream(Stream):
    """pycryptodome CBC (AES, DES, 3DES): ``iv || CBC(iv, pad(data))``."""

    def __init__(self, new: Callable[[bytes], _Cipher], block: int) -> None:
        super().__init__()
        self._new = new
        self._block = block

    def start_forward(self) -> None:
        self.header = os.urandom(self._block)
        self._enc = self._new(self.header)

    def forward(self, chunk: bytes, last: bool) -> bytes:
        return self._enc.encrypt(pkcs7_pad(chunk, self._block) if last else chunk)

    def start_backward(self) -> None:
        self._dec = self._new(self.header)

    def backward(self, piece: bytes, last: bool) -> bytes:
        plain = self._dec.decrypt(piece)
        return pkcs7_unpad(plain, self._block) if last else plain


class KeystreamStream(Stream):
    """A stream cipher keyed per repetition from a random nonce: AES-CTR
    (``nonce(8) || ct``) and RC4 (``nonce(16) || ct``, keyed with key || nonce)."""

    def __init__(self, new: Callable[[bytes], _Cipher], nonce_bytes: int) -> None:
        super().__init__()
        self._new = new
        self._nonce_bytes = nonce_bytes

    def start_forward(self) -> None:
        self.header = os.urandom(self._nonce_bytes)
        self._enc = self._new(self.header)

    def forward(self, chunk: bytes, last: bool) -> bytes:
        return self._enc.encrypt(chunk)

    def start_backward(self) -> None:
        self._dec = self._new(self.header)

    def backward(self, piece: bytes, last: bool) -> bytes:
        return self._dec.decrypt(piece)


class AeadStream(Stream):
    """AES-GCM / ChaCha20-Poly1305 as one AEAD message: ``nonce(12) || ct || tag(16)``.
    The backward direction releases plaintext before the tag is checked at the end, as any
    streaming AEAD decryption does; the run fails if the tag does not verify."""

    def __init__(self, new: Callable[[bytes], Any]) -> None:
        super().__init__()
        self._new = new

    def start_forward(self) -> None:
        self.header = os.urandom(12)
        self._enc = self._new(self.header)

    def forward(self, chunk: bytes, last: bool) -> bytes:
        out: bytes = self._enc.encrypt(chunk)
        return out

    def finish_forward(self) -> None:
        self.trailer = self._enc.digest()

    def start_backward(self) -> None:
        self._dec = self._new(self.header)

    def backward(self, piece: bytes, last: bool) -> bytes:
        out: bytes = self._dec.decrypt(piece)
        return out

    def finish_backward(self) -> None:
        try:
            self._dec.verify(self.trailer)
        except ValueError:
            raise VerificationFailed("authentication tag does not verify") from None


class HmacStream(Stream):
    """HMAC-SHA256 over the stream: ``data || mac(32)``."""

    operations = SIGN_OPS

    def __init__(self, key: bytes) -> None:
        super().__init__()
        self._key = key

    def new_mac(self) -> Any:
        """A keyed HMAC-SHA256 object with ``update`` and ``digest`` (the library's)."""
        return HMAC.new(self._key, digestmod=SHA256)

    def start_forward(self) -> None:
        self._mac = self.new_mac()

    def forward(self, chunk: bytes, last: bool) -> bytes:
        self._mac.update(chunk)
        return chunk

    def finish_forward(self) -> None:
        self.trailer = self._mac.digest()

    def start_backward(self) -> None:
        self._check = self.new_mac()

    def backward(self, piece: bytes, last: bool) -> bytes:
        self._check.update(piece)
        return piece

    def finish_backward(self) -> None:
        if not std_hmac.compare_digest(self._check.digest(), self.trailer):
            raise VerificationFailed("MAC does not verify")


class SignatureStream(Stream):
    """Hash the stream incrementally, sign/verify the hash object: ``data || signature``."""

    operations = SIGN_OPS

    def __init__(self, scheme: Any, new_hash: Callable[[], Any]) -> None:
        super().__init__()
        self._scheme = scheme
        self._new_hash = new_hash

    def start_forward(self) -> None:
        self._hash = self._new_hash()

    def forward(self, chunk: bytes, last: bool) -> bytes:
        self._hash.update(chunk)
        return chunk

    def finish_forward(self) -> None:
        self.trailer = self._scheme.sign(self._hash)

    def start_backward(self) -> None:
        self._check = self._new_hash()

    def backward(self, piece: bytes, last: bool) -> bytes:
        self._check.update(piece)
        return piece

    def finish_backward(self) -> None:
        try:
            self._scheme.verify(self._check, self.trailer)
        except (ValueError, TypeError):
            raise VerificationFailed("signature does not verify") from None


class NullStream(Stream):
    """No cryptography: a copy each way (what moving the bytes costs)."""

    def start_forward(self) -> None:
        pass

    def forward(self, chunk: bytes, last: bool) -> bytes:
        return bytes(bytearray(chunk))

    def start_backward(self) -> None:
        pass

    def backward(self, piece: bytes, last: bool) -> bytes:
        return bytes(bytearray(piece))


class LwcEcbStream(Stream):
    """A native block cipher in ECB: ``ECB(pad(data))``."""

    def __init__(self, cipher: Any) -> None:
        super().__init__()
        self._cipher = cipher

    def start_forward(self) -> None:
        pass

    def forward(self, chunk: bytes, last: bool) -> bytes:
        out: bytes = self._cipher.ecb_encrypt(pkcs7_pad(chunk, LWC_BLOCK_BYTES) if last else chunk)
        return out

    def start_backward(self) -> None:
        pass

    def backward(self, piece: bytes, last: bool) -> bytes:
        plain: bytes = self._cipher.ecb_decrypt(piece)
        return pkcs7_unpad(plain, LWC_BLOCK_BYTES) if last else plain


class LwcCbcStream(Stream):
    """A native block cipher in CBC, ``iv(8) || CBC(iv, pad(data))``, one native call per
    chunk (see the module doc for the padding block of non-final chunks)."""

    def __init__(self, cipher: Any) -> None:
        super().__init__()
        self._cipher = cipher

    def start_forward(self) -> None:
        self.header = os.urandom(LWC_BLOCK_BYTES)
        self._enc_iv = self.header

    def forward(self, chunk: bytes, last: bool) -> bytes:
        out: bytes = self._cipher.cbc_encrypt(self._enc_iv, chunk)
        if not last:
            n = len(chunk)
            self._enc_iv = out[n - LWC_BLOCK_BYTES : n]
        return out

    def start_backward(self) -> None:
        self._dec_iv = self.header

    def backward(self, piece: bytes, last: bool) -> bytes:
        try:
            plain: bytes = self._cipher.cbc_decrypt(self._dec_iv, piece)
        except ValueError:
            raise VerificationFailed("bad padding after decryption") from None
        if not last:
            n = len(plain)
            self._dec_iv = piece[n - LWC_BLOCK_BYTES : n]
        return plain


class AsconSegmentStream(Stream):
    """Ascon-AEAD128 sealed per segment (STREAM construction, see the module doc)."""

    def __init__(self, native: Any, key: bytes) -> None:
        super().__init__()
        self._native = native
        self._key = key

    def _nonce(self, index: int) -> bytes:
        return self.header + index.to_bytes(ASCON_NONCE_BYTES - STREAM_NONCE_PREFIX_BYTES, "big")

    def start_forward(self) -> None:
        self.header = os.urandom(STREAM_NONCE_PREFIX_BYTES)
        self._enc_index = 0

    def forward(self, chunk: bytes, last: bool) -> bytes:
        nonce = self._nonce(self._enc_index)
        self._enc_index += 1
        out: bytes = self._native.ascon_aead128_encrypt(
            self._key, nonce, b"\x01" if last else b"\x00", chunk
        )
        return out

    def start_backward(self) -> None:
        self._dec_index = 0

    def backward(self, piece: bytes, last: bool) -> bytes:
        nonce = self._nonce(self._dec_index)
        self._dec_index += 1
        try:
            plain: bytes = self._native.ascon_aead128_decrypt(
                self._key, nonce, b"\x01" if last else b"\x00", piece
            )
        except ValueError:
            raise VerificationFailed("authentication tag does not verify") from None
        return plain


# -- keys and the name table -------------------------------------------------------------

_AES = re.compile(r"aes-(128|192|256)-(cbc|ctr|gcm)")
_RSA = re.compile(r"rsa-(\d+)-(pkcs1v15|pss)")
_LWC = re.compile(r"(.+)-(ecb|cbc)")


def operations(name: str) -> tuple[str, str]:
    """The two operations mechanism ``name`` is measured with (UnknownMechanism if the
    registry does not know it)."""
    return SIGN_OPS if registry.describe(name).kind in (MAC, SIGNATURE) else ENCRYPT_OPS


def generate_key(name: str) -> bytes:
    """Fresh key material for ``name`` in a form ``registry.create(name, key=...)`` and
    ``make_stream`` both take: raw key bytes for symmetric mechanisms, the DER private key
    for RSA and ECDSA, the 32-byte RFC 8032 secret for Ed25519, nothing for ``null``."""
    info = registry.describe(name)
    if info.kind == NULL:
        return b""
    rsa = _RSA.fullmatch(name)
    if rsa:
        key: bytes = registry.rsa_key(info, int(rsa.group(1)), None, None).export_key(format="DER")
        return key
    if name == "ecdsa-p256":
        der: bytes = registry.ecc_key(info, "P-256", None, None).export_key(format="DER")
        return der
    if name == "ed25519":
        seed: bytes = registry.ecc_key(info, "Ed25519", None, None).seed
        return seed
    return registry.symmetric_key(info, None, None)


def make_stream(name: str, key: bytes) -> Stream:
    """The streaming implementation of mechanism ``name`` keyed with ``generate_key``'s
    material (key schedules, key imports and scheme objects happen here, untimed).
    Raises UnknownStream for a name this module has no streaming code for."""
    info = registry.describe(name)
    if info.kind == NULL:
        return NullStream()
    aes = _AES.fullmatch(name)
    if aes:
        mode = aes.group(2)
        if mode == "cbc":
            return CbcStream(lambda iv: AES.new(key, AES.MODE_CBC, iv=iv), AES.block_size)
        if mode == "ctr":
            return KeystreamStream(lambda nonce: AES.new(key, AES.MODE_CTR, nonce=nonce), 8)
        return AeadStream(lambda nonce: AES.new(key, AES.MODE_GCM, nonce=nonce, mac_len=16))
    if name == "des-cbc":
        # DES is broken; it is measured because the paper measured it.
        return CbcStream(lambda iv: DES.new(key, DES.MODE_CBC, iv=iv), DES.block_size)  # noqa: S304
    if name == "3des-cbc":
        return CbcStream(lambda iv: DES3.new(key, DES3.MODE_CBC, iv=iv), DES3.block_size)
    if name == "rc4":
        return KeystreamStream(lambda nonce: ARC4.new(key + nonce), 16)
    if name == "chacha20-poly1305":
        return AeadStream(lambda nonce: ChaCha20_Poly1305.new(key=key, nonce=nonce))
    if name == "hmac-sha256":
        return HmacStream(key)
    rsa = _RSA.fullmatch(name)
    if rsa:
        rsa_key = registry.rsa_key(info, int(rsa.group(1)), key, None)
        scheme = pss.new(rsa_key) if rsa.group(2) == "pss" else pkcs1_15.new(rsa_key)
        return SignatureStream(scheme, SHA256.new)
    if name == "ecdsa-p256":
        ecdsa_key = registry.ecc_key(info, "P-256", key, None)
        return SignatureStream(DSS.new(ecdsa_key, "deterministic-rfc6979", "binary"), SHA256.new)
    if name == "ed25519":
        # Ed25519ph: eddsa in rfc8032 mode signs a SHA512 hash object as the prehash variant.
        ed_key = registry.ecc_key(info, "Ed25519", key, None)
        return SignatureStream(eddsa.new(ed_key, "rfc8032"), SHA512.new)
    if name == "ascon-aead128":
        return AsconSegmentStream(load_native(), key)
    lwc = _LWC.fullmatch(name)
    if info.native and lwc:
        cipher = block_cipher(lwc.group(1), key)
        return LwcEcbStream(cipher) if lwc.group(2) == "ecb" else LwcCbcStream(cipher)
    raise UnknownStream(f"no streaming implementation of mechanism {name!r}")
