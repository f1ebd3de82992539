"""MQTT acknowledgement-time runner (measurement ``ack``, issue #19 point 4): publish a
secured message and time it until the broker's acknowledgement, PUBACK at QoS 1 or PUBCOMP
at QoS 2 (after PUBREC/PUBREL), as the MQTT/CoAP paper times publish → PUBACK.

The connection, schedule, payloads and security are the round-trip runner's
(``mqtt_roundtrip``), and so is the record format; what differs, and why:

- Nothing is subscribed: the broker has no copy to send back, so only the publish and its
  acknowledgement flow on the connection.
- ``t_send`` is taken just BEFORE ``secure`` (the payload is secured as in a round trip);
  ``t_recv`` is the ``perf_counter_ns`` reading taken first thing in paho's ``on_publish``
  (callback API 2), which paho calls when the QoS 1/2 handshake of that ``mid`` has
  completed. The network loop runs in this thread (``pump``), so the callback runs while
  the runner waits, never between ``publish`` and the wait.
- ``unsecure_ns`` / ``floor_unsecure_ns`` stay empty: nothing is unsecured.
- QoS 0 has no acknowledgement (paho's ``on_publish`` would fire when the bytes are
  written): refused. An MQTT 5 acknowledgement with a failure reason code fails the run
  (the broker refused the publish; a record cannot say so).
- No acknowledgement within ``timeout_ms`` → ``lost``. A lost connection is ridden out as in
  the round trip (``mqtt_link.ride_out``): the message in flight is ``lost``, never resent.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Mapping
from typing import Any

import paho.mqtt.client as mqtt
from iotsecbench_contract.jobspec import ACK, ACK_OF_QOS

from iotsecbench_agent.errors import DataPlaneError, UnsupportedJob
from iotsecbench_agent.links.mqtt_link import (
    ConnectionLost,
    MqttLink,
    check_publish,
    pump,
    ride_out,
)
from iotsecbench_agent.links.mqtt_wire import OutboundMeter
from iotsecbench_agent.runners.base import Runner, message_seqs, register, require
from iotsecbench_agent.runners.mqtt_roundtrip import RoundTripSpec, SeqTags
from iotsecbench_agent.runners.resources import Traffic, link_traffic
from iotsecbench_agent.runners.timing import HarnessFloor, ack_record, time_secure
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import Mechanism, MechanismError
from iotsecbench_agent.storage.recordlog import LOST, OK

QOS_HAS_NO_ACK = (
    "spec.qos {qos} has no acknowledgement to time: measurement 'ack' needs qos 1 (PUBACK) "
    "or 2 (PUBCOMP)"
)


class AckSpec(RoundTripSpec):
    """A round trip's spec, with a QoS that is acknowledged."""

    @classmethod
    def parse(cls, spec: Mapping[str, Any]) -> AckSpec:
        parsed = super().parse(spec)
        if parsed.link.qos not in ACK_OF_QOS:
            raise UnsupportedJob(QOS_HAS_NO_ACK.format(qos=parsed.link.qos))
        return parsed  # type: ignore[return-value]


@register
class MqttAckRunner(Runner):
    protocol = "mqtt"
    measurements = (ACK,)
    spec_type = AckSpec
    network_profiles = True

    def __init__(self, spec: Mapping[str, Any], context: Any) -> None:
        super().__init__(spec, context)
        self.spec = AckSpec.parse(spec)
        self.meter = OutboundMeter(mqtt5=self.spec.link.mqtt5, by_payload=True)
        self.tags = SeqTags(self.spec.schedule.payload_size)
        self._link: MqttLink | None = None
        self._mechanism: Mechanism | None = None
        self._floor: HarnessFloor | None = None
        self._acked = threading.Event()
        self._awaited_mid: int | None = None
        self._t_ack = 0
        self._refused: str | None = None

    @property
    def link(self) -> MqttLink:
        return require(self._link)

    def setup(self) -> None:
        spec = self.spec
        try:
            self._mechanism = registry.create(spec.security, key=spec.security_key)
        except MechanismError as exc:
            raise UnsupportedJob(str(exc)) from None
        self._floor = HarnessFloor.for_security(spec.security)
        self._link = MqttLink(
            spec.link,
            meter=self.meter,
            client_id=f"isb-{self.context.run_id[:8]}-{self.context.device_id[:8]}",
            on_message=_ignore,
            via=self.context.broker_via,
            on_publish=self._on_publish,
        )
        self._link.connect()

    def run(self) -> None:
        link = self.link
        links = (link,)
        publish = link.client.publish
        secure = require(self._mechanism).secure
        floor = self._floor
        spec = self.spec
        topic = spec.topic
        qos = spec.link.qos
        tags = self.tags
        acked = self._acked
        schedule = spec.schedule
        clock = self.context.clock
        emit = self.context.emit
        stop = self.context.stop
        timeout_ns = schedule.timeout_ns
        next_interval_ns = schedule.interval_sampler()
        perf_counter_ns = time.perf_counter_ns
        for seq in message_seqs(schedule.message_count, stop):
            payload = tags.payload(seq)
            acked.clear()
            self._awaited_mid = None
            wire, t_send, t_secured = time_secure(secure, payload)
            cut: ConnectionLost | None = None
            try:
                info = publish(topic, wire, qos)
                check_publish(info.rc)
                self._awaited_mid = info.mid
                pump(links, acked, t_send + timeout_ns)
            except ConnectionLost as exc:
                cut = exc
            self._awaited_mid = None
            if self._refused is not None:
                raise DataPlaneError(f"the broker refused publish {seq}: {self._refused}")
            outcome = OK if acked.is_set() else LOST
            wire_bytes = self.meter.take_payload_bytes(wire)
            times = (t_send, t_secured, self._t_ack)
            emit(ack_record(clock, floor, seq, payload, times, wire_bytes, outcome))
            interval_ns = next_interval_ns()
            try:
                if cut is not None:
                    raise cut
                if interval_ns and seq + 1 < schedule.message_count:
                    pump(links, stop, perf_counter_ns() + interval_ns)
            except ConnectionLost as exc:
                ride_out(
                    links,
                    exc,
                    budget_s=spec.link.reconnect_budget_s,
                    stop=stop,
                    run_id=self.context.run_id,
                )
                publish = link.client.publish

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

    # paho callback: runs in this thread, inside pump.

    def _on_publish(
        self, client: mqtt.Client, userdata: Any, mid: int, reason_code: Any, properties: Any
    ) -> None:
        t_ack = time.perf_counter_ns()
        if mid != self._awaited_mid or self._acked.is_set():
            return  # the late acknowledgement of a message already recorded lost
        if getattr(reason_code, "is_failure", False):
            self._refused = str(reason_code)
        self._t_ack = t_ack
        self._acked.set()


def _ignore(client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
    """Nothing is subscribed; a message here is not part of the measurement."""
