"""The controller end of a one-way run (the SRUP paper's C2 server): one MQTT client that
sends ``message_count`` messages to each device, in random device order, waiting a drawn
interval between two sends, then an END marker to every device.

The platform runs it (its clock is the one ``/api/agent/time/`` answers, which the
receivers correct their timestamps to) once every receiver has said ``receiver_ready``;
the receivers are ``runners/oneway_receiver.py``. Method and limits:
device-agent/docs/one-way.md.

- One connection through ``runners.mqtt_link.MqttLink``: TCP_NODELAY, TLS below paho
  (``LinkSpec``'s fields), bytes counted at the socket per PUBLISH, the network I/O driven
  in the calling thread, so a ``publish`` is written before it returns.
- Each payload (``wire.build_payload``) carries its ``seq`` and ``t_send_ns``, taken with
  ``clock`` (``time.time_ns``) just before the payload is secured: with the payload
  security mechanism of the target (``security.registry``, the framing the receivers
  unsecure), or for SRUP targets as the data of a SRUP data message signed with the
  controller's key (sequence IDs 1, 2, … per device; the END marker's is the next).
- Device order: ``message_count`` slots per device, shuffled (seeded by ``order_seed``):
  each send goes to a random device among those that still have messages to receive, as
  the paper's C2 picked a device at random until each had its 250 messages.
- Intervals: ``runners.intervals`` (fixed, uniform, exponential; seeded), waited after
  every send but the last, servicing the socket (acks, keepalive) meanwhile.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Callable

import paho.mqtt.client as mqtt
from paho.mqtt.enums import MQTTErrorCode

from iotsecbench_agent.errors import DataPlaneError
from iotsecbench_agent.oneway.wire import END_SEQ, SRUP_DATA_ID, build_payload
from iotsecbench_agent.runners.intervals import FIXED, interval_sampler
from iotsecbench_agent.runners.jobspec import LinkSpec
from iotsecbench_agent.runners.mqtt_link import MqttLink, pump
from iotsecbench_agent.runners.mqtt_wire import OutboundMeter
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import Mechanism
from iotsecbench_agent.security.mechanisms import Signature
from iotsecbench_agent.srup.codec import encode_data, new_token

SECURITY_NONE = "none"
# How long the controller waits, after the END markers, for its QoS 1/2 publishes to be
# acknowledged before it disconnects.
FLUSH_TIMEOUT_S = 10.0
_SLICE_NS = 50_000_000  # how often a wait looks at ``stop`` and at what it waits for


@dataclass(frozen=True)
class Target:
    """One device of the run: the topic its receiver subscribes to, and how its messages
    are secured: a payload security mechanism and its key (shared with the receiver), or
    for SRUP (``srup_signer`` set) a data message signed with the controller's key."""

    topic: str
    security: str = SECURITY_NONE
    key: bytes | None = field(default=None, repr=False)
    srup_signer: Signature | None = field(default=None, repr=False)


@dataclass
class TargetResult:
    """What the controller sent to one target. ``t_send_ns[seq]`` and ``wire_bytes[seq]``
    (the PUBLISH bytes at the controller's socket) are per message, in seq order."""

    topic: str
    sent: int = 0
    end_sent: bool = False
    t_send_ns: list[int] = field(default_factory=list)
    wire_bytes: list[int] = field(default_factory=list)


