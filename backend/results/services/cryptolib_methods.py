"""The methods paragraph's words for a run's crypto library (``spec.crypto_library`` of a
cipher bench or throughput run, iotsecbench_contract.cryptolibs): which library, with the
version each device reported in its facts, and how an ``openssl-cli`` run was timed
(device-agent cipherbench/opensslcli.py)."""

from __future__ import annotations

from typing import Any

from iotsecbench_contract.cryptolibs import DEFAULT_LIBRARY, OPENSSL, OPENSSL_CLI

from experiments.models import RunDevice

_NAMES = {
    DEFAULT_LIBRARY: "pycryptodome",
    OPENSSL: "OpenSSL in the agent's process through the cryptography binding",
    OPENSSL_CLI: "the OpenSSL command (openssl enc), one process per operation",
}
# The facts' ``libraries`` keys that give each library's version.
_VERSION_KEYS = {
    DEFAULT_LIBRARY: ("pycryptodome",),
    # openssl-evp: the system libcrypto of the agent's EVP extension, through which a
    # cipher bench's CBC calls are timed (agents built without it do not report it).
    OPENSSL: ("cryptography", "openssl", "openssl-evp"),
    OPENSSL_CLI: ("openssl-cli",),
}


def library_of(spec: dict[str, Any]) -> str:
    return str(spec.get("crypto_library", DEFAULT_LIBRARY))


def library_sentence(spec: dict[str, Any], devices: list[RunDevice]) -> str:
    """`The mechanisms were those of <library> (<versions per device>).`"""
    library = library_of(spec)
    versions: list[str] = []
    for rd in devices:
        libraries = (rd.facts or {}).get("libraries") or {}
        found = [
            _version_text(key, str(libraries[key]))
            for key in _VERSION_KEYS.get(library, ())
            if libraries.get(key)
        ]
        text = ", ".join(found) or "version not reported"
        if text not in versions:
            versions.append(text)
    reported = f" ({'; '.join(versions)})" if versions else ""
    return f"The mechanisms were those of {_NAMES.get(library, library)}{reported}."


def _version_text(key: str, version: str) -> str:
    if key in ("pycryptodome", "cryptography"):
        return f"{key} {version}"
    if key == "openssl-evp":
        return f"CBC calls through the agent's EVP extension on {version}"
    return version


def cli_timing_sentence(mechanisms: str, sizes: str, repetitions: str) -> str:
    """How an ``openssl-cli`` cipher bench timed each repetition."""
    return (
        f"Each device ran openssl enc with {mechanisms} on files of {sizes} of pseudo-random "
        f"data, {repetitions} repetitions of each mechanism, size and direction (encrypt the "
        "file, then decrypt the ciphertext file and compare it with the data outside the "
        "timing) after an unrecorded warm-up, with -K/-iv given in hex and no salt; each "
        "repetition's wall time (perf_counter_ns) spans starting the process and reaping it, "
        "its CPU time is the process's user and system time and its peak memory the "
        "process's own resident high-water mark (ru_maxrss from wait4, read through GNU "
        "time so the agent's memory is not carried into it)."
    )
