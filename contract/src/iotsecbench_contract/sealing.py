"""Secrets a job must carry, sealed to the one device that may read them.

A one-way run's controller and its receivers share a payload key (ciphers, AEADs, HMAC).
The platform seals it to the device's broker certificate key (the agent's identity.py): ECDH
between a fresh P-256 key and the device's public key, HKDF-SHA256, AES-256-GCM, the run and the
device as associated data (a sealed key copied into another device's or run's job does not
open). Only the device's own key, which never left it, opens it. Used by the platform
(backend experiments) to seal and by the agent (executor) to open.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Mapping
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

ALGORITHM = "ecdh-p256+hkdf-sha256+aes-256-gcm"
INFO = b"iotsecbench sealed job secret v1"
NONCE_BYTES = 12


class SealError(ValueError):
    """A sealed secret that is malformed or not for this key and context."""


def _key(shared: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=INFO).derive(shared)


def seal(public_key: ec.EllipticCurvePublicKey, secret: bytes, *, context: str) -> dict[str, str]:
    """Seal ``secret`` to ``public_key`` (P-256), bound to ``context``."""
    ephemeral = ec.generate_private_key(ec.SECP256R1())
    nonce = os.urandom(NONCE_BYTES)
    sealed = AESGCM(_key(ephemeral.exchange(ec.ECDH(), public_key))).encrypt(
        nonce, secret, context.encode("utf-8")
    )
    epk = ephemeral.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return {
        "alg": ALGORITHM,
        "epk": base64.b64encode(epk).decode("ascii"),
        "nonce": base64.b64encode(nonce).decode("ascii"),
        "ct": base64.b64encode(sealed).decode("ascii"),
    }


def unseal(
    private_key: ec.EllipticCurvePrivateKey, sealed: Mapping[str, Any], *, context: str
) -> bytes:
    """Open what ``seal`` made for this key and context; SealError otherwise."""
    if sealed.get("alg") != ALGORITHM:
        raise SealError(f"sealed secret: algorithm {sealed.get('alg')!r}, expected {ALGORITHM}")
    try:
        epk = ec.EllipticCurvePublicKey.from_encoded_point(
            ec.SECP256R1(), base64.b64decode(sealed["epk"], validate=True)
        )
        nonce = base64.b64decode(sealed["nonce"], validate=True)
        ciphertext = base64.b64decode(sealed["ct"], validate=True)
        shared = private_key.exchange(ec.ECDH(), epk)
        return AESGCM(_key(shared)).decrypt(nonce, ciphertext, context.encode("utf-8"))
    except (KeyError, TypeError, ValueError) as exc:
        raise SealError(f"sealed secret is malformed: {exc}") from None
    except InvalidTag:
        raise SealError("sealed secret does not open with this device's key for this run") from None
