"""Payload security mechanisms: what a run applies to each message before it goes on the
wire (ciphers, AEADs, MACs, signatures), by name. See ``registry`` and
``docs/security-mechanisms.md``."""

from __future__ import annotations

from iotsecbench_agent.security.base import (
    DecryptError,
    Mechanism,
    MechanismError,
    MechanismInfo,
    SecurityError,
    SignatureError,
    UnknownMechanism,
)
from iotsecbench_agent.security.registry import create, describe, names

__all__ = [
    "DecryptError",
    "Mechanism",
    "MechanismError",
    "MechanismInfo",
    "SecurityError",
    "SignatureError",
    "UnknownMechanism",
    "create",
    "describe",
    "names",
]
