"""MQTT round-trip runner (§5 of docs/control-plane.md): publish to a topic this client is
subscribed to, and time each message until its own copy comes back through the broker.

The connection (own client, TCP_NODELAY, wire bytes counted at the socket, TLS below paho,
the network loop driven in this thread) is ``mqtt_link.MqttLink`` and ``pump``; the spec
fields shared with other runners are ``iotsecbench_contract.jobspec.LinkSpec`` and ``Schedule``.
Measurement choices of this runner, and why:

- Waiting for the echo is ``pump`` until ``on_message`` sets a ``threading.Event``;
  ``on_message`` takes ``t_recv`` first thing.
- Nothing else happens between ``t_send`` and the echo: records, progress and wire-byte
  parsing are done after ``t_recv`` is taken.
- Security (``spec.security``, a mechanism of ``security/registry.py``): as the MQTT/CoAP
  paper measures it, ``t_send`` is taken just BEFORE ``secure`` and ``t_recv`` just AFTER
  the echo has been received and ``unsecure``d, so the RTT includes both; ``secure_ns``
  and ``unsecure_ns`` record the time inside each (``timing.time_secure`` /
  ``time_unsecure``). The mechanism (its key schedule, key import or RSA key generation)
  is built in ``setup``, before anything is timed, and so is the ``null`` mechanism whose
  times after each round trip are the record's harness floor (``timing.HarnessFloor``).
- TLS (``mqtts://`` broker URLs): ``wire_bytes`` are the TLS records that carried the
  message's PUBLISH. ``tls_version`` pins both the minimum and the maximum protocol
  version; the server is always verified (``ca_cert`` or the system's trust store,
  hostname checked); ``client_cert``/``client_key`` are loaded from 0600 temporary files
  that are removed at once.
- Which echo is ours: only one message is in flight, so the first message on the topic
  whose ``unsecure`` raises while we wait is counted as our echo, corrupted
  (``decrypt_error`` / ``rejected_signature``); one that unsecures to a payload without
  our sequence tag (``SeqTags``: the seq, or below 8 bytes the seq modulo 256**n) is a
  late echo of an earlier message: counted in ``tags.late_echoes``, never taken as ours.
- A lost connection (``mqtt_link.ride_out``): the message in flight at the cut is
  recorded ``lost`` (or ``ok`` if its echo was read just before the failure) and never
  sent again; the connection is made again (clean session, topic subscribed again)
  within ``reconnect_budget_s`` and the run goes on with the next seq, so the outage
  shows as one lost record and a gap in ``t_send_ns``. A copy of a closed seq arriving
  later is a late echo, never a second record.
- The measured window holds only what a round trip needs: the publish goes straight to
  paho's ``publish`` and the tag check is one ``startswith``; records and wire-byte
  parsing come after ``t_recv``. The echo's PUBACK (PUBCOMP at QoS 2) is sent by ``run``
  once the record is made, just before the next PUBLISH (paho ``manual_ack``): sent from
  the callback, it woke the broker while the record was still being made, and on a
  2-CPU loopback the scheduler then often split the two across CPUs, adding ~10 µs to
  later round trips (docs/benchmarks.md, messaging).
"""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import paho.mqtt.client as mqtt
from iotsecbench_contract.interleave import parse_interleave
from iotsecbench_contract.jobspec import ROUND_TRIP, LinkSpec, Schedule, hex_field

from iotsecbench_agent.errors import UnsupportedJob
from iotsecbench_agent.links.mqtt_link import (
    ConnectionLost,
    MqttLink,
    check_publish,
    pump,
    ride_out,
)
from iotsecbench_agent.links.mqtt_wire import SEQ_BYTES, OutboundMeter
from iotsecbench_agent.runners.base import Runner, message_seqs, register, require
from iotsecbench_agent.runners.interleave import Rotation, rotation_of
from iotsecbench_agent.runners.resources import Traffic, link_traffic
from iotsecbench_agent.runners.timing import (
    HarnessFloor,
    Reply,
    refusal_outcome,
    round_trip_record,
    time_secure,
    time_unsecure,
)
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import Mechanism, MechanismError, SecurityError
from iotsecbench_agent.storage.recordlog import LOST, OK

