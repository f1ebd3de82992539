"""The ``openssl`` crypto library: the mechanisms OpenSSL implements, called in-process
through the ``cryptography`` binding (which bundles its own OpenSSL; its version is in
``library_version``). Same wire framing as the pycryptodome mechanisms (``mechanisms``), so
for the same key and IV or nonce both give the same bytes (the known-answer vectors check
both, ``selftest``).

What is built once per run and what per message:

- CBC (AES, DES, 3DES): an OpenSSL CBC context keeps its chain across calls, so the
  pycryptodome mechanism's chaining (one context per direction for the run, a message's
  first block pre-whitened to give it its own random IV, ``ChainedCbc``) is kept;
  ``OpensslCbc`` writes each frame with ``update_into`` into one buffer (no copies of the
  payload in Python).
- CTR and RC4 take their nonce (RC4: key || nonce) at context creation: one context per
  message over an algorithm object made once.
- AES-GCM: ``AESGCM`` (one-shot seal and open, the key schedule done once).
- HMAC-SHA256: a new ``hmac.HMAC`` per message.

DES is ``TripleDES`` with an 8-byte key (K1 = K2 = K3, which is DES), as OpenSSL computes
it; DES, 3DES and RC4 live in ``cryptography.hazmat.decrepit``.

The cipher bench's CBC calls (``secure_into``/``unsecure_into``) go through the agent's own
EVP extension (``iotsecbench_agent._evp``, native/_evpmodule.c) where it was built: one
native call per frame into the system's libcrypto, the library ``openssl speed`` and
``openssl enc`` run on. The binding's per-call cost alone was 0.7 of ``openssl speed``'s
time for an 8 KiB AES-CBC decryption on an AES-NI host (docs/benchmarks.md, "Crypto
libraries"). Where the extension is missing (no OpenSSL headers at build time) they run
through the binding, as before; ``library_version`` says which.
"""

from __future__ import annotations

import hmac as std_hmac
from typing import Any, Callable

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.decrepit.ciphers.algorithms import ARC4, TripleDES
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import hmac as c_hmac
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from iotsecbench_contract.mechanisms import (
    AEAD_NONCE_BYTES,
    AEAD_TAG_BYTES,
    AES_SIZES,
    CTR_NONCE_BYTES,
    HMAC_SHA256_BYTES,
    RC4_NONCE_BYTES,
    MechanismInfo,
)

from iotsecbench_agent.security import mechanisms as m

try:
    from iotsecbench_agent import _evp
except ImportError:  # built without OpenSSL's headers (setup.py)
    _evp = None  # type: ignore[assignment]
from iotsecbench_agent.security.base import (
    DecryptError,
    Mechanism,
    MechanismError,
    RandomBytes,
    SignatureError,
)

_CTR_ZERO = bytes(16 - CTR_NONCE_BYTES)

# (info, raw key, random_bytes) -> mechanism, for a key already checked by the registry.
OpensslBuilder = Callable[[MechanismInfo, bytes, RandomBytes], Mechanism]


def library_version() -> str:
    """``cryptography 50.0.2 (OpenSSL 3.5.4 30 Sep 2025)``: the binding and its OpenSSL."""
    import cryptography
    from cryptography.hazmat.backends.openssl import backend

    binding = f"cryptography {cryptography.__version__} ({backend.openssl_version_text()})"
    if _evp is None:
        return binding
    return f"{binding}; CBC bench calls: {evp_version()} (EVP extension)"


def has_evp_extension() -> bool:
    """True where the agent was built with its EVP extension (see the module's doc)."""
    return _evp is not None


def evp_version() -> str | None:
    """The libcrypto the EVP extension runs on (``OpenSSL 3.0.19 27 Jan 2026``), or None
    where the agent was built without it."""
    return None if _evp is None else _evp.openssl_version()


