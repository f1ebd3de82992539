"""The mechanisms implemented with pycryptodome, and the two without cryptography.

What happens once per run (constructor) and what per message (``secure``/``unsecure``),
and why — the per-message path is kept as short as the library allows:

- CBC (AES, DES, 3DES): pycryptodome fixes the IV when a cipher object is created, and
  creating one (key schedule plus Python set-up) costs more than encrypting a small
  message. So each direction keeps ONE CBC object for the whole run, and every message
  continues its chain: the documented behaviour that ``c.encrypt(a) + c.encrypt(b) ==
  c.encrypt(a + b)``. To give a message its own random IV we pre-whiten its first block
  with ``iv XOR previous-ciphertext-block``, which the chain XORs in again:
  ``E(prev ^ (p1 ^ iv ^ prev)) = E(p1 ^ iv)``, exactly CBC under ``iv`` (decryption undoes
  it the same way; any ordinary CBC receiver reads the frames). Public API only; measured
  about 2x faster than ``AES.new`` per message for AES and 3-4x for 3DES at 16-64 bytes,
  and faster than CBC written in Python over an ECB object at every size (figures and
  command in docs/security-mechanisms.md). The known-answer tests run after a warm-up
  message, so the chaining is what they check.
- CTR, GCM, ChaCha20-Poly1305 and RC4 take their nonce (or key) at object creation and
  have no way to change it, so they need one object per message. Building CTR keystream
  from a long-lived ECB object in Python was faster below ~1 KB but slower above it, and
  would be our mode, not the library's: not done.
- HMAC: ``HMAC.new`` per message measured faster than copying a keyed prototype.
- Signatures: the key import and the signer/verifier objects (``pkcs1_15.new``,
  ``pss.new``, ``DSS.new``, ``eddsa.new``) are built once; per message only the hash and
  the signature or verification.
"""

from __future__ import annotations

import abc
import hmac as std_hmac
from typing import Protocol

from Crypto.Cipher import AES, ARC4, ChaCha20_Poly1305
from Crypto.Hash import HMAC, SHA256
from Crypto.PublicKey.ECC import EccKey
from Crypto.PublicKey.RSA import RsaKey
from Crypto.Signature import DSS, eddsa, pkcs1_15, pss
from iotsecbench_contract.mechanisms import (
    AEAD_NONCE_BYTES,
    AEAD_TAG_BYTES,
    CTR_NONCE_BYTES,
    ED25519_SIGNATURE_BYTES,
    HMAC_SHA256_BYTES,
    NULL_FRAME_BYTES,
    RC4_NONCE_BYTES,
    MechanismInfo,
)

from iotsecbench_agent.security.base import (
    DEFAULT_RANDOM,
    DecryptError,
    Mechanism,
    MechanismError,
    RandomBytes,
    SignatureError,
)

_from_bytes = int.from_bytes  # one global look-up per use instead of ``int`` and its attribute


class NoneMechanism(Mechanism):
    """No security: the payload goes on the wire as it is."""

    def secure(self, payload: bytes) -> bytes:
        return payload

    def unsecure(self, data: bytes) -> bytes:
        return data


class NullMechanism(Mechanism):
    """A cipher's framing without the cipher: ``zeros(16) || payload``.

    ``secure`` copies the payload into a new frame as a cipher's output would be, and
    ``unsecure`` checks the frame and slices the payload out: what any mechanism costs on
    top of its cryptography. Subtracting its times from a cipher's leaves the cipher.
    """

    _FRAME = bytes(NULL_FRAME_BYTES)

    def secure(self, payload: bytes) -> bytes:
        return self._FRAME + payload

    def unsecure(self, data: bytes) -> bytes:
        if len(data) < NULL_FRAME_BYTES:
            raise DecryptError(f"{self.name}: frame of {len(data)} bytes is too short")
        return data[NULL_FRAME_BYTES:]


class RandomNonces(Mechanism):
    """A mechanism that draws a fresh random IV or nonce per message (``_random``;
    ``random_bytes`` is for known-answer tests)."""

    def __init__(self, info: MechanismInfo, *, random_bytes: RandomBytes = DEFAULT_RANDOM) -> None:
        super().__init__(info)
        self._random = random_bytes


class KeyedMechanism(RandomNonces):
    """A ``RandomNonces`` mechanism with a secret key (``_key``)."""

    def __init__(
        self, info: MechanismInfo, *, key: bytes, random_bytes: RandomBytes = DEFAULT_RANDOM
    ) -> None:
        super().__init__(info, random_bytes=random_bytes)
        self._key = key


class Chain(Protocol):
    """A pycryptodome CBC object (encrypt or decrypt direction)."""

    def encrypt(self, plaintext: bytes) -> bytes: ...

    def decrypt(self, ciphertext: bytes) -> bytes: ...