logger = logging.getLogger(__name__)

SECURITY_NONE = "none"
# One message must fit comfortably in a Pi Zero's RAM alongside the agent.
MAX_PAYLOAD_BYTES = 16 * 1024 * 1024
FILLER = 0xA5


@dataclass(frozen=True)
class RoundTripSpec:
    link: LinkSpec
    schedule: Schedule
    topic: str
    security: str = SECURITY_NONE
    # A key from the job (hex in spec.security_key); None: the mechanism makes its own.
    security_key: bytes | None = field(default=None, repr=False)
    # An interleaved run's mechanisms (runners/interleave.py); None: ``security`` alone.
    interleave: tuple[str, ...] | None = None

    @classmethod
    def parse(cls, spec: Mapping[str, Any]) -> RoundTripSpec:
        security = spec.get("security", SECURITY_NONE)
        if not isinstance(security, str) or security not in registry.names():
            raise UnsupportedJob(
                f"security {security!r} is not supported (see `iotsecbench-agent mechanisms`)"
            )
        security_key = hex_field(spec, "security_key")
        topic = spec.get("topic")
        if not isinstance(topic, str) or not topic or any(c in topic for c in "+#"):
            raise UnsupportedJob("spec.topic must be a non-empty topic without wildcards")
        return cls(
            link=LinkSpec.parse(spec),
            schedule=Schedule.parse(spec, min_payload=1, max_payload=MAX_PAYLOAD_BYTES),
            topic=topic,
            security=security,
            security_key=security_key,
            interleave=rotation_of(parse_interleave(spec)),
        )


def payload_of(seq: int, filler: bytes) -> bytes:
    """A round-trip payload of 8 bytes or more: ``seq`` as 8 big-endian bytes, then the
    filler (§5). ``SeqTags.payload`` is the same for every size."""
    return seq.to_bytes(SEQ_BYTES, "big") + filler


def filler_for(payload_size: int) -> bytes:
    return bytes([FILLER]) * max(payload_size - SEQ_BYTES, 0)


class SeqTags:
    """The sequence number a round-trip payload carries, for every payload size (§5):

    - ``payload_size`` >= 8: ``seq`` as 8 big-endian bytes, then ``FILLER`` bytes (as it
      always was: the tag is the seq itself and never repeats);
    - 1..7 bytes (n): the whole payload is the tag, ``seq mod 256**n`` as n big-endian
      bytes (1 byte: 0x00, 0x01, … 0xff, 0x00, …).

    An echo is ours if its (unsecured) payload starts with our tag. One message is in
    flight at a time, so another tag is a late echo of an earlier message (or a stray
    message on the topic): ``late`` counts it and it is never taken as ours. With n < 8
    bytes a tag comes round again every 256**n messages, so the late echo of a LOST
    message ``k`` carries the same tag as ``k + 256**n``, ``k + 2 × 256**n``, …: if it
    arrives exactly while one of those is awaited it cannot be told from that message's
    own echo. The runner keeps the tags of lost messages whose echo has not shown up
    since; a message sent with such a tag whose echo comes back is still recorded (its
    echo is there, and far more often a lost message stays lost than comes back 256**n
    messages later), and counted in ``ambiguous_echoes``, so a run can say how many of its
    records might time an earlier message's echo: 0 when nothing was lost.
    """

    def __init__(self, payload_size: int) -> None:
        self.width = min(payload_size, SEQ_BYTES)
        self.period = 1 << (8 * self.width)  # 256**width
        self._filler = bytes([FILLER]) * (payload_size - self.width)
        self._unanswered: set[int] = set()  # tags of lost messages not echoed since
        self.late_echoes = 0
        self.ambiguous_echoes = 0

    def tag(self, seq: int) -> bytes:
        return (seq % self.period).to_bytes(self.width, "big")

    def payload(self, seq: int) -> bytes:
        """The payload of message ``seq``: its tag, then the filler."""
        return self.tag(seq) + self._filler

    def lost(self, seq: int) -> None:
        """Message ``seq`` timed out: its echo may still come, possibly with a later tag."""
        if self.width < SEQ_BYTES:
            self._unanswered.add(seq % self.period)

    def echoed(self, seq: int) -> None:
        """Message ``seq``'s echo came back (any outcome)."""
        if self._unanswered:
            tag = seq % self.period
            if tag in self._unanswered:
                self.ambiguous_echoes += 1
                self._unanswered.discard(tag)  # one of the two echoes is now accounted for

    def late(self, payload: bytes) -> None:
        """An echo without the awaited tag came back: an earlier message's, or a stray."""
        self.late_echoes += 1
        if self._unanswered and len(payload) >= self.width:
            self._unanswered.discard(int.from_bytes(payload[: self.width], "big"))


