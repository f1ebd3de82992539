"""The payload of a one-way message (device-agent/docs/one-way.md), before securing:

    seq (8, big-endian) | t_send_ns (8, big-endian) | filler 0xA5 to payload_size

``seq`` counts each device's messages from 0; ``t_send_ns`` is the controller's wall clock
(``time.time_ns()``) taken just before the payload was secured. After its last message
the controller sends each device an END marker: the same layout with ``seq`` = 2**64 - 1,
secured the same way, so a receiver knows the schedule is over without knowing it.
"""

from __future__ import annotations

from dataclasses import dataclass

from iotsecbench_contract.limits import ONE_WAY_MIN_PAYLOAD

SEQ_BYTES = 8
TIME_BYTES = 8
HEADER_BYTES = SEQ_BYTES + TIME_BYTES  # == ONE_WAY_MIN_PAYLOAD, the contract's minimum
END_SEQ = 2**64 - 1
FILLER = 0xA5
# A SRUP data message carries the payload under this data ID (as the SRUP round trip's).
SRUP_DATA_ID = b"data"


@dataclass(frozen=True)
class OneWayPayload:
    seq: int
    t_send_ns: int

    @property
    def is_end(self) -> bool:
        return self.seq == END_SEQ


def build_payload(seq: int, t_send_ns: int, payload_size: int) -> bytes:
    """The payload of message ``seq`` (``END_SEQ`` for the END marker)."""
    if payload_size < ONE_WAY_MIN_PAYLOAD:
        raise ValueError(f"a one-way payload needs {ONE_WAY_MIN_PAYLOAD} bytes or more")
    return (
        seq.to_bytes(SEQ_BYTES, "big")
        + t_send_ns.to_bytes(TIME_BYTES, "big")
        + bytes([FILLER]) * (payload_size - HEADER_BYTES)
    )


def parse_payload(payload: bytes) -> OneWayPayload | None:
    """The seq and send time of an (unsecured) payload; None if it is too short to be one."""
    if len(payload) < HEADER_BYTES:
        return None
    return OneWayPayload(
        seq=int.from_bytes(payload[:SEQ_BYTES], "big"),
        t_send_ns=int.from_bytes(payload[SEQ_BYTES:HEADER_BYTES], "big"),
    )
