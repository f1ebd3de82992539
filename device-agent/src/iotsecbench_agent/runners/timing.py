"""How every messaging runner times a security mechanism, and the harness floor beside it.

One way for all of them, so that a mechanism's times and the floor's are taken by the same
code:

- ``time_secure(secure, payload)``: ``perf_counter_ns`` just before and just after the
  call. A round-trip runner's ``t_send`` is the reading before (the round trip starts
  before securing, as the MQTT/CoAP paper measures it) and ``secure_ns`` the difference.
- ``time_unsecure(unsecure, data)``: the same around ``unsecure`` (for SRUP, the receiver's
  decode, verify and sequence check), catching the ``SecurityError`` a refused message
  raises. The reading after is the round trip's ``t_recv``; ``unsecure_ns`` the difference.
- ``HarnessFloor``: the ``null`` mechanism (a cipher's framing without the cipher, the
  harness floor of device-agent/docs/security-mechanisms.md), built once per run, timed
  through these two functions on a payload of the message's size, once per message AFTER
  its round trip (never between ``t_send`` and ``t_recv``). Its figures are the records'
  ``floor_secure_ns`` / ``floor_unsecure_ns``: what securing and unsecuring cost in this
  harness on this message's conditions before any cryptography, so a mechanism's cost net
  of the harness is ``secure_ns - floor_secure_ns``.
- ``Reply``: what a round-trip runner's receive callback saw of the reply it awaits.
- ``round_trip_record(...)``: the one Record of a round trip, built the same way by every
  round-trip runner once its ``t_recv`` is taken: the floor measured there, and the times
  turned into the run clock's wall time.
"""

from __future__ import annotations

import threading
from time import perf_counter_ns
from typing import TYPE_CHECKING, Callable, TypeVar

from iotsecbench_contract.mechanisms import NONE, NULL

from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import DecryptError, SecurityError
from iotsecbench_agent.srup.receiver import ReplayedMessage
from iotsecbench_agent.storage import recordlog
from iotsecbench_agent.storage.recordlog import DECRYPT_ERROR, REJECTED_REPLAY, REJECTED_SIGNATURE

if TYPE_CHECKING:
    from iotsecbench_agent.runners.base import RunClock

T = TypeVar("T")


def time_secure(secure: Callable[[bytes], bytes], payload: bytes) -> tuple[bytes, int, int]:
    """``(secured bytes, t_before, t_after)``, both ``perf_counter_ns`` readings. The clock
    is read before the result tuple is built, so only the call itself lies between them."""
    t_before = perf_counter_ns()
    wire = secure(payload)
    return wire, t_before, perf_counter_ns()


def time_unsecure(
    unsecure: Callable[[bytes], T], data: bytes
) -> tuple[T | None, SecurityError | None, int, int]:
    """``(result, None, t_before, t_after)``, or ``(None, error, t_before, t_after)`` when
    ``unsecure`` refused the bytes (``DecryptError``, ``SignatureError``, a SRUP replay):
    the time is the same either way, a refusal is measured as it happened."""
    t_before = perf_counter_ns()
    try:
        result = unsecure(data)
    except SecurityError as exc:
        return None, exc, t_before, perf_counter_ns()
    return result, None, t_before, perf_counter_ns()


def refusal_outcome(error: SecurityError) -> str:
    """The record outcome of a message ``unsecure`` refused."""
    if isinstance(error, ReplayedMessage):
        return REJECTED_REPLAY
    if isinstance(error, DecryptError):
        return DECRYPT_ERROR
    return REJECTED_SIGNATURE


class HarnessFloor:
    """The ``null`` mechanism of one run, timed per message beside the run's own.

    Built in a runner's ``setup`` (no object is made per message). ``measure`` costs four
    clock reads and two short calls, about a microsecond, between two messages.
    """

    def __init__(self) -> None:
        null = registry.create(NULL)
        self._secure = null.secure
        self._unsecure = null.unsecure

    @classmethod
    def for_security(cls, security: str) -> HarnessFloor | None:
        """The floor of a run secured with ``security``; None for ``none``: without a
        mechanism nothing is secured, so there is no cost to set a floor under (a run
        whose mechanism is ``null`` still measures it: the floor of the floor)."""
        return None if security == NONE else cls()

    def measure(self, payload: bytes, *, echoed: bool) -> tuple[int, int | None]:
        """``(floor_secure_ns, floor_unsecure_ns)`` for a message of ``payload``'s size.
        ``floor_unsecure_ns`` is None when nothing came back (``echoed`` False), as the
        message's own ``unsecure_ns`` is: both columns cover the same messages."""
        frame, t0, t1 = time_secure(self._secure, payload)
        if not echoed:
            return t1 - t0, None
        _, _, t2, t3 = time_unsecure(self._unsecure, frame)
        return t1 - t0, t3 - t2

    def frame(self, payload_size: int) -> bytes:
        """A null frame of a ``payload_size``-byte payload, for a receiver that only
        unsecures (made once, in ``setup``)."""
        return self._secure(bytes(payload_size))

    def unsecure_ns(self, frame: bytes) -> int:
        """``floor_unsecure_ns``: the null mechanism's ``unsecure`` of ``frame``, timed."""
        _, _, t0, t1 = time_unsecure(self._unsecure, frame)
        return t1 - t0