class OpensslCbc(Mechanism):
    """CBC with PKCS#7 and a random IV per message, ``iv || CBC(iv, pad(payload))``, the
    wire format of ``mechanisms.ChainedCbc`` and its chaining (one OpenSSL context per
    direction for the run; a message's first block pre-whitened with ``iv ^ previous
    ciphertext block`` gives it its own IV), written for OpenSSL's speed.

    The payload is never copied in Python: OpenSSL reads it through a ``memoryview`` and
    writes the frame with ``update_into`` straight into the one buffer returned (a
    ``bytearray``, made per message, so a caller may keep every frame). Per message that
    is one pass over memory besides the cipher's (the new buffer's zeroing), where ``update``
    and byte-string concatenation made four to five (padding appended, first block
    whitened, output, IV prepended); at 1 MiB each pass costs about as much as AES-CBC
    decryption itself (docs/benchmarks.md, "Crypto libraries").

    ``unsecure_into`` (the cipher bench's decrypt, see ``base.Mechanism``) writes into the
    caller's reused buffer instead: no new buffer, so no zeroing pass, and the whole frame
    goes through OpenSSL in one call (see there). ``secure_into`` (the cipher bench's
    encrypt) likewise writes the frame into the caller's reused buffer, the same bytes as
    ``secure`` for the same IV: up to ``COPY_MAX`` bytes the payload and padding are
    copied behind the IV and the body is encrypted in place in one call, above that three
    calls and no copy; its views of the buffer are made once per (buffer, payload size).
    """

    def __init__(
        self,
        info: MechanismInfo,
        *,
        algorithm: Any,
        random_bytes: RandomBytes,
        evp: tuple[str, bytes] | None = None,
    ) -> None:
        """``evp``: (OpenSSL's name of the cipher, its key) for the EVP extension, which
        then writes the *_into frames (see the module's doc); None keeps them on the binding."""
        super().__init__(info)
        name = info.name
        bs = info.block_bytes
        zero_iv = bytes(bs)
        encrypt_into = Cipher(algorithm, modes.CBC(zero_iv)).encryptor().update_into
        decrypt_into = Cipher(algorithm, modes.CBC(zero_iv)).decryptor().update_into
        # unsecure_into's own context: it leaves its chain at a frame's last block without
        # telling unsecure's dec_prev, so the two must not share one.
        whole_frame_into = Cipher(algorithm, modes.CBC(zero_iv)).decryptor().update_into
        pads = tuple(bytes((n,)) * n for n in range(bs + 1))
        # What a plaintext whose last byte is n must end with (PKCS#7, checked with one
        # ``endswith`` and no slice): n copies of n for 1 <= n <= bs; for any other n one
        # byte that is not n, which it cannot end with.
        pad_suffix = tuple(pads[n] if 1 <= n <= bs else bytes(((n + 1) % 256,)) for n in range(256))
        min_frame = 2 * bs
        check_frame = m.check_cbc_frame
        # update_into wants room for one block less a byte more than it writes.
        slack = bs - 1
        # The last ciphertext block each context has processed (its current IV), as an int.
        enc_prev = 0
        dec_prev = 0

        def secure(payload: bytes) -> bytes:
            nonlocal enc_prev
            size = len(payload)
            full = size - size % bs
            last = payload[full:] + pads[bs - size % bs]
            first = payload[:bs] if full else last
            iv = random_bytes(bs)
            end = 2 * bs + full
            frame = bytearray(end + slack)
            view = memoryview(frame)
            view[:bs] = iv
            whitened = _from_bytes(first, "big") ^ _from_bytes(iv, "big") ^ enc_prev
            encrypt_into(whitened.to_bytes(bs, "big"), view[bs:])
            if full:
                if full > bs:
                    encrypt_into(memoryview(payload)[bs:full], view[2 * bs :])
                encrypt_into(last, view[bs + full :])
            enc_prev = _from_bytes(view[end - bs : end], "big")
            view.release()
            del frame[end:]
            return frame  # type: ignore[return-value]  # a bytearray: bytes to every reader

        # secure_into's views of the caller's buffer, made for the last (buffer, payload
        # size) it was given and reused while both stay the same (see lay_out).
        out_laid: bytearray | None = None
        size_laid = -1
        layout: tuple[Any, ...] = ()
        copy_max = COPY_MAX

        def lay_out(out: bytearray, size: int) -> tuple[Any, ...]:
            nonlocal out_laid, size_laid, layout
            tail = size % bs
            full = size - tail
            end = full + 2 * bs
            if len(out) < end + slack:
                raise ValueError(f"{name}: a {end}-byte frame wants a buffer of {end + slack}")
            view = memoryview(out)
            last = view[end - bs : end].tobytes  # the frame's last block: the next chain
            if size <= copy_max:
                first = view[bs : 2 * bs]
                body = view[bs:end]
                layout = (
                    view[:bs],
                    view[bs : bs + size],
                    view[bs + size : end],
                    pads[bs - tail],
                    first,
                    first.tobytes,
                    body,
                    view[bs:],
                    last,
                    view[:end],
                )
            else:
                layout = (
                    view[:bs],
                    view[bs:],
                    view[2 * bs :],
                    view[bs + full :],
                    pads[bs - tail],
                    full,
                    last,
                    view[:end],
                )
            # Dropping the previous layout releases its views of the previous buffer.
            out_laid, size_laid = out, size
            return layout

        def secure_into(payload: bytes, out: bytearray) -> memoryview:
            nonlocal enc_prev
            size = len(payload)
            lay = layout if out is out_laid and size == size_laid else lay_out(out, size)
            iv = random_bytes(bs)
            if size <= copy_max:
                # Payload and padding copied behind the IV, the first block whitened in
                # place, then the whole body encrypted in place in one call.
                iv_at, body_in, pad_at, pad, first, first_bytes, body, body_out, last, frame = lay
                iv_at[:] = iv
                body_in[:] = payload
                pad_at[:] = pad
                whitened = _from_bytes(first_bytes(), "big") ^ _from_bytes(iv, "big") ^ enc_prev
                first[:] = whitened.to_bytes(bs, "big")
                encrypt_into(body, body_out)
            else:
                # No copy: secure's three calls, into the laid-out views.
                iv_at, first, middle, tail_at, pad, full, last, frame = lay
                iv_at[:] = iv
                whitened = _from_bytes(payload[:bs], "big") ^ _from_bytes(iv, "big") ^ enc_prev
                encrypt_into(whitened.to_bytes(bs, "big"), first)
                encrypt_into(memoryview(payload)[bs:full], middle)
                encrypt_into(payload[full:] + pad, tail_at)
            enc_prev = _from_bytes(last(), "big")
            # A view of its own, so that a caller releasing it releases nothing of ours.
            return frame[:]  # type: ignore[no-any-return]

        def unsecure(data: bytes) -> bytes:
            nonlocal dec_prev
            size = len(data)
            if size < min_frame or size % bs:
                check_frame(name, size, bs)
            body = size - bs
            plain = bytearray(body + slack)
            decrypt_into(memoryview(data)[bs:], plain)
            first = _from_bytes(plain[:bs], "big") ^ dec_prev ^ _from_bytes(data[:bs], "big")
            plain[:bs] = first.to_bytes(bs, "big")
            dec_prev = _from_bytes(data[size - bs :], "big")
            del plain[body:]
            n = plain[-1]
            # pkcs7_unpad's check, inline; the plaintext is at least one block, so n <= bs fits.
            if not 1 <= n <= bs or plain[-n:] != pads[n]:
                raise DecryptError(f"{name}: bad padding")
            del plain[-n:]
            return plain  # type: ignore[return-value]  # as in secure

        def unsecure_into(data: bytes, out: bytearray) -> memoryview:
            size = len(data)
            if size < min_frame or size % bs:
                check_frame(name, size, bs)
            # The whole frame, IV first, through its own context: the IV block comes out
            # as garbage (out[:bs], ignored) and leaves the IV as the chain, so every
            # later block is plain CBC with the frame's own IV. No IV split, no XOR of the
            # first block, no chain to keep: one block more of AES, one call into OpenSSL.
            whole_frame_into(data, out)
            n = out[size - 1]
            # pkcs7_unpad's check; the plaintext is at least one block, so n <= bs fits.
            if not out.endswith(pad_suffix[n], 0, size):
                raise DecryptError(f"{name}: bad padding")
            return memoryview(out)[bs : size - n]

        self.secure = secure
        self.secure_into = secure_into
        self.secures_into = True
        self.unsecure = unsecure
        self.unsecure_into = unsecure_into
        self.writes_into = True
        if evp is not None and _evp is not None:
            # The same frames, byte for byte, for the same IVs (one random_bytes call per
            # frame); the same checks and errors (tests/test_openssl_evp.py).
            native = _evp.Cbc(
                evp[0],
                evp[1],
                name,
                random_bytes,
                lambda size: check_frame(name, size, bs),
                DecryptError,
            )
            self.secure_into = native.encrypt_into
            self.unsecure_into = native.decrypt_into