@register
class MqttRoundTripRunner(Runner):
    protocol = "mqtt"
    measurements = (ROUND_TRIP,)
    spec_type = RoundTripSpec
    network_profiles = True

    def __init__(self, spec: Mapping[str, Any], context: Any) -> None:
        super().__init__(spec, context)
        self.spec = RoundTripSpec.parse(spec)
        # Secured payloads start with an IV, not the seq: credit wire bytes per payload.
        self.meter = OutboundMeter(mqtt5=self.spec.link.mqtt5, by_payload=True)
        self._link: MqttLink | None = None
        self._mechanism: Mechanism | None = None
        self._floor: HarnessFloor | None = None
        self.tags = SeqTags(self.spec.schedule.payload_size)
        self._reply = Reply()
        self._arrived = self._reply.arrived
        self._expected: bytes | None = None  # the tag awaited; None between messages
        self._echo_ack: tuple[int, int] | None = None  # (mid, qos) of our echo, not acked yet

    @property
    def link(self) -> MqttLink:
        """The measured connection (after ``setup``)."""
        return require(self._link)

    def setup(self) -> None:
        spec = self.spec
        try:
            self._mechanism = (
                Rotation(spec.interleave)
                if spec.interleave
                else registry.create(spec.security, key=spec.security_key)
            )
        except MechanismError as exc:
            raise UnsupportedJob(str(exc)) from None
        self._floor = HarnessFloor.for_security(spec.security)
        self._link = MqttLink(
            spec.link,
            meter=self.meter,
            client_id=f"isb-{self.context.run_id[:8]}-{self.context.device_id[:8]}",
            on_message=self._on_message,
            via=self.context.broker_via,
            manual_ack=True,
        )
        self._link.connect()
        # Subscribed (SUBACK received) before the first send, or the first copies could
        # be published before the broker routes them back to us.
        self._link.subscribe(spec.topic)

    def run(self) -> None:
        link = self.link
        links = (link,)
        publish = link.client.publish
        mechanism = self._require_mechanism()
        secure = mechanism.secure
        rotation = mechanism if isinstance(mechanism, Rotation) else None
        name: str | None = None
        floor = self._floor
        spec = self.spec
        topic = spec.topic
        qos = spec.link.qos
        tags = self.tags
        reply = self._reply
        arrived = reply.arrived
        schedule = spec.schedule
        clock = self.context.clock
        emit = self.context.emit
        stop = self.context.stop
        timeout_ns = schedule.timeout_ns
        next_interval_ns = schedule.interval_sampler()
        perf_counter_ns = time.perf_counter_ns
        for seq in message_seqs(schedule.message_count, stop):
            payload = tags.payload(seq)
            self._expected = payload[: tags.width]
            arrived.clear()
            if rotation is not None:
                name = rotation.select(seq)
                floor = rotation.floor()
            wire, t_send, t_secured = time_secure(secure, payload)
            cut: ConnectionLost | None = None
            try:
                # paho's publish itself: written to the socket before it returns.
                check_publish(publish(topic, wire, qos).rc)
                pump(links, arrived, t_send + timeout_ns)
            except ConnectionLost as exc:
                # Recorded below as it stands: lost, unless its echo was read just before
                # the connection failed. Never sent again under this seq.
                cut = exc
            self._expected = None
            echoed = arrived.is_set()
            if echoed:
                tags.echoed(seq)
            else:
                tags.lost(seq)
            # The round trip is over (t_recv taken): the floor beside it, on the same size.
            wire_bytes = self.meter.take_payload_bytes(wire)
            outcome = reply.outcome if echoed else LOST
            times = (t_send, t_secured, reply.t_recv)
            emit(
                round_trip_record(
                    clock, floor, seq, payload, times, wire_bytes, outcome, reply.unsecure_ns, name
                )
            )
            interval_ns = next_interval_ns()
            try:
                if cut is not None:
                    raise cut
                if self._echo_ack is not None:
                    link.ack(*self._echo_ack)
                    self._echo_ack = None
                if interval_ns and seq + 1 < schedule.message_count:
                    # The interval wait still services the socket (late acks, keepalive)
                    # and ends early on shutdown. It starts after the echo, as in the papers.
                    pump(links, stop, perf_counter_ns() + interval_ns)
            except ConnectionLost as exc:
                # The echo's ack belonged to the lost connection (a clean session: the
                # broker has forgotten it). The run goes on with the next seq.
                self._echo_ack = None
                ride_out(
                    links,
                    exc,
                    budget_s=spec.link.reconnect_budget_s,
                    stop=stop,
                    run_id=self.context.run_id,
                )
                publish = link.client.publish
        if tags.late_echoes or tags.ambiguous_echoes:
            logger.info(
                "agent.late_echoes run_id=%s late=%d ambiguous=%d",
                self.context.run_id,
                tags.late_echoes,
                tags.ambiguous_echoes,
            )

    def cleanup(self) -> None:
        self._mechanism = None
        self._floor = None
        link, self._link = self._link, None
        if link is not None:
            link.close()

    def data_socket(self) -> socket.socket:
        """The raw TCP socket of the measured connection (after ``setup``)."""
        return self.link.data_socket()

    def traffic(self) -> Traffic:
        return link_traffic(self._link)

    def _require_mechanism(self) -> Mechanism:
        return require(self._mechanism)

    # paho callback: runs in this thread, inside pump.

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        expected = self._expected
        mechanism = self._mechanism
        if mechanism is None or self._arrived.is_set() or expected is None:
            self._ack(message)
            if expected is None and mechanism is not None:
                self._late_between_messages(message, mechanism)
            return  # a duplicate of our echo, between two messages, or after the run
        data = message.payload  # bytes from paho; bytearray only if a caller built one
        payload, error, t_unsecure, t_recv = time_unsecure(
            mechanism.unsecure, data if isinstance(data, bytes) else bytes(data)
        )
        if payload is not None and not payload.startswith(expected):
            self._ack(message)
            self.tags.late(payload)  # an earlier message's echo, or a stray: not ours
            return
        self._reply.came(t_unsecure, t_recv, OK if error is None else refusal_outcome(error))
        if message.qos:
            # Acknowledged by ``run`` after the record is made, just before the next
            # publish, as a bare client's loop would send its PUBACK and next PUBLISH
            # back to back (outside the measured window either way).
            self._echo_ack = (message.mid, message.qos)

    def _ack(self, message: mqtt.MQTTMessage) -> None:
        if message.qos:
            self.link.ack(message.mid, message.qos)  # queued: we are inside paho's callback

    def _late_between_messages(self, message: mqtt.MQTTMessage, mechanism: Mechanism) -> None:
        """A message between two round trips: if it unsecures, an earlier message's echo."""
        data = message.payload
        try:
            payload = mechanism.unsecure(data if isinstance(data, bytes) else bytes(data))
        except SecurityError:
            return
        self.tags.late(payload)
