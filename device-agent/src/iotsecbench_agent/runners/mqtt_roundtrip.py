"""MQTT round-trip runner (§5 of docs/control-plane.md): publish to a topic this client is
subscribed to, and time each message until its own copy comes back through the broker.

The connection (own client, TCP_NODELAY, wire bytes counted at the socket, TLS below paho,
the network loop driven in this thread) is ``mqtt_link.MqttLink`` and ``pump``; the spec
fields shared with other runners are ``jobspec.LinkSpec`` and ``jobspec.Schedule``.
Measurement choices of this runner, and why:

- Waiting for the echo is ``pump`` until ``on_message`` sets a ``threading.Event``;
  ``on_message`` takes ``t_recv`` first thing.
- Nothing else happens between ``t_send`` and the echo: records, progress and wire-byte
  parsing are done after ``t_recv`` is taken.
- Security (``spec.security``, a mechanism of ``security/registry.py``): as the MQTT/CoAP
  paper measures it, ``t_send`` is taken just BEFORE ``secure`` and ``t_recv`` just AFTER
  the echo has been received and ``unsecure``d, so the RTT includes both; ``secure_ns``
  and ``unsecure_ns`` record the time inside each. The mechanism (its key schedule, key
  import or RSA key generation) is built in ``setup``, before anything is timed.
- TLS (``mqtts://`` broker URLs): ``wire_bytes`` are the TLS records that carried the
  message's PUBLISH. ``tls_version`` pins both the minimum and the maximum protocol
  version; the server is always verified (``ca_cert`` or the system's trust store,
  hostname checked); ``client_cert``/``client_key`` are loaded from 0600 temporary files
  that are removed at once.
- Which echo is ours: only one message is in flight, so the first message on the topic
  whose ``unsecure`` raises while we wait is counted as our echo, corrupted
  (``decrypt_error`` / ``rejected_signature``); a message that unsecures to another seq
  is a late echo of an earlier one and is ignored, as without security.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import paho.mqtt.client as mqtt

from iotsecbench_agent.errors import DataPlaneError, RunAborted, UnsupportedJob
from iotsecbench_agent.recordlog import DECRYPT_ERROR, LOST, OK, REJECTED_SIGNATURE, Record
from iotsecbench_agent.runners.base import Runner, register
from iotsecbench_agent.runners.jobspec import ROUND_TRIP, LinkSpec, Schedule, hex_field
from iotsecbench_agent.runners.mqtt_link import MqttLink, pump
from iotsecbench_agent.runners.mqtt_wire import SEQ_BYTES, OutboundMeter
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import (
    DecryptError,
    Mechanism,
    MechanismError,
    SignatureError,
)

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
            schedule=Schedule.parse(spec, min_payload=SEQ_BYTES, max_payload=MAX_PAYLOAD_BYTES),
            topic=topic,
            security=security,
            security_key=security_key,
        )


def payload_of(seq: int, filler: bytes) -> bytes:
    """A round-trip payload: ``seq`` as 8 big-endian bytes, then the filler (§5)."""
    return seq.to_bytes(SEQ_BYTES, "big") + filler


def filler_for(payload_size: int) -> bytes:
    return bytes([FILLER]) * (payload_size - SEQ_BYTES)


@register
class MqttRoundTripRunner(Runner):
    protocol = "mqtt"
    measurements = (ROUND_TRIP,)
    network_profiles = True

    def __init__(self, spec: Mapping[str, Any], context: Any) -> None:
        super().__init__(spec, context)
        self.spec = RoundTripSpec.parse(spec)
        # Secured payloads start with an IV, not the seq: credit wire bytes per payload.
        self.meter = OutboundMeter(mqtt5=self.spec.link.mqtt5, by_payload=True)
        self._link: MqttLink | None = None
        self._mechanism: Mechanism | None = None
        self._arrived = threading.Event()
        self._awaiting = -1
        self._t_recv_perf = 0
        self._unsecure_ns = 0
        self._outcome = OK

    @classmethod
    def validate_spec(cls, spec: Mapping[str, Any]) -> None:
        RoundTripSpec.parse(spec)

    @property
    def link(self) -> MqttLink:
        """The measured connection (after ``setup``)."""
        if self._link is None:
            raise DataPlaneError("runner used before setup()")
        return self._link

    def setup(self) -> None:
        spec = self.spec
        try:
            self._mechanism = registry.create(spec.security, key=spec.security_key)
        except MechanismError as exc:
            raise UnsupportedJob(str(exc)) from None
        self._link = MqttLink(
            spec.link,
            meter=self.meter,
            client_id=f"isb-{self.context.run_id[:8]}-{self.context.device_id[:8]}",
            on_message=self._on_message,
            via=self.context.broker_via,
        )
        self._link.connect()
        # Subscribed (SUBACK received) before the first send, or the first copies could
        # be published before the broker routes them back to us.
        self._link.subscribe(spec.topic)

    def run(self) -> None:
        link = self.link
        links = (link,)
        secure = self._require_mechanism().secure
        spec = self.spec
        schedule = spec.schedule
        clock = self.context.clock
        stop = self.context.stop
        timeout_ns = schedule.timeout_ns
        next_interval_ns = schedule.interval_sampler()
        filler = filler_for(schedule.payload_size)
        for seq in range(schedule.message_count):
            if stop.is_set():
                raise RunAborted(f"stopped after {seq} of {schedule.message_count} messages")
            payload = payload_of(seq, filler)
            self._awaiting = seq
            self._arrived.clear()
            t_send = time.perf_counter_ns()
            wire = secure(payload)
            t_secured = time.perf_counter_ns()
            link.publish(spec.topic, wire)
            pump(links, self._arrived, t_send + timeout_ns)
            arrived = self._arrived.is_set()
            self.context.emit(
                Record(
                    seq=seq,
                    t_send_ns=clock.wall_ns(t_send),
                    t_recv_ns=clock.wall_ns(self._t_recv_perf) if arrived else None,
                    app_bytes=len(payload),
                    wire_bytes=self.meter.take_payload_bytes(wire),
                    outcome=self._outcome if arrived else LOST,
                    secure_ns=t_secured - t_send,
                    unsecure_ns=self._unsecure_ns if arrived else None,
                )
            )
            interval_ns = next_interval_ns()
            if interval_ns and seq + 1 < schedule.message_count:
                # The interval wait still services the socket (late acks, keepalive) and
                # ends early on shutdown. It starts after the echo, as in the papers.
                pump(links, stop, time.perf_counter_ns() + interval_ns)

    def cleanup(self) -> None:
        self._mechanism = None
        link, self._link = self._link, None
        if link is not None:
            link.close()

    def data_socket(self) -> socket.socket:
        """The raw TCP socket of the measured connection (after ``setup``)."""
        return self.link.data_socket()

    def _require_mechanism(self) -> Mechanism:
        if self._mechanism is None:
            raise DataPlaneError("runner used before setup()")
        return self._mechanism

    # paho callback: runs in this thread, inside pump.

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        t_arrived = time.perf_counter_ns()
        if self._arrived.is_set() or self._mechanism is None:
            return  # a duplicate after our echo, or between two messages
        data = message.payload  # bytes from paho; bytearray only if a caller built one
        outcome = OK
        try:
            payload = self._mechanism.unsecure(data if isinstance(data, bytes) else bytes(data))
        except DecryptError:
            outcome = DECRYPT_ERROR
        except SignatureError:
            outcome = REJECTED_SIGNATURE
        t_recv = time.perf_counter_ns()
        if outcome == OK and not (
            len(payload) >= SEQ_BYTES
            and int.from_bytes(payload[:SEQ_BYTES], "big") == self._awaiting
        ):
            return  # a late echo of an earlier message
        self._t_recv_perf = t_recv
        self._unsecure_ns = t_recv - t_arrived
        self._outcome = outcome
        self._arrived.set()
