"""The registry of security mechanisms, by name (the ``spec.security`` of a job).

What each mechanism is (``MechanismInfo``: kind, key size, exact overhead) is the
contract's table, ``iotsecbench_contract.mechanisms``; this module holds how to build each
one, a builder per name of that table (a test checks it builds exactly those).

``create(name, key=None, seed=None)`` builds a mechanism for one run:

- ``key``: raw key bytes of exactly ``info.key_bytes`` for the ciphers (any non-empty
  length for HMAC); a PEM or DER key for RSA (private, or public to verify only); PEM/DER
  or the raw 32-byte private scalar (ECDSA P-256) or RFC 8032 secret key (Ed25519).
- no ``key``: a fresh random key from ``os.urandom``, or, with ``seed``, a key derived
  from the seed (SHAKE256 of the mechanism name and the seed) so a run can be repeated
  with the same key. The seed makes only the key repeatable: IVs and nonces are always
  random.
- RSA keys are generated once per process per (size, seed) and cached: RSA-4096 takes
  up to seconds to generate, and a run must not wait for it twice. A run that needs
  several distinct generated key pairs of one size (SRUP's controller and device) asks
  ``rsa_key`` for them by ``slot``.

``library`` chooses the implementation (``iotsecbench_contract.cryptolibs``): pycryptodome
(the default, every mechanism) or ``openssl`` (``openssl_mechanisms``, through the
``cryptography`` binding): the same mechanism interface and framing from another provider.
A mechanism the library does not provide raises ``MechanismNotProvided`` naming both.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Callable, cast

from Crypto.Cipher import AES, DES, DES3
from Crypto.Hash import SHAKE256
from Crypto.PublicKey import ECC, RSA
from Crypto.PublicKey.ECC import EccKey
from Crypto.PublicKey.RSA import RsaKey
from Crypto.Signature import eddsa
from iotsecbench_contract import mechanisms as contract
from iotsecbench_contract.cryptolibs import OPENSSL, PYCRYPTODOME, provides
from iotsecbench_contract.mechanisms import (
    AES_SIZES,
    HMAC_DEFAULT_KEY_BYTES,
    LIGHTWEIGHT_CIPHERS,
    RSA_SCHEMES,
    RSA_SIZES,
    MechanismInfo,
)

from iotsecbench_agent.security import lightweight_mechanisms as lwc
from iotsecbench_agent.security import mechanisms as m
from iotsecbench_agent.security.base import (
    DEFAULT_RANDOM,
    Mechanism,
    MechanismError,
    RandomBytes,
    UnknownMechanism,
)

# (key, seed, random_bytes) -> mechanism; key/seed are as given to create().
Builder = Callable[[MechanismInfo, "bytes | None", "int | None", RandomBytes], Mechanism]

ECC_SCALAR_BYTES = 32


@dataclass(frozen=True)
class Entry:
    info: MechanismInfo
    build: Builder


_ENTRIES: dict[str, Entry] = {}
_lock = threading.Lock()
_rsa_cache: dict[tuple[int, int | None, str], RsaKey] = {}


def register(entry: Entry) -> None:
    """Add a mechanism under ``entry.info.name``; a name can be registered once."""
    name = entry.info.name
    if name in _ENTRIES:
        raise ValueError(f"mechanism {name!r} is already registered")
    _ENTRIES[name] = entry


def unregister(name: str) -> None:
    _ENTRIES.pop(name, None)


def names() -> list[str]:
    """Every registered name, in registration order."""
    return list(_ENTRIES)


def infos() -> Iterator[MechanismInfo]:
    return (entry.info for entry in _ENTRIES.values())


def describe(name: str) -> MechanismInfo:
    return _entry(name).info


def create(
    name: str,
    key: bytes | None = None,
    seed: int | None = None,
    *,
    random_bytes: RandomBytes | None = None,
    library: str = PYCRYPTODOME,
) -> Mechanism:
    """Build mechanism ``name`` for one run (see the module doc for ``key`` and ``seed``)
    with crypto library ``library``.

    ``random_bytes`` replaces os.urandom as the source of IVs and nonces: for known-answer
    tests only. Raises UnknownMechanism, MechanismNotProvided or MechanismError (bad key,
    native module missing).
    """
    entry = _entry(name)
    check_provided(name, library)
    rnd = random_bytes or DEFAULT_RANDOM
    if library == PYCRYPTODOME or entry.info.kind in _NO_CRYPTO:
        return entry.build(entry.info, key, seed, rnd)
    from iotsecbench_agent.security import openssl_mechanisms

    build = openssl_mechanisms.builders()[name]
    return build(entry.info, symmetric_key(entry.info, key, seed), rnd)


# Kinds with no cryptography: every in-process library runs the registry's own.
_NO_CRYPTO = (contract.NONE, contract.NULL)


class MechanismNotProvided(MechanismError):
    """The mechanism exists but the chosen crypto library does not implement it."""


def check_provided(name: str, library: str) -> None:
    """MechanismNotProvided unless crypto library ``library`` provides mechanism ``name``."""
    _entry(name)
    if library == PYCRYPTODOME:  # every registered mechanism, the contract's and any other
        return
    if library != OPENSSL or not provides(library, name):
        raise MechanismNotProvided(
            f"mechanism {name!r} is not available in crypto library {library!r}"
        )


def library_version(library: str) -> str:
    """What the run's methods name: the library and its version."""
    if library == OPENSSL:
        from iotsecbench_agent.security import openssl_mechanisms

        return openssl_mechanisms.library_version()
    import Crypto

    return f"pycryptodome {Crypto.__version__}"


