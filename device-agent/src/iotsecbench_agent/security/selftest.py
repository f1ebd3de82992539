"""Known-answer self-test: every built-in published vector through the mechanisms' own
code (``iotsecbench-agent selftest``).

A vector passes when the mechanism, built by the registry with the vector's key (and,
through ``random_bytes``, the vector's IV or nonce), produces the published bytes and
takes them back. CBC vectors run after a warm-up message, so the chaining trick of
``mechanisms.ChainedCbc`` is what they check. The native lightweight ciphers' vectors
(``vectors_lightweight.VECTORS``, when that module is installed) run too, and are
reported SKIP when the native module is not built on this device. The vectors of every
mechanism the ``openssl`` crypto library provides run a second time through it (lines
marked ``[openssl]``): both libraries must give the published bytes.
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Callable, Protocol, TextIO, cast

from iotsecbench_contract.cryptolibs import OPENSSL, PYCRYPTODOME, provides

from iotsecbench_agent.security import lightweight_mechanisms as lwc
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import (
    INTO_SLACK,
    DecryptError,
    Mechanism,
    MechanismError,
    SecurityError,
    SignatureError,
)
from iotsecbench_agent.security.vectors import VECTORS, Vector

PASS = "PASS"  # noqa: S105 - a result label, not a password
FAIL = "FAIL"
SKIP = "SKIP"
LIGHTWEIGHT_VECTORS_MODULE = "iotsecbench_agent.security.vectors_lightweight"
WARM_UP = b"warm-up message so the CBC chain is not at its start"


class Mismatch(Exception):
    """A vector's check failed; the message says how."""


@dataclass(frozen=True)
class Result:
    status: str
    mechanism: str
    source: str
    detail: str = ""
    library: str = PYCRYPTODOME

    def line(self) -> str:
        tag = "" if self.library == PYCRYPTODOME else f" [{self.library}]"
        text = f"{self.status}  {self.mechanism:<20} {self.source}{tag}"
        return f"{text}: {self.detail}" if self.detail else text


class Sealing(Protocol):
    """An AEAD mechanism's nonce-explicit interface (``mechanisms.Aead``,
    ``lightweight_mechanisms.AsconAead128``)."""

    def seal(self, nonce: bytes, ad: bytes, plaintext: bytes) -> bytes: ...

    def open(self, nonce: bytes, ad: bytes, sealed: bytes) -> bytes: ...


class LightweightVector(Protocol):
    """An entry of ``vectors_lightweight.VECTORS`` (owned by the native module's code)."""

    @property
    def mechanism(self) -> str: ...
    @property
    def mode(self) -> str: ...
    @property
    def key(self) -> bytes: ...
    @property
    def plaintext(self) -> bytes: ...
    @property
    def ciphertext(self) -> bytes: ...
    @property
    def nonce(self) -> bytes | None: ...
    @property
    def ad(self) -> bytes | None: ...
    @property
    def source(self) -> str: ...


class Scripted:
    """A ``random_bytes`` that hands out given values in order (None: os.urandom)."""

    def __init__(self, *values: bytes | None) -> None:
        self._values = list(values)

    def __call__(self, n: int) -> bytes:
        value = self._values.pop(0) if self._values else None
        if value is None:
            return os.urandom(n)
        if len(value) != n:
            raise Mismatch(f"the vector's IV/nonce is {len(value)} bytes, the mechanism's {n}")
        return value


def expect(what: str, got: bytes, want: bytes) -> None:
    if got != want:
        raise Mismatch(f"{what}: got {got.hex()}, published {want.hex()}")


def expect_refused(mechanism: Mechanism, data: bytes, error: type[SecurityError]) -> None:
    try:
        mechanism.unsecure(data)
    except error:
        return
    raise Mismatch(f"a tampered frame was not refused with {error.__name__}")


def flip_last_bit(data: bytes) -> bytes:
    return data[:-1] + bytes((data[-1] ^ 1,))


