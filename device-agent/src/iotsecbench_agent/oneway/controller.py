"""The controller end of a one-way run (the SRUP paper's C2 server): one MQTT client that
sends ``message_count`` messages to each device, in random device order, waiting a drawn
interval between two sends, then an END marker to every device.

The platform runs it (its clock is the one ``/api/agent/time/`` answers, which the
receivers correct their timestamps to) once every receiver has said ``receiver_ready``;
the receivers are ``runners/oneway_receiver.py``. Method and limits:
device-agent/docs/one-way.md.

- One connection through ``links.mqtt_link.MqttLink``: TCP_NODELAY, TLS below paho
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
- Intervals: ``iotsecbench_contract.intervals`` (fixed, uniform, exponential; seeded), waited after
  every send but the last, servicing the socket (acks, keepalive) meanwhile.
- A lost broker connection (a broker restart) is ridden out as the receivers do
  (``mqtt_link.ride_out``: the link's ``reconnect_budget_s``, backoff at once then 50 ms
  doubling to 250 ms, a clean session), then the schedule goes on where the clock is: the
  messages whose send time passed while cut off are skipped, never sent late in a burst
  (``TargetResult.skipped``; their receivers record them ``lost``), and the message whose
  publish was in flight at the cut is never sent again under its seq. END markers not
  known to have reached the broker are sent again after a cut in the END phase. Past the
  budget: DataPlaneError. device-agent/docs/data-plane-faults.md.
"""

from __future__ import annotations

import logging
import random
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Callable

import paho.mqtt.client as mqtt
from iotsecbench_contract.intervals import FIXED, interval_sampler
from iotsecbench_contract.jobspec import LinkSpec

from iotsecbench_agent.errors import DataPlaneError, RunAborted
from iotsecbench_agent.links.mqtt_link import (
    ConnectionLost,
    MqttLink,
    check_publish,
    pump,
    ride_out,
)
from iotsecbench_agent.links.mqtt_wire import MeteredClient, OutboundMeter
from iotsecbench_agent.oneway.wire import END_SEQ, SRUP_DATA_ID, build_payload
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import Mechanism
from iotsecbench_agent.security.mechanisms import Signature
from iotsecbench_agent.srup.codec import encode_data, new_token

