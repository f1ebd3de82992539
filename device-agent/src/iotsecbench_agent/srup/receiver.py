"""What a SRUP endpoint checks before it acts on a message.

In this order, each failure counted as the outcome named:

1. the bytes decode as a SRUP v5 action or data message (else ``rejected_signature``:
   ``codec.MalformedMessage``);
2. the sender is one whose public key the endpoint holds (else ``rejected_signature``:
   ``UnknownSender``);
3. the signature verifies with that key (else ``rejected_signature``);
4. the sequence ID is greater than the last one accepted from that sender (else
   ``rejected_replay``: ``ReplayedMessage``); then it becomes the last one.

The signature is checked before the sequence ID, and the last sequence ID moves only for
a message that verified: a forged message can neither advance a sender's counter (which
would make the sender's next genuine messages look replayed) nor be reported as a replay
when it is a forgery. (The reference library's Python wrapper compares and stores the
sequence ID before it verifies; that ordering is not reproduced.) Sequence IDs start
above 0: the first message a sender may send has sequence ID 1, as in the reference
library, whose senders count from 0 and increment before sending.

One receiver keeps the state of one endpoint for one run, and is not thread-safe.
"""

from __future__ import annotations

from collections.abc import Mapping

from iotsecbench_agent.security.base import SecurityError, SignatureError
from iotsecbench_agent.security.mechanisms import Signature
from iotsecbench_agent.srup.codec import Message, decode
from iotsecbench_agent.storage.recordlog import REJECTED_REPLAY, REJECTED_SIGNATURE


class UnknownSender(SignatureError):
    """No public key is known for the message's sender ID: nothing it says can be
    verified. Counted as ``rejected_signature``."""


class ReplayedMessage(SecurityError):
    """The message verified, but its sequence ID is not greater than the last one
    accepted from its sender: a replay (or a reordering). Counted as ``rejected_replay``."""


class Receiver:
    """The inbound checks of one SRUP endpoint (see the module doc); ``verifiers`` maps
    each sender ID it accepts messages from to that sender's public key."""

    def __init__(self, verifiers: Mapping[int, Signature]) -> None:
        self._verifiers = dict(verifiers)
        self._last: dict[int, int] = {}

    def accept(self, wire: bytes) -> Message:
        """The message, if it passes every check; MalformedMessage, UnknownSender,
        SignatureError or ReplayedMessage if not."""
        message = decode(wire)
        sender = message.sender_id
        verifier = self._verifiers.get(sender)
        if verifier is None:
            raise UnknownSender(f"SRUP: no key for sender {sender:016x}")
        verifier.verify(message.signed, message.signature)
        last = self._last.get(sender, 0)
        if message.sequence_id <= last:
            raise ReplayedMessage(
                f"SRUP: sequence ID {message.sequence_id} from {sender:016x} is not above "
                f"the last accepted, {last}"
            )
        self._last[sender] = message.sequence_id
        return message

    def last_sequence_id(self, sender: int) -> int:
        """The last sequence ID accepted from ``sender`` (0: none yet)."""
        return self._last.get(sender, 0)


def outcome_of(error: SecurityError) -> str:
    """The record outcome of a message that ``Receiver.accept`` refused."""
    return REJECTED_REPLAY if isinstance(error, ReplayedMessage) else REJECTED_SIGNATURE
