"""The device end of a SRUP round trip: the echo peer.

It checks every request on its topic with its ``Receiver`` (the controller's public key,
then the sequence ID), and answers an accepted request with a data message of its own:
signed with the device's key, its own increasing sequence ID, the request's token (which
is how the controller knows which request a reply answers) and the request's data (an
action request: its one action byte), under data ID ``echo``. A refused request gets no
answer; the refusal is counted in ``rejected`` by outcome. Its own replies, which the
broker routes back to it on the same topic, are skipped by sender ID, as the reference
library's endpoints do.

No I/O here: the runner passes it the bytes that arrived and publishes what it returns.
"""

from __future__ import annotations

from collections import Counter

from iotsecbench_agent.security.base import SecurityError
from iotsecbench_agent.security.mechanisms import Signature
from iotsecbench_agent.srup.codec import encode_data, sender_of
from iotsecbench_agent.srup.receiver import Receiver, outcome_of

ECHO_DATA_ID = b"echo"


class EchoPeer:
    def __init__(self, *, device_id: int, signer: Signature, receiver: Receiver) -> None:
        self.device_id = device_id
        self._sign = signer.sign
        self._receiver = receiver
        self._sequence_id = 0
        self.rejected: Counter[str] = Counter()

    def answer(self, wire: bytes) -> bytes | None:
        """The signed reply to ``wire``, or None (its own message, or refused)."""
        if sender_of(wire) == self.device_id:
            return None
        try:
            request = self._receiver.accept(wire)
        except SecurityError as exc:
            self.rejected[outcome_of(exc)] += 1
            return None
        self._sequence_id += 1
        if request.data is not None:
            data = request.data
        else:
            assert request.action is not None  # decode sets one or the other
            data = bytes((request.action,))
        return encode_data(
            sequence_id=self._sequence_id,
            sender_id=self.device_id,
            token=request.token,
            data_id=ECHO_DATA_ID,
            data=data,
            sign=self._sign,
        )