class Reply:
    """The reply (an echo) awaited for the message in flight, as the receive callback saw
    it: ``came`` stores its ``t_recv``, its unsecure time and its outcome, then sets
    ``arrived``, which the runner clears before each message."""

    def __init__(self) -> None:
        self.arrived = threading.Event()
        self.t_recv = 0
        self.unsecure_ns = 0
        self.outcome = recordlog.OK

    def came(self, t_unsecure: int, t_recv: int, outcome: str) -> None:
        """The reply came: ``time_unsecure``'s two readings around its unsecure."""
        self.t_recv = t_recv
        self.unsecure_ns = t_recv - t_unsecure
        self.outcome = outcome
        self.arrived.set()


def round_trip_record(
    clock: RunClock,
    floor: HarnessFloor | None,
    seq: int,
    payload: bytes,
    times: tuple[int, int, int | None],
    wire_bytes: int,
    outcome: str,
    unsecure_ns: int | None,
    mechanism: str | None = None,
) -> recordlog.Record:
    """The record of round trip ``seq`` once its ``t_recv`` is taken, the harness floor
    measured now, beside it, on the same payload. ``times`` are its ``perf_counter_ns``
    readings ``(t_send, t_secured, t_recv)`` (the first two ``time_secure``'s). A LOST one
    has neither a receive time nor an unsecure time, whatever is passed for them.
    ``mechanism``: the message's mechanism in an interleaved run (runners/interleave.py)."""
    t_send, t_secured, t_recv = times
    echoed = outcome != recordlog.LOST
    floor_secure_ns, floor_unsecure_ns = (
        floor.measure(payload, echoed=echoed) if floor is not None else (None, None)
    )
    return recordlog.Record(
        seq=seq,
        t_send_ns=clock.wall_ns(t_send),
        t_recv_ns=clock.wall_ns(t_recv) if echoed and t_recv is not None else None,
        app_bytes=len(payload),
        wire_bytes=wire_bytes,
        outcome=outcome,
        secure_ns=t_secured - t_send,
        unsecure_ns=unsecure_ns if echoed else None,
        floor_secure_ns=floor_secure_ns,
        floor_unsecure_ns=floor_unsecure_ns,
        mechanism=mechanism,
    )


def ack_record(
    clock: RunClock,
    floor: HarnessFloor | None,
    seq: int,
    payload: bytes,
    times: tuple[int, int, int | None],
    wire_bytes: int,
    outcome: str,
) -> recordlog.Record:
    """The record of acknowledgement-timed message ``seq`` (measurement ``ack``):
    ``times`` are ``(t_send, t_secured, t_ack)``, ``t_ack`` the reading taken when the
    protocol acknowledgement arrived, stored as ``t_recv_ns``. Nothing comes back to
    unsecure, so ``unsecure_ns`` and ``floor_unsecure_ns`` stay empty; the floor's
    ``secure`` is measured now, on the same payload."""
    t_send, t_secured, t_ack = times
    acked = outcome != recordlog.LOST and t_ack is not None
    floor_secure_ns = floor.measure(payload, echoed=False)[0] if floor is not None else None
    return recordlog.Record(
        seq=seq,
        t_send_ns=clock.wall_ns(t_send),
        t_recv_ns=clock.wall_ns(t_ack) if acked and t_ack is not None else None,
        app_bytes=len(payload),
        wire_bytes=wire_bytes,
        outcome=outcome if acked else recordlog.LOST,
        secure_ns=t_secured - t_send,
        unsecure_ns=None,
        floor_secure_ns=floor_secure_ns,
        floor_unsecure_ns=None,
    )