class ChainedCbc(Mechanism):
    """CBC with PKCS#7 and a random IV per message: ``iv || CBC(iv, pad(payload))``.

    ``new_chain`` builds a CBC object with a zero IV (e.g. ``AES.new(key, MODE_CBC,
    iv=zeros)``); one encrypts and one decrypts for the whole run (see the module doc).

    The per-message path does the trick's calls and copies and little else: ``secure`` and
    ``unsecure`` are functions made here, per instance, over the chains' bound
    ``encrypt``/``decrypt``, the padding strings of every length (``pads[n]`` is ``n``
    bytes of value ``n``) and the chain state, so a message costs no attribute look-up,
    no padding helper call and no padding string built. Measured on a 16-byte AES message
    (~3.9 µs): the padding strings made once saved 0.1-0.3 µs against ``pkcs7_pad`` /
    ``pkcs7_unpad``; closures instead of methods reading ``self._...`` another 1-2 %
    (docs/benchmarks.md, "The harness overhead").
    """

    def __init__(
        self,
        info: MechanismInfo,
        *,
        new_chain: _NewChain,
        block: int,
        random_bytes: RandomBytes = DEFAULT_RANDOM,
    ) -> None:
        super().__init__(info)
        name = info.name
        bs = block
        encrypt = new_chain().encrypt
        decrypt = new_chain().decrypt
        pads = tuple(bytes((n,)) * n for n in range(bs + 1))
        # The last ciphertext block each chain has processed (its current IV), as an int.
        enc_prev = 0
        dec_prev = 0

        def secure(payload: bytes) -> bytes:
            nonlocal enc_prev
            data = payload + pads[bs - len(payload) % bs]
            iv = random_bytes(bs)
            ciphertext = encrypt(
                (_from_bytes(data[:bs], "big") ^ _from_bytes(iv, "big") ^ enc_prev).to_bytes(
                    bs, "big"
                )
                + data[bs:]
            )
            enc_prev = _from_bytes(ciphertext[-bs:], "big")
            return iv + ciphertext

        def unsecure(data: bytes) -> bytes:
            nonlocal dec_prev
            size = len(data)
            check_cbc_frame(name, size, bs)
            plain = decrypt(data[bs:])
            padded = (
                _from_bytes(plain[:bs], "big") ^ dec_prev ^ _from_bytes(data[:bs], "big")
            ).to_bytes(bs, "big") + plain[bs:]
            dec_prev = _from_bytes(data[-bs:], "big")
            n = padded[-1]
            # pkcs7_unpad's check, inline; ``padded`` is at least one block, so n <= bs fits.
            if not 1 <= n <= bs or padded[-n:] != pads[n]:
                raise DecryptError(f"{name}: bad padding")
            return padded[:-n]

        self.secure = secure
        self.unsecure = unsecure


def check_cbc_frame(name: str, size: int, block: int) -> None:
    """Refuse a CBC frame that is not an IV and one or more whole blocks."""
    if size < 2 * block or size % block:
        raise DecryptError(
            f"{name}: frame of {size} bytes is not a {block}-byte IV and whole blocks"
        )


class _NewChain(Protocol):
    def __call__(self) -> Chain: ...


class AesCtr(KeyedMechanism):
    """AES-CTR: ``nonce(8) || AES-CTR(payload)``, counter block = nonce || 64-bit counter
    starting at 0 (pycryptodome's default layout). No integrity."""

    def transform(self, nonce: bytes, data: bytes, initial_value: int = 0) -> bytes:
        """XOR ``data`` with the keystream from counter block ``nonce || initial_value``."""
        return AES.new(self._key, AES.MODE_CTR, nonce=nonce, initial_value=initial_value).encrypt(
            data
        )

    def secure(self, payload: bytes) -> bytes:
        nonce = self._random(CTR_NONCE_BYTES)
        return nonce + AES.new(self._key, AES.MODE_CTR, nonce=nonce).encrypt(payload)

    def unsecure(self, data: bytes) -> bytes:
        if len(data) < CTR_NONCE_BYTES:
            raise DecryptError(f"{self.name}: frame of {len(data)} bytes has no nonce")
        nonce = data[:CTR_NONCE_BYTES]
        return AES.new(self._key, AES.MODE_CTR, nonce=nonce).decrypt(data[CTR_NONCE_BYTES:])


class _AeadCipher(Protocol):
    """What ``Aead`` uses of a pycryptodome AEAD cipher object."""

    def update(self, ad: bytes) -> object: ...

    def encrypt_and_digest(self, plaintext: bytes) -> tuple[bytes, bytes]: ...

    def decrypt_and_verify(self, ciphertext: bytes, tag: bytes) -> bytes: ...