_from_bytes = int.from_bytes
# OpensslCbc.secure_into copies a payload of up to this many bytes into the frame and
# encrypts it in place in one call; a longer one goes through three calls and no copy.
# Per call, CPU time, best of 7 timeit runs (2026-11-28 22:22 UTC): at 8 KiB the copy
# saves ~0.2 µs of 6.9-7.1 µs; at 64 KiB it costs ~1.2 µs (44.9 against 46.1 µs).
COPY_MAX = 1 << 14


def _cbc(
    algorithm: Callable[[bytes], Any], evp_name: str, evp_key: Callable[[bytes], bytes]
) -> OpensslBuilder:
    def build(info: MechanismInfo, key: bytes, rnd: RandomBytes) -> Mechanism:
        try:
            algo = algorithm(key)
        except ValueError as exc:
            raise MechanismError(f"{info.name}: {exc}") from None
        return OpensslCbc(info, algorithm=algo, random_bytes=rnd, evp=(evp_name, evp_key(key)))

    return build


def _same(key: bytes) -> bytes:
    return key


class OpensslCtr(m.KeyedMechanism):
    """AES-CTR: ``nonce(8) || AES-CTR(payload)``, counter block nonce || 64-bit counter."""

    def __init__(self, info: MechanismInfo, *, key: bytes, random_bytes: RandomBytes) -> None:
        super().__init__(info, key=key, random_bytes=random_bytes)
        self._algo = algorithms.AES(key)

    def transform(self, nonce: bytes, data: bytes, initial_value: int = 0) -> bytes:
        """XOR ``data`` with the keystream from counter block ``nonce || initial_value``."""
        block = nonce + initial_value.to_bytes(16 - CTR_NONCE_BYTES, "big")
        return Cipher(self._algo, modes.CTR(block)).encryptor().update(data)

    def secure(self, payload: bytes) -> bytes:
        nonce = self._random(CTR_NONCE_BYTES)
        return nonce + Cipher(self._algo, modes.CTR(nonce + _CTR_ZERO)).encryptor().update(payload)

    def unsecure(self, data: bytes) -> bytes:
        if len(data) < CTR_NONCE_BYTES:
            raise DecryptError(f"{self.name}: frame of {len(data)} bytes has no nonce")
        block = data[:CTR_NONCE_BYTES] + _CTR_ZERO
        return Cipher(self._algo, modes.CTR(block)).decryptor().update(data[CTR_NONCE_BYTES:])