class _Transform(Protocol):
    def __call__(self, nonce: bytes, data: bytes, initial_value: int = 0) -> bytes: ...


def check(vector: Vector, library: str = PYCRYPTODOME) -> None:
    """Raise Mismatch unless ``vector`` passes through ``library`` (see the module doc)."""
    v = vector
    lib = library
    if v.check == "cbc":
        mech = registry.create(
            v.mechanism, v.key, random_bytes=Scripted(None, v.nonce), library=lib
        )
        mech.unsecure(mech.secure(WARM_UP))
        wire = mech.secure(v.plaintext)
        expect("iv", wire[: len(v.nonce)], v.nonce)
        expect("ciphertext", wire[len(v.nonce) : len(v.nonce) + len(v.ciphertext)], v.ciphertext)
        expect("decryption", mech.unsecure(wire), v.plaintext)
        if mech.secures_into:
            check_cbc_into(v, lib)
    elif v.check == "ctr":
        transform: _Transform | None = getattr(
            registry.create(v.mechanism, v.key, library=lib), "transform", None
        )
        if transform is None:
            raise Mismatch(f"{v.mechanism} is not an AES-CTR mechanism")
        nonce, counter = v.nonce[:8], int.from_bytes(v.nonce[8:], "big")
        expect("ciphertext", transform(nonce, v.plaintext, counter), v.ciphertext)
        expect("decryption", transform(nonce, v.ciphertext, counter), v.plaintext)
    elif v.check == "aead":
        check_aead(v.mechanism, v.key, v.nonce, v.ad, v.plaintext, v.ciphertext, lib)
    elif v.check == "stream":
        mech = registry.create(v.mechanism, v.key, random_bytes=Scripted(v.nonce), library=lib)
        wire = mech.secure(v.plaintext)
        expect("keystream", wire, v.nonce + v.ciphertext)
        expect("decryption", mech.unsecure(wire), v.plaintext)
    elif v.check in ("mac", "sign"):
        mech = registry.create(v.mechanism, v.key, library=lib)
        wire = mech.secure(v.plaintext)
        expect("tag" if v.check == "mac" else "signature", wire[len(v.plaintext) :], v.ciphertext)
        expect("verification", mech.unsecure(wire), v.plaintext)
        expect_refused(mech, flip_last_bit(wire), SignatureError)
    elif v.check == "verify":
        mech = registry.create(v.mechanism, v.key, library=lib)
        try:
            expect("verification", mech.unsecure(v.plaintext + v.ciphertext), v.plaintext)
        except SignatureError as exc:
            raise Mismatch(f"the published signature does not verify: {exc}") from None
        expect_refused(mech, flip_last_bit(v.plaintext + v.ciphertext), SignatureError)
    else:
        raise Mismatch(f"unknown check {v.check!r}")


def check_cbc_into(v: Vector, library: str) -> None:
    """The cipher bench's CBC calls into a reused buffer (``secure_into``/``unsecure_into``,
    the ``openssl`` library's through the agent's EVP extension where it is built) give the
    published bytes too, after a warm-up frame."""
    ivs = Scripted(None, v.nonce)
    mech = registry.create(v.mechanism, v.key, random_bytes=ivs, library=library)
    longest = max(len(WARM_UP), len(v.plaintext))
    out = bytearray(longest + mech.overhead(longest) + INTO_SLACK)
    back = bytearray(len(out) + INTO_SLACK)
    mech.unsecure_into(bytes(mech.secure_into(WARM_UP, out)), back)
    wire = bytes(mech.secure_into(v.plaintext, out))
    expect("iv (into)", wire[: len(v.nonce)], v.nonce)
    body = wire[len(v.nonce) : len(v.nonce) + len(v.ciphertext)]
    expect("ciphertext (into)", body, v.ciphertext)
    expect("decryption (into)", bytes(mech.unsecure_into(wire, back)), v.plaintext)