def _entry(name: str) -> Entry:
    entry = _ENTRIES.get(name)
    if entry is None:
        raise UnknownMechanism(f"unknown security mechanism {name!r} (see `mechanisms`)")
    return entry


# -- keys -------------------------------------------------------------------------------


def _keyless(info: MechanismInfo, key: bytes | None) -> MechanismInfo:
    if key:
        raise MechanismError(f"{info.name} takes no key")
    return info


def seeded_stream(name: str, seed: int) -> RandomBytes:
    """A deterministic byte stream for deriving ``name``'s key from ``seed``."""
    return SHAKE256.new(f"iotsecbench-agent key|{name}|{seed}".encode()).read


def symmetric_key(info: MechanismInfo, key: bytes | None, seed: int | None) -> bytes:
    """``key`` checked against the mechanism's key length, or a random/seeded one."""
    length = info.key_bytes
    if key is not None:
        if length is not None and len(key) != length:
            raise MechanismError(
                f"{info.name} needs a {length}-byte key ({length * 8} bits), got {len(key)} bytes"
            )
        if not key:
            raise MechanismError(f"{info.name} needs a non-empty key")
        return bytes(key)
    length = length or HMAC_DEFAULT_KEY_BYTES
    return seeded_stream(info.name, seed)(length) if seed is not None else DEFAULT_RANDOM(length)


def rsa_key(
    info: MechanismInfo, bits: int, key: bytes | None, seed: int | None, *, slot: str = ""
) -> RsaKey:
    """``key`` imported and checked against ``bits``, or the process's generated key for
    (``bits``, ``seed``, ``slot``): generated on first use, then reused. Keys of different
    slots are different key pairs unless a ``seed`` makes them (the seed alone decides a
    seeded key)."""
    if key is not None:
        try:
            imported = RSA.import_key(key)
        except (ValueError, IndexError, TypeError):
            raise MechanismError(f"{info.name}: the key is not a PEM or DER RSA key") from None
        if imported.size_in_bits() != bits:
            raise MechanismError(
                f"{info.name} needs a {bits}-bit RSA key, got {imported.size_in_bits()} bits"
            )
        return imported
    with _lock:
        cached = _rsa_cache.get((bits, seed, slot))
        if cached is None:
            randfunc = seeded_stream(f"rsa-{bits}", seed) if seed is not None else None
            cached = RSA.generate(bits, randfunc=randfunc)
            _rsa_cache[(bits, seed, slot)] = cached
        return cached


def ecc_key(info: MechanismInfo, curve: str, key: bytes | None, seed: int | None) -> EccKey:
    randfunc = seeded_stream(info.name, seed) if seed is not None else None
    if key is None:
        return ECC.generate(curve=curve, randfunc=randfunc)
    try:
        if len(key) == ECC_SCALAR_BYTES and curve == "Ed25519":
            return eddsa.import_private_key(key)
        if len(key) == ECC_SCALAR_BYTES:
            return ECC.construct(curve=curve, d=int.from_bytes(key, "big"))
        imported = ECC.import_key(key)
    except (ValueError, IndexError, TypeError):
        raise MechanismError(
            f"{info.name}: the key is neither a raw 32-byte private key nor a PEM/DER {curve} key"
        ) from None
    if imported.curve not in _CURVE_NAMES[curve]:
        raise MechanismError(f"{info.name} needs a {curve} key, got {imported.curve}")
    return imported


_CURVE_NAMES = {"P-256": ("NIST P-256", "P-256", "p256", "secp256r1"), "Ed25519": ("Ed25519",)}


# -- the built-in mechanisms: a builder per name of the contract's table ------------------