class OpensslGcm(m.KeyedMechanism):
    """AES-GCM: ``nonce(12) || ciphertext || tag(16)``."""

    def __init__(self, info: MechanismInfo, *, key: bytes, random_bytes: RandomBytes) -> None:
        super().__init__(info, key=key, random_bytes=random_bytes)
        self._aead = AESGCM(key)

    def seal(self, nonce: bytes, ad: bytes, plaintext: bytes) -> bytes:
        return self._aead.encrypt(nonce, plaintext, ad or None)

    def open(self, nonce: bytes, ad: bytes, sealed: bytes) -> bytes:
        try:
            return self._aead.decrypt(nonce, sealed, ad or None)
        except InvalidTag:
            raise DecryptError(f"{self.name}: authentication tag does not verify") from None

    def secure(self, payload: bytes) -> bytes:
        nonce = self._random(AEAD_NONCE_BYTES)
        return nonce + self._aead.encrypt(nonce, payload, None)

    def unsecure(self, data: bytes) -> bytes:
        if len(data) < AEAD_NONCE_BYTES + AEAD_TAG_BYTES:
            raise DecryptError(f"{self.name}: frame of {len(data)} bytes is too short")
        return self.open(data[:AEAD_NONCE_BYTES], b"", data[AEAD_NONCE_BYTES:])


