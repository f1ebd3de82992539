"""What an experiment can ask of an agent: the security mechanisms and experiment kinds.

The mechanism names are the device agent's registry names
(device-agent/src/iotsecbench_agent/security/registry.py); a test checks both lists agree.
"""

from __future__ import annotations

from dataclasses import dataclass

from iotsecbench_agent.security import registry


@dataclass(frozen=True)
class MechanismInfo:
    name: str
    label: str
    family: str
    kind: str  # none | null | cipher | aead | mac | signature
    key_bits: int | None


def _aes() -> list[MechanismInfo]:
    kinds = {"cbc": "cipher", "ctr": "cipher", "gcm": "aead"}
    return [
        MechanismInfo(f"aes-{bits}-{mode}", f"AES-{bits}-{mode.upper()}", "AES", kind, bits)
        for mode, kind in kinds.items()
        for bits in (128, 192, 256)
    ]


def _rsa() -> list[MechanismInfo]:
    return [
        MechanismInfo(
            f"rsa-{bits}-{padding}",
            f"RSA-{bits} {'PKCS#1 v1.5' if padding == 'pkcs1v15' else 'PSS'} (SHA-256)",
            "RSA",
            "signature",
            bits,
        )
        for padding in ("pkcs1v15", "pss")
        for bits in (2048, 3072, 4096)
    ]


_LIGHTWEIGHT = {
    "tea": ("TEA", 128),
    "xtea": ("XTEA", 128),
    "present-80": ("PRESENT-80", 80),
    "present-128": ("PRESENT-128", 128),
    "klein-64": ("KLEIN-64", 64),
    "klein-80": ("KLEIN-80", 80),
    "klein-96": ("KLEIN-96", 96),
    "lblock": ("LBlock", 80),
}


def _lightweight() -> list[MechanismInfo]:
    return [
        MechanismInfo(f"{name}-{mode}", f"{label}-{mode.upper()}", "Lightweight", "cipher", bits)
        for name, (label, bits) in _LIGHTWEIGHT.items()
        for mode in ("ecb", "cbc")
    ]


MECHANISMS: tuple[MechanismInfo, ...] = (
    MechanismInfo("none", "None", "None", "none", None),
    MechanismInfo("null", "Null (harness floor, no cryptography)", "None", "null", None),
    *_aes(),
    MechanismInfo("des-cbc", "DES-CBC", "DES", "cipher", 56),
    MechanismInfo("3des-cbc", "3DES-CBC (3 keys)", "DES", "cipher", 168),
    MechanismInfo("rc4", "RC4", "Stream", "cipher", 128),
    MechanismInfo("chacha20-poly1305", "ChaCha20-Poly1305", "Stream", "aead", 256),
    MechanismInfo("hmac-sha256", "HMAC-SHA256", "MAC", "mac", 256),
    *_rsa(),
    MechanismInfo("ecdsa-p256", "ECDSA P-256 (SHA-256)", "Elliptic curve", "signature", 256),
    MechanismInfo("ed25519", "Ed25519", "Elliptic curve", "signature", 256),
    *_lightweight(),
    MechanismInfo("ascon-aead128", "Ascon-AEAD128 (NIST SP 800-232)", "Lightweight", "aead", 128),
)
MECHANISM_NAMES = tuple(m.name for m in MECHANISMS)
MECHANISM_KINDS = ["none", "null", "cipher", "aead", "mac", "signature"]
MECHANISM_CHOICES = [(m.name, m.label) for m in MECHANISMS]


def largest_payload(mechanism: str, limit: int) -> int:
    """The largest payload that ``mechanism`` secures into at most ``limit`` bytes (the
    agent registry's exact overhead: IV, padding, tag or signature)."""
    info = registry.describe(mechanism)
    size = limit - info.fixed_overhead
    while size > 0 and size + info.overhead(size) > limit:  # at most a block of padding
        size -= 1
    return max(size, 0)
