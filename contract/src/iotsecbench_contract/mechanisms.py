"""The security mechanisms a run can ask for (a job's ``spec.security``), as data.

What each mechanism is, known without building it: its name, the label and family the
platform shows, what it does to a payload (``kind``), its key size and the exact bytes it
adds. The device agent builds them (``iotsecbench_agent.security.registry``, one builder
per name here; its tests check it builds exactly these); the platform lists, validates and
sizes them from this table. See ``device-agent/docs/security-mechanisms.md`` for each
mechanism's wire framing.
"""

from __future__ import annotations

from dataclasses import dataclass

# kind: what a mechanism does to the payload.
NONE = "none"  # nothing at all
NULL = "null"  # a cipher's code path and framing without the cryptography (harness floor)
CIPHER = "cipher"  # confidentiality only
AEAD = "aead"  # confidentiality and integrity
MAC = "mac"  # integrity with a shared key
SIGNATURE = "signature"  # integrity and origin with a key pair
KINDS = (NONE, NULL, CIPHER, AEAD, MAC, SIGNATURE)

# The wire framing's sizes, in bytes.
NULL_FRAME_BYTES = 16  # the null mechanism's stand-in for an AES IV
AES_BLOCK_BYTES = 16
DES_BLOCK_BYTES = 8
CTR_NONCE_BYTES = 8  # AES-CTR: 8-byte nonce || 8-byte block counter from 0
AEAD_NONCE_BYTES = 12  # GCM and ChaCha20-Poly1305 (RFC 8439)
AEAD_TAG_BYTES = 16
RC4_NONCE_BYTES = 16
HMAC_SHA256_BYTES = 32
HMAC_DEFAULT_KEY_BYTES = 32  # a generated HMAC-SHA256 key is as long as the hash output
ECDSA_P256_SIGNATURE_BYTES = 64  # r || s
ED25519_SIGNATURE_BYTES = 64
LWC_BLOCK_BYTES = 8  # every native lightweight block cipher
ASCON_KEY_BYTES = 16
ASCON_NONCE_BYTES = 16
ASCON_TAG_BYTES = 16

AES_SIZES = (128, 192, 256)
RSA_SIZES = (2048, 3072, 4096)
RSA_SCHEMES = (("pkcs1v15", "PKCS#1 v1.5"), ("pss", "PSS"))
# Native lightweight block cipher -> (label, key bytes), as the C extension takes them.
LIGHTWEIGHT_CIPHERS = {
    "tea": ("TEA", 16),
    "xtea": ("XTEA", 16),
    "present-80": ("PRESENT-80", 10),
    "present-128": ("PRESENT-128", 16),
    "klein-64": ("KLEIN-64", 8),
    "klein-80": ("KLEIN-80", 10),
    "klein-96": ("KLEIN-96", 12),
    "lblock": ("LBlock", 10),
}


@dataclass(frozen=True)
class MechanismInfo:
    """What a mechanism is, known without building it (no key, no native module).

    The bytes a mechanism adds are ``fixed_overhead`` plus, for padded block modes,
    PKCS#7 padding to ``pad_block`` bytes (1..pad_block bytes, a whole block when the
    payload is already a multiple of it).
    """

    name: str
    label: str  # what the platform shows, e.g. "AES-128-CBC"
    family: str  # the platform's grouping, e.g. "AES", "Elliptic curve"
    kind: str  # one of KINDS
    key_bits: int  # security-relevant key size (DES: 56, 3DES: 168, RSA: the modulus)
    block_bytes: int  # the cipher's block size; 0 for stream ciphers, MACs and signatures
    description: str
    framing: str  # the wire bytes, e.g. "iv(16) || CBC(iv, PKCS#7(payload))"
    key_bytes: int | None  # length of a raw key for ``key=``; None: any length or a key file
    fixed_overhead: int
    pad_block: int = 0
    native: bool = False  # the agent needs its C extension (iotsecbench_agent._lwc)

    def overhead(self, payload_len: int) -> int:
        """Exact number of bytes ``secure`` adds to a payload of ``payload_len`` bytes."""
        if payload_len < 0:
            raise ValueError("payload_len must be >= 0")
        padding = self.pad_block - payload_len % self.pad_block if self.pad_block else 0
        return self.fixed_overhead + padding

    def largest_payload(self, limit: int) -> int:
        """The largest payload this mechanism secures into at most ``limit`` bytes."""
        size = limit - self.fixed_overhead
        while size > 0 and size + self.overhead(size) > limit:  # at most a block of padding
            size -= 1
        return max(size, 0)


