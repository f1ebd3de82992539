"""The common base of payload security mechanisms, and their errors.

A mechanism turns an application payload into the bytes put on the wire (``secure``) and
back (``unsecure``). It is built once per run with its key: key schedules, cipher objects,
signer objects and key imports happen in the constructor, so the timed per-message path
does only what must be done per message (a fresh IV or nonce, the cipher pass, the tag or
signature). See ``docs/security-mechanisms.md`` for each mechanism's wire framing.

Mechanism objects keep per-run state (e.g. a CBC chain, see ``mechanisms.py``) and are not
thread-safe: one runner thread owns one.
"""

from __future__ import annotations

import abc
import os
from typing import Callable

from iotsecbench_contract.mechanisms import MechanismInfo

from iotsecbench_agent.errors import AgentError

# Where IVs and nonces come from. Always os.urandom, except in known-answer tests, which
# pass the published IV to reproduce the published ciphertext.
RandomBytes = Callable[[int], bytes]
DEFAULT_RANDOM: RandomBytes = os.urandom
# ``unsecure_into``'s ``out`` holds at least the frame's length plus this many bytes (a
# payload is never longer than its frame; OpenSSL's ``update_into`` wants up to a block
# less a byte more than it writes).
INTO_SLACK = 16


class SecurityError(AgentError):
    """``unsecure`` refused a message: it is not what ``secure`` produced with this key."""


class DecryptError(SecurityError):
    """The message does not decrypt: wrong frame length, bad padding or a failed AEAD tag."""


class SignatureError(SecurityError):
    """The message's MAC or signature does not verify."""


class MechanismError(AgentError):
    """A mechanism cannot be set up as asked: an unknown name, a key of the wrong length
    or kind, or a native cipher whose module is not built on this device."""


class UnknownMechanism(MechanismError):
    """No mechanism is registered under that name (see iotsecbench_contract.mechanisms)."""


class Mechanism(abc.ABC):
    """Base of every security mechanism. Build one with ``registry.create``.

    Every mechanism has two per-message calls, as methods or, where that makes the
    per-message path shorter (``mechanisms.ChainedCbc``), as functions made per instance:

    - ``secure(payload)``: the bytes to put on the wire for ``payload`` (e.g. iv ||
      ciphertext, nonce || ciphertext || tag, payload || mac, payload || signature);
    - ``unsecure(data)``: the payload inside wire bytes made by ``secure``; raises
      DecryptError (frame, padding or AEAD tag) or SignatureError (MAC or signature).

    and, for a caller that owns and reuses its output buffers (the cipher bench, as
    ``openssl speed`` reuses its buffers):

    - ``secure_into(payload, out)``: what ``secure(payload)`` returns, as a ``memoryview``
      of ``out`` (a ``bytearray`` of at least ``len(payload) + overhead(len(payload)) +
      INTO_SLACK`` bytes, reused from call to call; the view is valid until ``out`` is
      next written). Where ``secures_into`` is True the frame is written into ``out``
      itself (no new buffer per message, no trim); otherwise it falls back to ``secure``
      and the view is of its result, ``out`` untouched. The same bytes as ``secure`` for
      the same IV or nonce, drawn the same way (one ``random_bytes`` call per message).

    - ``unsecure_into(data, out)``: what ``unsecure(data)`` returns, as a ``memoryview``
      of ``out`` (a ``bytearray`` of at least ``len(data) + INTO_SLACK`` bytes, reused
      from call to call; the view is valid until ``out`` is next written), with the same
      checks and errors. Where ``writes_into`` is True the payload is written into ``out``
      (no new buffer, so no zeroing or copy of it); otherwise it falls back to
      ``unsecure`` and the view is of its result, ``out`` untouched.
    """

    secure: Callable[[bytes], bytes]
    unsecure: Callable[[bytes], bytes]
    unsecure_into: Callable[[bytes, bytearray], memoryview]
    secure_into: Callable[[bytes, bytearray], memoryview]
    # True where secure_into writes the frame into ``out`` itself (OpensslCbc); the cipher
    # bench times secure_into only there, as it does unsecure_into below.
    secures_into: bool = False
    # True where unsecure_into writes the payload into ``out`` itself (openssl_mechanisms.
    # OpensslCbc); the cipher bench times unsecure_into only there, so a fallback's extra
    # call does not count against a mechanism without one.
    writes_into: bool = False

    def __init__(self, info: MechanismInfo) -> None:
        self.info = info
        self.name = info.name
        self.kind = info.kind
        self.unsecure_into = self._unsecure_then_view
        self.secure_into = self._secure_then_view

    def _secure_then_view(self, payload: bytes, out: bytearray) -> memoryview:
        return memoryview(self.secure(payload))

    def _unsecure_then_view(self, data: bytes, out: bytearray) -> memoryview:
        return memoryview(self.unsecure(data))

    def overhead(self, payload_len: int) -> int:
        """Exact number of bytes ``secure`` adds to a payload of ``payload_len`` bytes."""
        return self.info.overhead(payload_len)

    def __repr__(self) -> str:
        # Never the key.
        return f"<{type(self).__name__} {self.name}>"


def pkcs7_pad(data: bytes, block: int) -> bytes:
    """PKCS#7 padding (RFC 5652 §6.3): 1..block bytes, each holding the pad length."""
    n = block - len(data) % block
    return data + bytes((n,)) * n


def pkcs7_unpad(data: bytes, block: int, name: str) -> bytes:
    """Strip PKCS#7 padding or raise DecryptError. Not constant-time: these mechanisms
    are measured, not deployed behind a padding oracle."""
    n = data[-1] if data else 0
    if not 1 <= n <= block or len(data) < n or data[-n:] != bytes((n,)) * n:
        raise DecryptError(f"{name}: bad padding")
    return data[:-n]