class OpensslRc4(m.KeyedMechanism):
    """RC4 keyed per message with key || nonce: ``nonce(16) || RC4(payload)`` (see
    ``mechanisms.Rc4``)."""

    def secure(self, payload: bytes) -> bytes:
        nonce = self._random(RC4_NONCE_BYTES)
        return nonce + Cipher(ARC4(self._key + nonce), None).encryptor().update(payload)

    def unsecure(self, data: bytes) -> bytes:
        if len(data) < RC4_NONCE_BYTES:
            raise DecryptError(f"{self.name}: frame of {len(data)} bytes has no nonce")
        rc4 = Cipher(ARC4(self._key + data[:RC4_NONCE_BYTES]), None)
        return rc4.decryptor().update(data[RC4_NONCE_BYTES:])


class OpensslHmac(Mechanism):
    """HMAC-SHA256: ``payload || mac(32)``."""

    def __init__(self, info: MechanismInfo, *, key: bytes) -> None:
        super().__init__(info)
        self._key = key

    def mac(self, payload: bytes) -> bytes:
        h = c_hmac.HMAC(self._key, hashes.SHA256())
        h.update(payload)
        return h.finalize()

    def secure(self, payload: bytes) -> bytes:
        return payload + self.mac(payload)

    def unsecure(self, data: bytes) -> bytes:
        if len(data) < HMAC_SHA256_BYTES:
            raise SignatureError(f"{self.name}: frame of {len(data)} bytes has no MAC")
        payload = data[:-HMAC_SHA256_BYTES]
        if not std_hmac.compare_digest(self.mac(payload), data[-HMAC_SHA256_BYTES:]):
            raise SignatureError(f"{self.name}: MAC does not verify")
        return payload


def builders() -> dict[str, OpensslBuilder]:
    """A builder per keyed mechanism of the ``openssl`` library (``none`` and ``null``,
    which have no cryptography, are the registry's own)."""
    table: dict[str, OpensslBuilder] = {}
    for bits in AES_SIZES:
        table[f"aes-{bits}-cbc"] = _cbc(algorithms.AES, f"AES-{bits}-CBC", _same)
        table[f"aes-{bits}-ctr"] = lambda info, key, rnd: OpensslCtr(
            info, key=key, random_bytes=rnd
        )
        table[f"aes-{bits}-gcm"] = lambda info, key, rnd: OpensslGcm(
            info, key=key, random_bytes=rnd
        )
    # K1 = K2 = K3: DES (single DES-CBC is in OpenSSL 3's legacy provider only)
    table["des-cbc"] = _cbc(lambda key: TripleDES(key * 3), "DES-EDE3-CBC", lambda k: k * 3)
    table["3des-cbc"] = _cbc(TripleDES, "DES-EDE3-CBC", _same)
    table["rc4"] = lambda info, key, rnd: OpensslRc4(info, key=key, random_bytes=rnd)
    table["hmac-sha256"] = lambda info, key, rnd: OpensslHmac(info, key=key)
    return table