def _builtin(name: str, build: Builder) -> None:
    register(Entry(contract.describe(name), build))


def _builtins() -> None:
    _builtin("none", lambda info, key, seed, rnd: m.NoneMechanism(_keyless(info, key)))
    _builtin("null", lambda info, key, seed, rnd: m.NullMechanism(_keyless(info, key)))
    for bits in AES_SIZES:
        _register_cbc(f"aes-{bits}-cbc", lambda key, iv: AES.new(key, AES.MODE_CBC, iv=iv))
    for bits in AES_SIZES:
        _builtin(
            f"aes-{bits}-ctr",
            lambda info, key, seed, rnd: m.AesCtr(
                info, key=symmetric_key(info, key, seed), random_bytes=rnd
            ),
        )
    for bits in AES_SIZES:
        _builtin(
            f"aes-{bits}-gcm",
            lambda info, key, seed, rnd: m.AesGcm(
                info, key=symmetric_key(info, key, seed), random_bytes=rnd
            ),
        )
    _register_cbc(
        "des-cbc",
        # DES is broken; it is measured because the papers measured it.
        lambda key, iv: cast(m.Chain, DES.new(key, DES.MODE_CBC, iv=iv)),  # noqa: S304
    )
    _register_cbc("3des-cbc", lambda key, iv: cast(m.Chain, DES3.new(key, DES3.MODE_CBC, iv=iv)))
    _builtin(
        "rc4",
        lambda info, key, seed, rnd: m.Rc4(
            info, key=symmetric_key(info, key, seed), random_bytes=rnd
        ),
    )
    _builtin(
        "chacha20-poly1305",
        lambda info, key, seed, rnd: m.ChaChaPoly(
            info, key=symmetric_key(info, key, seed), random_bytes=rnd
        ),
    )
    _builtin(
        "hmac-sha256",
        lambda info, key, seed, rnd: m.HmacSha256(info, key=symmetric_key(info, key, seed)),
    )
    for scheme, _ in RSA_SCHEMES:
        for bits in RSA_SIZES:
            _register_rsa(bits, scheme)
    _builtin(
        "ecdsa-p256",
        lambda info, key, seed, rnd: m.EcdsaP256(info, key=ecc_key(info, "P-256", key, seed)),
    )
    _builtin(
        "ed25519",
        lambda info, key, seed, rnd: m.Ed25519(info, key=ecc_key(info, "Ed25519", key, seed)),
    )
    for cipher in LIGHTWEIGHT_CIPHERS:
        _register_lwc(cipher)
    _builtin("ascon-aead128", _build_ascon)


def _register_cbc(name: str, new_cbc: Callable[[bytes, bytes], m.Chain]) -> None:
    def build(
        info: MechanismInfo, key: bytes | None, seed: int | None, rnd: RandomBytes
    ) -> Mechanism:
        raw = symmetric_key(info, key, seed)
        zero_iv = bytes(info.block_bytes)
        try:
            new_cbc(raw, zero_iv)  # rejects e.g. a degenerate 3DES key here, not mid-run
        except ValueError as exc:
            raise MechanismError(f"{info.name}: {exc}") from None
        return m.ChainedCbc(
            info,
            new_chain=lambda: new_cbc(raw, zero_iv),
            block=info.block_bytes,
            random_bytes=rnd,
        )

    _builtin(name, build)


def _register_rsa(bits: int, scheme: str) -> None:
    _builtin(
        f"rsa-{bits}-{scheme}",
        lambda info, key, seed, rnd: m.RsaSignature(
            info, key=rsa_key(info, bits, key, seed), scheme=scheme
        ),
    )


def _register_lwc(cipher: str) -> None:
    def build_ecb(
        info: MechanismInfo, key: bytes | None, seed: int | None, rnd: RandomBytes
    ) -> Mechanism:
        return lwc.LwcEcb(info, cipher=lwc.block_cipher(cipher, symmetric_key(info, key, seed)))

    def build_cbc(
        info: MechanismInfo, key: bytes | None, seed: int | None, rnd: RandomBytes
    ) -> Mechanism:
        return lwc.LwcCbc(
            info,
            cipher=lwc.block_cipher(cipher, symmetric_key(info, key, seed)),
            random_bytes=rnd,
        )

    _builtin(f"{cipher}-ecb", build_ecb)
    _builtin(f"{cipher}-cbc", build_cbc)


def _build_ascon(
    info: MechanismInfo, key: bytes | None, seed: int | None, rnd: RandomBytes
) -> Mechanism:
    raw = symmetric_key(info, key, seed)
    return lwc.AsconAead128(info, native=lwc.load_native(), key=raw, random_bytes=rnd)


_builtins()
