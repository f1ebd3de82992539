"""Payload security mechanisms: what a run applies to each message before it goes on the
wire (ciphers, AEADs, MACs, signatures), by name. What each one is (name, kind, key size,
overhead) is ``iotsecbench_contract.mechanisms``; see ``registry`` and
``docs/security-mechanisms.md``."""

from __future__ import annotations

from iotsecbench_agent.security.base import (
    DecryptError,
    Mechanism,
    MechanismError,
    SecurityError,
    SignatureError,
    UnknownMechanism,
)
from iotsecbench_agent.security.registry import create, describe, names

__all__ = [
    "DecryptError",
    "Mechanism",
    "MechanismError",
    "SecurityError",
    "SignatureError",
    "UnknownMechanism",
    "create",
    "describe",
    "names",
]