class Aead(KeyedMechanism):
    """An AEAD with a random nonce per message: ``nonce || ciphertext || tag(16)``, no
    associated data on the wire. ``seal``/``open`` take a nonce and associated data
    (known-answer tests)."""

    nonce_bytes = AEAD_NONCE_BYTES

    @abc.abstractmethod
    def _cipher(self, nonce: bytes) -> _AeadCipher:
        """A new cipher object of this AEAD for ``nonce``, with a 16-byte tag."""

    def seal(self, nonce: bytes, ad: bytes, plaintext: bytes) -> bytes:
        """ciphertext || tag."""
        cipher = self._cipher(nonce)
        if ad:
            cipher.update(ad)
        ciphertext, tag = cipher.encrypt_and_digest(plaintext)
        return ciphertext + tag

    def open(self, nonce: bytes, ad: bytes, sealed: bytes) -> bytes:
        """The plaintext of ciphertext || tag, or DecryptError."""
        cipher = self._cipher(nonce)
        if ad:
            cipher.update(ad)
        try:
            return cipher.decrypt_and_verify(sealed[:-AEAD_TAG_BYTES], sealed[-AEAD_TAG_BYTES:])
        except ValueError:
            raise DecryptError(f"{self.name}: authentication tag does not verify") from None

    def secure(self, payload: bytes) -> bytes:
        nonce = self._random(self.nonce_bytes)
        return nonce + self.seal(nonce, b"", payload)

    def unsecure(self, data: bytes) -> bytes:
        n = self.nonce_bytes
        if len(data) < n + AEAD_TAG_BYTES:
            raise DecryptError(f"{self.name}: frame of {len(data)} bytes is too short")
        return self.open(data[:n], b"", data[n:])


class AesGcm(Aead):
    """AES-GCM (NIST SP 800-38D), 96-bit nonce, 128-bit tag."""

    def _cipher(self, nonce: bytes) -> _AeadCipher:
        return AES.new(self._key, AES.MODE_GCM, nonce=nonce, mac_len=AEAD_TAG_BYTES)


class ChaChaPoly(Aead):
    """ChaCha20-Poly1305 (RFC 8439), 96-bit nonce, 128-bit tag."""

    def _cipher(self, nonce: bytes) -> _AeadCipher:
        return ChaCha20_Poly1305.new(key=self._key, nonce=nonce)


class Rc4(KeyedMechanism):
    """RC4 with a fresh state per message: ``nonce(16) || RC4(key || nonce)(payload)``.

    RC4 is a stateful stream: one state shared by sender and receiver breaks on the first
    lost or reordered message, and reusing a key's keystream for two messages is fatal.
    So every message keys a new RC4 with the 128-bit key followed by a random 128-bit
    nonce (a 256-bit RC4 key), as the papers ran ``openssl enc -rc4`` per message with a
    fixed key: the per-message key schedule is part of RC4's real cost. No integrity, no
    keystream drop: RC4 is broken (RFC 7465) and is here to reproduce published numbers.
    """

    def secure(self, payload: bytes) -> bytes:
        nonce = self._random(RC4_NONCE_BYTES)
        return nonce + ARC4.new(self._key + nonce).encrypt(payload)

    def unsecure(self, data: bytes) -> bytes:
        if len(data) < RC4_NONCE_BYTES:
            raise DecryptError(f"{self.name}: frame of {len(data)} bytes has no nonce")
        return ARC4.new(self._key + data[:RC4_NONCE_BYTES]).decrypt(data[RC4_NONCE_BYTES:])


class HmacSha256(Mechanism):
    """HMAC-SHA256 (RFC 2104): ``payload || mac(32)``. Integrity only."""

    def __init__(self, info: MechanismInfo, *, key: bytes) -> None:
        super().__init__(info)
        self._key = key

    def mac(self, payload: bytes) -> bytes:
        return HMAC.new(self._key, payload, digestmod=SHA256).digest()

    def secure(self, payload: bytes) -> bytes:
        return payload + HMAC.new(self._key, payload, digestmod=SHA256).digest()

    def unsecure(self, data: bytes) -> bytes:
        if len(data) < HMAC_SHA256_BYTES:
            raise SignatureError(f"{self.name}: frame of {len(data)} bytes has no MAC")
        payload = data[:-HMAC_SHA256_BYTES]
        expected = HMAC.new(self._key, payload, digestmod=SHA256).digest()
        # Constant-time compare without pycryptodome's extra BLAKE2 pass in HMAC.verify.
        if not std_hmac.compare_digest(expected, data[-HMAC_SHA256_BYTES:]):
            raise SignatureError(f"{self.name}: MAC does not verify")
        return payload


