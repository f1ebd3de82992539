"""SRUP, the Secure Remote Update Protocol (Poulter et al.), reimplemented from its wire
format: signed action and data messages with per-sender sequence IDs against replay,
over MQTT (+TLS with client certificates) on topic ``SRUP/<device id>``.

- ``codec``: the message format (encode, decode, tokens);
- ``keys``: one party's signing key and public key (RSA-2048/4096 PKCS#1 v1.5 SHA-256,
  Ed25519);
- ``receiver``: signature and sequence-ID checks, with the outcome of a refusal.

The round-trip runner over MQTT is ``runners/srup_roundtrip.py``; the job fields are in
``docs/srup.md``.
"""

from __future__ import annotations

from iotsecbench_agent.srup.codec import (
    TOKEN_BYTES,
    TYPE_ACTION,
    TYPE_DATA,
    VERSION,
    MalformedMessage,
    Message,
    decode,
    encode_action,
    encode_data,
    new_token,
    sender_of,
)
from iotsecbench_agent.srup.keys import SIGNATURES, PartyKey, load_key
from iotsecbench_agent.srup.receiver import Receiver, ReplayedMessage, UnknownSender, outcome_of

__all__ = [
    "SIGNATURES",
    "TOKEN_BYTES",
    "TYPE_ACTION",
    "TYPE_DATA",
    "VERSION",
    "MalformedMessage",
    "Message",
    "PartyKey",
    "Receiver",
    "ReplayedMessage",
    "UnknownSender",
    "decode",
    "encode_action",
    "encode_data",
    "load_key",
    "new_token",
    "outcome_of",
    "sender_of",
]
