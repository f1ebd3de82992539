"""The crypto library a cipher bench or throughput run measures (``spec.crypto_library``),
and which mechanisms each library provides.

- ``pycryptodome`` (the default): every mechanism of ``mechanisms``, as before the field
  existed (a spec without the field is this library, and its job JSON does not carry it).
- ``openssl``: OpenSSL in-process through the ``cryptography`` binding (it bundles its own
  OpenSSL); the symmetric ciphers, HMAC and the ``none``/``null`` floors. A cipher bench's
  timed CBC calls go through the agent's EVP extension on the system's libcrypto where the
  agent was built with it (device-agent security/openssl_mechanisms.py; its facts report
  ``libraries["openssl-evp"]``).
- ``openssl-cli`` (cipher bench only): the OpenSSL paper's own method, the ``openssl enc``
  command run on the data file, its wall time, CPU time and peak RSS being that process's
  (the ciphers ``openssl enc`` has: no AEAD, no MAC, no signature).

A mechanism a library does not provide is refused naming both, at design time by the
platform and at job time by the agent, with the message of ``check_library``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from iotsecbench_contract.errors import JobSpecError
from iotsecbench_contract.mechanisms import AES_SIZES, NAMES, NONE, NULL

PYCRYPTODOME = "pycryptodome"
OPENSSL = "openssl"
OPENSSL_CLI = "openssl-cli"
DEFAULT_LIBRARY = PYCRYPTODOME
CIPHER_BENCH_LIBRARIES = (PYCRYPTODOME, OPENSSL, OPENSSL_CLI)
THROUGHPUT_LIBRARIES = (PYCRYPTODOME, OPENSSL)

# The ciphers of ``openssl enc`` that are mechanisms here (same key, IV/nonce layout).
OPENSSL_CLI_MECHANISMS: tuple[str, ...] = (
    *(f"aes-{bits}-cbc" for bits in AES_SIZES),
    *(f"aes-{bits}-ctr" for bits in AES_SIZES),
    "des-cbc",
    "3des-cbc",
    "rc4",
)
OPENSSL_MECHANISMS: tuple[str, ...] = (
    NONE,
    NULL,
    *OPENSSL_CLI_MECHANISMS,
    *(f"aes-{bits}-gcm" for bits in AES_SIZES),
    "hmac-sha256",
)

LIBRARY_MECHANISMS: dict[str, tuple[str, ...]] = {
    PYCRYPTODOME: NAMES,
    OPENSSL: OPENSSL_MECHANISMS,
    OPENSSL_CLI: OPENSSL_CLI_MECHANISMS,
}


def provides(library: str, mechanism: str) -> bool:
    return mechanism in LIBRARY_MECHANISMS.get(library, ())


def library_field(spec: Mapping[str, Any], allowed: Sequence[str]) -> str:
    """``spec.crypto_library``: one of ``allowed``; absent means ``pycryptodome``."""
    value = spec.get("crypto_library", DEFAULT_LIBRARY)
    if value not in allowed:
        raise JobSpecError(
            f"spec.crypto_library must be one of {', '.join(allowed)}, got {value!r}",
            field="crypto_library",
        )
    return str(value)


def check_library(library: str, mechanisms: Sequence[str]) -> None:
    """JobSpecError naming the first mechanism ``library`` does not provide."""
    for name in mechanisms:
        if not provides(library, name):
            raise JobSpecError(
                f"spec.mechanisms: mechanism {name!r} is not available in crypto library "
                f"{library!r} (it provides: {', '.join(LIBRARY_MECHANISMS[library])})",
                field="mechanisms",
            )