logger = logging.getLogger(__name__)

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
    (the PUBLISH bytes at the controller's socket) are per seq, in seq order; both are 0
    for a seq in ``skipped``: never published, because its send time passed while the
    broker connection was lost (or its publish failed at the cut), so it never arrives.
    ``sent`` counts the published ones (a message in flight at a cut included: delivered
    or not, it is never sent again)."""

    topic: str
    sent: int = 0
    end_sent: bool = False
    t_send_ns: list[int] = field(default_factory=list)
    wire_bytes: list[int] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)

    @property
    def next_seq(self) -> int:
        """The seq the target's next message gets (sent and skipped ones use theirs up)."""
        return len(self.t_send_ns)

    def skip(self) -> None:
        self.skipped.append(self.next_seq)
        self.t_send_ns.append(0)
        self.wire_bytes.append(0)


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
        run_id: str = "",
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
        # A schedule with intervals has send times to skip past after a cut; one without
        # (interval 0: as fast as possible) just goes on with the next message.
        self._paced = interval_ms > 0
        self._order_seed = interval_seed if order_seed is None else order_seed
        self.srup_sender_id = srup_sender_id
        self.client_id = client_id or f"isb-ctl-{uuid.uuid4().hex[:12]}"
        self.clock = clock
        self.stop = stop or threading.Event()
        self.run_id = run_id or self.client_id  # in the logs
        # Each ridden-out cut's outage (ns, from the cut being noticed to the CONNACK).
        self.outages_ns: list[int] = []
        self.meter = OutboundMeter(mqtt5=link.mqtt5, by_payload=True)
        # Built now, not inside the schedule: key import (and RSA checks) are not timed.
        # MechanismError (unknown mechanism, bad key) propagates to the caller.
        self._securers = [self._securer(t) for t in self.targets]
        self._unacked: list[mqtt.MQTTMessageInfo] = []
        self._ends_sent: dict[int, int] = {}  # END markers published, per target index

    def order(self) -> list[int]:
        """The target index of every send, in order (seeded: the same for the same seed)."""
        slots = [i for i in range(len(self.targets)) for _ in range(self.message_count)]
        random.Random(self._order_seed).shuffle(slots)  # noqa: S311 (a schedule, not a secret)
        return slots

    def run(self) -> list[TargetResult]:
        """Connect, send the schedule and the END markers, wait for the acks, disconnect.
        DataPlaneError if the broker cannot be used, or its connection was lost for longer
        than the link's ``reconnect_budget_s``. Stopped (``stop``) while cut off: returns
        what was sent, without END markers (there is no connection to send them on)."""
        results = [TargetResult(topic=t.topic) for t in self.targets]
        link = _ControllerLink(
            self.link_spec, meter=self.meter, client_id=self.client_id, on_message=_ignore
        )
        try:
            link.connect()
            self._schedule(link, results)
            self._finish(link, results)
        except RunAborted:
            logger.info("controller.stopped_while_cut_off run_id=%s", self.run_id)
        finally:
            link.close()
        return results

    def _schedule(self, link: MqttLink, results: list[TargetResult]) -> None:
        """Every message of ``order``, each at its time: ``due`` (``perf_counter_ns``) is
        the time the next one is sent, the drawn interval after the previous send."""
        order = self.order()
        index = 0
        due: int | None = None  # None: at once
        while index < len(order) and not self.stop.is_set():
            if due is not None:
                try:
                    pump((link,), self.stop, due)
                except ConnectionLost as cut:
                    index, due = self._resume(link, cut, results, order, index, due)
                    continue
                if self.stop.is_set():
                    break
            result = results[order[index]]
            seq = result.next_seq
            try:
                self._send(link, order[index], result)
            except ConnectionLost as cut:
                # In flight at the cut: its seq is used up, never sent again. A publish
                # that failed outright was never written: skipped.
                skipped = 0
                if result.next_seq == seq:
                    result.skip()
                    skipped = 1
                index += 1
                due = time.perf_counter_ns() + self._next_interval_ns()
                index, due = self._resume(
                    link, cut, results, order, index, due, skipped_at_cut=skipped
                )
                continue
            index += 1
            gap_ns = self._next_interval_ns()
            due = time.perf_counter_ns() + gap_ns if gap_ns and index < len(order) else None

    def _resume(
        self,
        link: MqttLink,
        cut: ConnectionLost,
        results: list[TargetResult],
        order: Sequence[int] = (),
        index: int = 0,
        due: int | None = None,
        *,
        skipped_at_cut: int = 0,
    ) -> tuple[int, int | None]:
        """Ride out ``cut`` (``ride_out``: past the budget DataPlaneError, RunAborted if
        stopped), then skip every message of ``order`` from ``index`` whose send time
        (``due``, then each drawn interval after it) has passed: they are never sent, so
        no burst of late messages distorts the receivers' delays. The (index, due) to go
        on with."""
        logger.warning(
            "controller.data_plane_lost run_id=%s error=%s budget_s=%g",
            self.run_id,
            cut,
            self.link_spec.reconnect_budget_s,
        )
        outage_ns = ride_out(
            (link,),
            cut,
            budget_s=self.link_spec.reconnect_budget_s,
            stop=self.stop,
            run_id=self.run_id,
        )
        self.outages_ns.append(outage_ns)
        # Publishes on the lost connection: never acknowledged now, never sent again.
        self._unacked.clear()
        back = time.perf_counter_ns()
        skipped = skipped_at_cut
        if due is not None and self._paced:
            while index < len(order) and due < back:
                results[order[index]].skip()
                skipped += 1
                index += 1
                due += self._next_interval_ns()
        if index >= len(order) or not self._paced:
            due = None
        logger.info(
            "controller.data_plane_reconnected run_id=%s outage_ms=%.1f skipped=%d",
            self.run_id,
            outage_ns / 1e6,
            skipped,
        )
        return index, due

    def _finish(self, link: MqttLink, results: list[TargetResult]) -> None:
        """The END marker to every target, then the acks (QoS 1/2). After a cut, the END
        markers not acknowledged (QoS 0: all) go again: a receiver only notes an END,
        and without one it would wait for its deadline."""
        pending = list(range(len(results)))
        while True:
            infos: dict[int, mqtt.MQTTMessageInfo] = {}
            try:
                for target_index in pending:
                    infos[target_index] = self._send(
                        link, target_index, results[target_index], end=True
                    )
                    results[target_index].end_sent = True
                self._flush(link)
                return
            except ConnectionLost as cut:
                self._resume(link, cut, results)
            if self.link_spec.qos:
                pending = [t for t in pending if t not in infos or not infos[t].is_published()]

    def _send(
        self, link: MqttLink, target_index: int, result: TargetResult, *, end: bool = False
    ) -> mqtt.MQTTMessageInfo:
        """The target's next message (seq ``result.next_seq``), or its END marker;
        ConnectionLost if the connection is gone (a message is recorded in ``result`` only
        if it was published)."""
        seq = result.next_seq
        tag = END_SEQ if end else seq
        # SRUP sequence IDs: seq + 1 for a message, the next one for each END marker
        # (an END sent again after a cut gets a new one, or the receiver would refuse it).
        sequence_id = seq + 1 + self._ends_sent.get(target_index, 0) if end else seq + 1
        t_send = self.clock()
        wire = self._securers[target_index](
            sequence_id, build_payload(tag, t_send, self.payload_size)
        )
        info = link.client.publish(self.targets[target_index].topic, wire, qos=self.link_spec.qos)
        check_publish(info.rc)
        if end:
            self._ends_sent[target_index] = self._ends_sent.get(target_index, 0) + 1
        if self.link_spec.qos:
            self._unacked.append(info)
        try:
            self._drain(link)
        finally:
            wire_bytes = self.meter.take_payload_bytes(wire)
            if not end:
                result.sent += 1
                result.t_send_ns.append(t_send)
                result.wire_bytes.append(wire_bytes)
        return info

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


class _ControllerLink(MqttLink):
    """The controller's link: every publish is written at once, no QoS 1/2 in-flight window
    holds one back (which would put the queueing time inside its one-way delay). Set on
    every client the link makes (a reconnect makes a new one), before it connects: paho
    refuses the change on a connected client."""

    def _new_client(self) -> MeteredClient:
        client = super()._new_client()
        client.max_inflight_messages_set(0)
        return client


def _ignore(*_args: object) -> None:
    """The controller subscribes to nothing; anything delivered is not looked at."""