class OneWayController:
    """Sends a one-way run's messages (see the module doc). Build it, then call ``run``
    once every receiver is ready; ``stop`` ends the schedule early (END markers are still
    sent, so receivers finish at once)."""

    def __init__(
        self,
        link: LinkSpec,
        targets: Sequence[Target],
        *,
        message_count: int,
        payload_size: int,
        interval_ms: float = 0.0,
        interval_distribution: str = FIXED,
        interval_seed: int | None = None,
        order_seed: int | None = None,
        srup_sender_id: int | None = None,
        client_id: str | None = None,
        clock: Callable[[], int] = time.time_ns,
        stop: threading.Event | None = None,
    ) -> None:
        if not targets:
            raise ValueError("a one-way run needs at least one target")
        if len({t.topic for t in targets}) != len(targets):
            raise ValueError("each target needs its own topic")
        if message_count < 1:
            raise ValueError("message_count must be at least 1")
        build_payload(0, 0, payload_size)  # ValueError if too small
        if any(t.srup_signer is not None for t in targets) and srup_sender_id is None:
            raise ValueError("SRUP targets need the controller's srup_sender_id")
        self.link_spec = link
        self.targets = list(targets)
        self.message_count = message_count
        self.payload_size = payload_size
        self._next_interval_ns = interval_sampler(interval_distribution, interval_ms, interval_seed)
        self._order_seed = interval_seed if order_seed is None else order_seed
        self.srup_sender_id = srup_sender_id
        self.client_id = client_id or f"isb-ctl-{uuid.uuid4().hex[:12]}"
        self.clock = clock
        self.stop = stop or threading.Event()
        self.meter = OutboundMeter(mqtt5=link.mqtt5, by_payload=True)
        # Built now, not inside the schedule: key import (and RSA checks) are not timed.
        # MechanismError (unknown mechanism, bad key) propagates to the caller.
        self._securers = [self._securer(t) for t in self.targets]
        self._unacked: list[mqtt.MQTTMessageInfo] = []

    def order(self) -> list[int]:
        """The target index of every send, in order (seeded: the same for the same seed)."""
        slots = [i for i in range(len(self.targets)) for _ in range(self.message_count)]
        random.Random(self._order_seed).shuffle(slots)  # noqa: S311 (a schedule, not a secret)
        return slots

    def run(self) -> list[TargetResult]:
        """Connect, send the schedule and the END markers, wait for the acks, disconnect.
        DataPlaneError if the broker cannot be used."""
        results = [TargetResult(topic=t.topic) for t in self.targets]
        link = MqttLink(
            self.link_spec, meter=self.meter, client_id=self.client_id, on_message=_ignore
        )
        # Every publish is written at once: no QoS 1/2 in-flight window holds one back
        # (which would put the queueing time inside its one-way delay).
        link.client.max_inflight_messages_set(0)
        try:
            link.connect()
            order = self.order()
            for index, target_index in enumerate(order):
                if self.stop.is_set():
                    break
                result = results[target_index]
                self._send(link, target_index, result.sent, result)
                result.sent += 1
                gap_ns = self._next_interval_ns()
                if gap_ns and index + 1 < len(order):
                    pump((link,), self.stop, time.perf_counter_ns() + gap_ns)
            for target_index, result in enumerate(results):
                self._send(link, target_index, result.sent, result, end=True)
                result.end_sent = True
            self._flush(link)
        finally:
            link.close()
        return results

    def _send(
        self,
        link: MqttLink,
        target_index: int,
        seq: int,
        result: TargetResult,
        *,
        end: bool = False,
    ) -> None:
        tag = END_SEQ if end else seq
        t_send = self.clock()
        wire = self._securers[target_index](seq + 1, build_payload(tag, t_send, self.payload_size))
        info = link.client.publish(self.targets[target_index].topic, wire, qos=self.link_spec.qos)
        if info.rc != MQTTErrorCode.MQTT_ERR_SUCCESS:
            raise DataPlaneError(f"publish failed: {mqtt.error_string(info.rc)}")
        if self.link_spec.qos:
            self._unacked.append(info)
        self._drain(link)
        if not end:
            result.t_send_ns.append(t_send)
            result.wire_bytes.append(self.meter.take_payload_bytes(wire))
        else:
            self.meter.take_payload_bytes(wire)

    def _securer(self, target: Target) -> Callable[[int, bytes], bytes]:
        """(SRUP sequence ID, payload) -> the bytes published for the target."""
        signer = target.srup_signer
        if signer is not None:
            if target.security != SECURITY_NONE or target.key is not None:
                raise ValueError("a SRUP target is signed by srup_signer: no security or key")
            sign = signer.sign
            sender_id = self.srup_sender_id
            assert sender_id is not None  # checked in __init__

            def srup(sequence_id: int, payload: bytes) -> bytes:
                return encode_data(
                    sequence_id=sequence_id,
                    sender_id=sender_id,
                    token=new_token(),
                    data_id=SRUP_DATA_ID,
                    data=payload,
                    sign=sign,
                )

            return srup
        if target.security != SECURITY_NONE and target.key is None:
            raise ValueError(
                f"target {target.topic}: {target.security} needs the key its receiver holds"
            )
        mechanism: Mechanism = registry.create(target.security, key=target.key)
        secure = mechanism.secure
        return lambda sequence_id, payload: secure(payload)

    def _drain(self, link: MqttLink) -> None:
        """Wait until paho has written everything (a payload larger than the socket's
        send buffer takes more than one write)."""
        deadline = time.perf_counter_ns() + int(FLUSH_TIMEOUT_S * 1e9)
        never = threading.Event()
        while link.client.want_write():
            now = time.perf_counter_ns()
            if now >= deadline:
                raise DataPlaneError("the broker does not take the controller's messages")
            pump((link,), never, min(deadline, now + _SLICE_NS))

    def _flush(self, link: MqttLink) -> None:
        """Service the socket until QoS 1/2 publishes are all acknowledged (or the flush
        timeout): a disconnect right after the END markers could drop them."""
        if not self.link_spec.qos:
            return
        deadline = time.perf_counter_ns() + int(FLUSH_TIMEOUT_S * 1e9)
        never = threading.Event()
        while True:
            self._unacked = [info for info in self._unacked if not info.is_published()]
            now = time.perf_counter_ns()
            if not self._unacked or now >= deadline:
                return
            pump((link,), never, min(deadline, now + _SLICE_NS))


def _ignore(*_args: object) -> None:
    """The controller subscribes to nothing; anything delivered is not looked at."""
