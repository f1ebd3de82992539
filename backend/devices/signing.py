"""Ed25519 signatures over the jobs the platform sends to agents (docs/control-plane.md §4)."""

from __future__ import annotations

import base64
import json
from functools import lru_cache
from typing import Any

from Crypto.PublicKey import ECC
from Crypto.Signature import eddsa
from django.conf import settings


@lru_cache(maxsize=1)
def _signing_key() -> ECC.EccKey:
    return ECC.import_key(settings.JOB_SIGNING_KEY)


def job_public_key_b64() -> str:
    """The raw 32-byte public key, base64: what an agent stores at enrollment."""
    raw = _signing_key().public_key().export_key(format="raw")
    return base64.b64encode(raw).decode("ascii")


def job_envelope(job: dict[str, Any]) -> bytes:
    """Serialise and sign a job; the signature covers exactly the payload bytes."""
    payload = json.dumps(job, separators=(",", ":"), sort_keys=True).encode()
    signature = eddsa.new(_signing_key(), "rfc8032").sign(payload)
    envelope = {
        "alg": "ed25519",
        "payload": base64.b64encode(payload).decode("ascii"),
        "sig": base64.b64encode(signature).decode("ascii"),
    }
    return json.dumps(envelope, separators=(",", ":")).encode()