def check_aead(
    name: str,
    key: bytes,
    nonce: bytes,
    ad: bytes,
    plaintext: bytes,
    sealed: bytes,
    library: str = PYCRYPTODOME,
) -> None:
    mech = registry.create(name, key, random_bytes=Scripted(nonce), library=library)
    if not hasattr(mech, "seal") or not hasattr(mech, "open"):
        raise Mismatch(f"{name} is not an AEAD mechanism")
    aead = cast(Sealing, mech)  # checked just above
    expect("ciphertext || tag", aead.seal(nonce, ad, plaintext), sealed)
    expect("decryption", aead.open(nonce, ad, sealed), plaintext)
    try:
        aead.open(nonce, ad, flip_last_bit(sealed))
    except DecryptError:
        pass
    else:
        raise Mismatch("a tampered tag was not refused")
    if not ad:
        # The wire path: the scripted nonce comes out first, then the same bytes.
        expect("frame", mech.secure(plaintext), nonce + sealed)


def check_lightweight(v: LightweightVector) -> None:
    if v.mode == "ecb":
        name = v.mechanism.removesuffix("-ecb")
        cipher = lwc.block_cipher(name, v.key)
        expect("ciphertext", cipher.ecb_encrypt(v.plaintext), v.ciphertext)
        expect("decryption", cipher.ecb_decrypt(v.ciphertext), v.plaintext)
        mech = registry.create(f"{name}-ecb", v.key)
        wire = mech.secure(v.plaintext)
        expect("mechanism ciphertext", wire[: len(v.ciphertext)], v.ciphertext)
        expect("mechanism decryption", mech.unsecure(wire), v.plaintext)
    elif v.mode == "aead":
        check_aead(v.mechanism, v.key, v.nonce or b"", v.ad or b"", v.plaintext, v.ciphertext)
    else:
        raise Mismatch(f"unknown mode {v.mode!r}")


def lightweight_vectors() -> Sequence[LightweightVector]:
    try:
        module = importlib.import_module(LIGHTWEIGHT_VECTORS_MODULE)
    except ImportError:
        return ()
    # The agreed name is VECTORS; KNOWN_ANSWERS is what the module was first written with.
    found = getattr(module, "VECTORS", None) or getattr(module, "KNOWN_ANSWERS", None)
    vectors: Sequence[LightweightVector] = found or ()
    return vectors


def results() -> Iterator[Result]:
    """One Result per vector, built-in vectors first, then the built-in vectors of the
    ``openssl`` library's mechanisms through it."""
    for vector in VECTORS:
        yield _run(vector.mechanism, vector.source, functools.partial(check, vector))
    for vector in VECTORS:
        if provides(OPENSSL, vector.mechanism):
            run = functools.partial(check, vector, OPENSSL)
            yield _run(vector.mechanism, vector.source, run, OPENSSL)
    native_ok = lwc.native_available()
    for lw in lightweight_vectors():
        if not native_ok:
            yield Result(SKIP, lw.mechanism, lw.source, "native module not built on this device")
            continue
        yield _run(lw.mechanism, lw.source, functools.partial(check_lightweight, lw))


def _run(
    mechanism: str, source: str, run: Callable[[], None], library: str = PYCRYPTODOME
) -> Result:
    try:
        run()
    except Mismatch as exc:
        return Result(FAIL, mechanism, source, str(exc), library)
    except (MechanismError, SecurityError, ValueError) as exc:
        return Result(FAIL, mechanism, source, f"{type(exc).__name__}: {exc}", library)
    return Result(PASS, mechanism, source, library=library)


def run_selftest(out: TextIO) -> int:
    """Print one line per vector and a summary; return the number of failures."""
    counts = {PASS: 0, FAIL: 0, SKIP: 0}
    for result in results():
        counts[result.status] += 1
        print(result.line(), file=out)
    print(
        f"selftest: {counts[PASS]} passed, {counts[FAIL]} failed, {counts[SKIP]} skipped",
        file=out,
    )
    return counts[FAIL]