class Signature(Mechanism):
    """``payload || signature``; the signature has a fixed length per key.

    ``sign`` and ``verify`` are the detached operations, for protocols that place the
    signature themselves (SRUP signs its message without the signature fields,
    ``srup/codec.py``): one key import and one signer object per run, as for ``secure``.
    """

    signature_bytes: int

    def __init__(self, info: MechanismInfo, *, can_sign: bool) -> None:
        super().__init__(info)
        self._can_sign = can_sign

    @property
    def can_sign(self) -> bool:
        """False when the key is a public key: ``sign`` and ``secure`` raise."""
        return self._can_sign

    @abc.abstractmethod
    def sign(self, message: bytes) -> bytes:
        """The signature of ``message`` (MechanismError with a public key)."""

    @abc.abstractmethod
    def verify(self, message: bytes, signature: bytes) -> None:
        """Return if ``signature`` is a valid signature of ``message``; else SignatureError."""

    def _check_can_sign(self) -> None:
        if not self._can_sign:
            raise MechanismError(f"{self.name}: the key is a public key; it can only verify")

    def _split(self, data: bytes) -> tuple[bytes, bytes]:
        n = self.signature_bytes
        if len(data) < n:
            raise SignatureError(f"{self.name}: frame of {len(data)} bytes has no signature")
        return data[:-n], data[-n:]

    def secure(self, payload: bytes) -> bytes:
        return payload + self.sign(payload)

    def unsecure(self, data: bytes) -> bytes:
        payload, signature = self._split(data)
        self.verify(payload, signature)
        return payload


class _Sha256Signature(Signature):
    """A pycryptodome signature scheme (``_scheme``) over the SHA-256 of the message."""

    _scheme: pss.PSS_SigScheme | pkcs1_15.PKCS115_SigScheme | DSS.DssSigScheme
    # What the scheme's ``verify`` raises for a signature that does not verify.
    _refusals: tuple[type[Exception], ...] = (ValueError,)

    def sign(self, message: bytes) -> bytes:
        self._check_can_sign()
        return self._scheme.sign(SHA256.new(message))

    def verify(self, message: bytes, signature: bytes) -> None:
        try:
            self._scheme.verify(SHA256.new(message), signature)
        except self._refusals:
            raise SignatureError(f"{self.name}: signature does not verify") from None


class RsaSignature(_Sha256Signature):
    """RSA signature over SHA-256 of the payload, PKCS#1 v1.5 or PSS (RFC 8017; PSS with
    MGF1-SHA256 and a 32-byte salt)."""

    _refusals = (ValueError, TypeError)

    def __init__(self, info: MechanismInfo, *, key: RsaKey, scheme: str) -> None:
        super().__init__(info, can_sign=key.has_private())
        self.signature_bytes = key.size_in_bytes()
        self._scheme: pss.PSS_SigScheme | pkcs1_15.PKCS115_SigScheme = (
            pss.new(key) if scheme == "pss" else pkcs1_15.new(key)
        )


class EcdsaP256(_Sha256Signature):
    """ECDSA P-256 over SHA-256, signature ``r || s`` (32 + 32 bytes), deterministic
    nonces (RFC 6979): no RNG in the signing path, and the published RFC 6979 vectors
    check this exact code."""

    signature_bytes = 64

    def __init__(self, info: MechanismInfo, *, key: EccKey) -> None:
        super().__init__(info, can_sign=key.has_private())
        self._scheme = DSS.new(key, "deterministic-rfc6979", "binary")


class Ed25519(Signature):
    """Ed25519 (RFC 8032, pure): ``payload || signature(64)``. The scheme's bound ``sign``
    and ``verify`` are kept and the frame is split inline: the same work per message in
    fewer Python steps."""

    signature_bytes = ED25519_SIGNATURE_BYTES

    def __init__(self, info: MechanismInfo, *, key: EccKey) -> None:
        super().__init__(info, can_sign=key.has_private())
        self._scheme = eddsa.new(key, "rfc8032")
        self._sign = self._scheme.sign
        self._verify = self._scheme.verify

    def sign(self, message: bytes) -> bytes:
        if not self._can_sign:
            self._check_can_sign()
        return self._sign(message)

    def verify(self, message: bytes, signature: bytes) -> None:
        try:
            self._verify(message, signature)
        except ValueError:
            raise SignatureError(f"{self.name}: signature does not verify") from None

    def secure(self, payload: bytes) -> bytes:
        if not self._can_sign:
            self._check_can_sign()
        return payload + self._sign(payload)

    def unsecure(self, data: bytes) -> bytes:
        if len(data) < ED25519_SIGNATURE_BYTES:
            raise SignatureError(f"{self.name}: frame of {len(data)} bytes has no signature")
        payload = data[:-ED25519_SIGNATURE_BYTES]
        try:
            self._verify(payload, data[-ED25519_SIGNATURE_BYTES:])
        except ValueError:
            raise SignatureError(f"{self.name}: signature does not verify") from None
        return payload