def _info(
    name: str,
    label: str,
    family: str,
    kind: str,
    *,
    key_bits: int,
    description: str,
    framing: str,
    key_bytes: int | None,
    fixed: int,
    block: int = 0,
    pad: int = 0,
    native: bool = False,
) -> MechanismInfo:
    return MechanismInfo(
        name=name,
        label=label,
        family=family,
        kind=kind,
        key_bits=key_bits,
        block_bytes=block,
        description=description,
        framing=framing,
        key_bytes=key_bytes,
        fixed_overhead=fixed,
        pad_block=pad,
        native=native,
    )


def _cbc(
    name: str,
    label: str,
    family: str,
    *,
    key_bytes: int,
    block: int,
    description: str,
    key_bits: int | None = None,
    native: bool = False,
) -> MechanismInfo:
    """A block cipher in CBC mode: a random IV, PKCS#7 padding to the block."""
    return _info(
        name,
        label,
        family,
        CIPHER,
        key_bits=key_bits or key_bytes * 8,
        block=block,
        description=description,
        framing=f"iv({block}) || CBC(iv, PKCS#7(payload))",
        key_bytes=key_bytes,
        fixed=block,
        pad=block,
        native=native,
    )


def _aes() -> list[MechanismInfo]:
    cbc = [
        _cbc(
            f"aes-{bits}-cbc",
            f"AES-{bits}-CBC",
            "AES",
            key_bytes=bits // 8,
            block=AES_BLOCK_BYTES,
            description=f"AES-{bits} (FIPS 197), CBC, PKCS#7",
        )
        for bits in AES_SIZES
    ]
    ctr = [
        _info(
            f"aes-{bits}-ctr",
            f"AES-{bits}-CTR",
            "AES",
            CIPHER,
            key_bits=bits,
            block=AES_BLOCK_BYTES,
            description=f"AES-{bits}, CTR (NIST SP 800-38A), no integrity",
            framing="nonce(8) || AES-CTR(payload)",
            key_bytes=bits // 8,
            fixed=CTR_NONCE_BYTES,
        )
        for bits in AES_SIZES
    ]
    gcm = [
        _info(
            f"aes-{bits}-gcm",
            f"AES-{bits}-GCM",
            "AES",
            AEAD,
            key_bits=bits,
            block=AES_BLOCK_BYTES,
            description=f"AES-{bits}-GCM AEAD (NIST SP 800-38D)",
            framing="nonce(12) || ciphertext || tag(16)",
            key_bytes=bits // 8,
            fixed=AEAD_NONCE_BYTES + AEAD_TAG_BYTES,
        )
        for bits in AES_SIZES
    ]
    return [*cbc, *ctr, *gcm]


def _rsa() -> list[MechanismInfo]:
    return [
        _info(
            f"rsa-{bits}-{scheme}",
            f"RSA-{bits} {label} (SHA-256)",
            "RSA",
            SIGNATURE,
            key_bits=bits,
            description=f"RSA-{bits} {label} signature over SHA-256 (RFC 8017)",
            framing=f"payload || signature({bits // 8})",
            key_bytes=None,
            fixed=bits // 8,
        )
        for scheme, label in RSA_SCHEMES
        for bits in RSA_SIZES
    ]


def _lightweight() -> list[MechanismInfo]:
    block = LWC_BLOCK_BYTES
    infos = []
    for cipher, (label, key_bytes) in LIGHTWEIGHT_CIPHERS.items():
        ecb = _info(
            f"{cipher}-ecb",
            f"{label}-ECB",
            "Lightweight",
            CIPHER,
            key_bits=key_bytes * 8,
            block=block,
            description=f"{cipher.upper()}, ECB, PKCS#7, native",
            framing="ECB(PKCS#7(payload))",
            key_bytes=key_bytes,
            fixed=0,
            pad=block,
            native=True,
        )
        cbc = _cbc(
            f"{cipher}-cbc",
            f"{label}-CBC",
            "Lightweight",
            key_bytes=key_bytes,
            block=block,
            description=f"{cipher.upper()}, CBC, PKCS#7, native",
            native=True,
        )
        infos += [ecb, cbc]
    return infos


MECHANISMS: tuple[MechanismInfo, ...] = (
    _info(
        "none",
        "None",
        "None",
        NONE,
        key_bits=0,
        description="no security: the payload as it is",
        framing="payload",
        key_bytes=0,
        fixed=0,
    ),
    _info(
        "null",
        "Null (harness floor, no cryptography)",
        "None",
        NULL,
        key_bits=0,
        description="a cipher's framing and copies without cryptography: the floor",
        framing="zeros(16) || payload",
        key_bytes=0,
        fixed=NULL_FRAME_BYTES,
    ),
    *_aes(),
    # DES is broken; it is measured because the papers measured it.
    _cbc(
        "des-cbc",
        "DES-CBC",
        "DES",
        key_bits=56,
        key_bytes=8,
        block=DES_BLOCK_BYTES,
        description="DES (FIPS 46-3), CBC, PKCS#7",
    ),
    _cbc(
        "3des-cbc",
        "3DES-CBC (3 keys)",
        "DES",
        key_bits=168,
        key_bytes=24,
        block=DES_BLOCK_BYTES,
        description="3-key Triple DES EDE (NIST SP 800-67), CBC, PKCS#7",
    ),
    _info(
        "rc4",
        "RC4",
        "Stream",
        CIPHER,
        key_bits=128,
        description="RC4 keyed with key || per-message nonce (broken; for the papers)",
        framing="nonce(16) || RC4(key || nonce)(payload)",
        key_bytes=16,
        fixed=RC4_NONCE_BYTES,
    ),
    _info(
        "chacha20-poly1305",
        "ChaCha20-Poly1305",
        "Stream",
        AEAD,
        key_bits=256,
        description="ChaCha20-Poly1305 AEAD (RFC 8439)",
        framing="nonce(12) || ciphertext || tag(16)",
        key_bytes=32,
        fixed=AEAD_NONCE_BYTES + AEAD_TAG_BYTES,
    ),
    _info(
        "hmac-sha256",
        "HMAC-SHA256",
        "MAC",
        MAC,
        key_bits=HMAC_DEFAULT_KEY_BYTES * 8,
        description="HMAC-SHA256 (RFC 2104), integrity only",
        framing="payload || mac(32)",
        key_bytes=None,
        fixed=HMAC_SHA256_BYTES,
    ),
    *_rsa(),
    _info(
        "ecdsa-p256",
        "ECDSA P-256 (SHA-256)",
        "Elliptic curve",
        SIGNATURE,
        key_bits=256,
        description="ECDSA P-256 over SHA-256, deterministic nonces (RFC 6979)",
        framing="payload || r(32) || s(32)",
        key_bytes=None,
        fixed=ECDSA_P256_SIGNATURE_BYTES,
    ),
    _info(
        "ed25519",
        "Ed25519",
        "Elliptic curve",
        SIGNATURE,
        key_bits=256,
        description="Ed25519 (RFC 8032)",
        framing="payload || signature(64)",
        key_bytes=None,
        fixed=ED25519_SIGNATURE_BYTES,
    ),
    *_lightweight(),
    _info(
        "ascon-aead128",
        "Ascon-AEAD128 (NIST SP 800-232)",
        "Lightweight",
        AEAD,
        key_bits=128,
        description="Ascon-AEAD128 (NIST SP 800-232), native",
        framing="nonce(16) || ciphertext || tag(16)",
        key_bytes=ASCON_KEY_BYTES,
        fixed=ASCON_NONCE_BYTES + ASCON_TAG_BYTES,
        native=True,
    ),
)
NAMES: tuple[str, ...] = tuple(info.name for info in MECHANISMS)
_BY_NAME = {info.name: info for info in MECHANISMS}


def describe(name: str) -> MechanismInfo:
    """The mechanism called ``name``; KeyError for a name not in MECHANISMS."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown security mechanism {name!r}") from None
