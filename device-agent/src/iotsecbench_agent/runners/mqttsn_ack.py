"""MQTT-SN acknowledgement-time runner (measurement ``ack``, issue #19 point 4): publish a
secured message at QoS 1 and time it until the gateway's PUBACK carrying its MsgId
(MQTT-SN 1.2 §6.6), as ``mqtt_ack`` times publish → PUBACK over MQTT.

The session, gateway (local or ``mqttsn_gateway``), topic ids, schedule, payloads and
security are the round-trip runner's (``mqttsn_roundtrip``), and so is the record format;
what differs, and why:

- Only QoS 1 has an acknowledgement: QoS 0 and −1 are refused. A transparent gateway (the
  agent's own, ``mqttsn.gateway``) sends the PUBACK when the broker's PUBACK for its
  forwarded MQTT PUBLISH has arrived, so the time covers client → gateway → broker and
  back; an external gateway may acknowledge earlier (its own choice: the methods text
  names the gateway).
- Nothing is subscribed: no copy comes back, only the PUBLISH and its PUBACK flow.
- ``t_send`` is taken just BEFORE ``secure``; ``t_recv`` is the ``perf_counter_ns``
  reading taken when ``SnClient.receive`` returned the decoded PUBACK with our MsgId (one
  message is in flight, the wait is ``select``, never a sleep). ``unsecure_ns`` stays
  empty: nothing is unsecured.
- A PUBACK with "rejected: congestion" (the local gateway while its broker is away) makes
  the message ``lost``; any other refusal fails the run (every message would be refused
  the same way). No PUBACK within ``timeout_ms`` → ``lost``; the client never resends.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from iotsecbench_contract.jobspec import ACK

from iotsecbench_agent.errors import UnsupportedJob
from iotsecbench_agent.mqttsn import codec
from iotsecbench_agent.runners.base import message_seqs, register
from iotsecbench_agent.runners.mqttsn_roundtrip import (
    TOPIC_ID_TYPES,
    GatewayDisconnected,
    MqttSnRoundTripRunner,
    MqttSnSpec,
)
from iotsecbench_agent.runners.timing import ack_record, time_secure
from iotsecbench_agent.storage.recordlog import LOST

QOS_HAS_NO_PUBACK = (
    "spec.qos {qos} has no acknowledgement to time: measurement 'ack' for mqttsn needs "
    "qos 1 (PUBLISH → PUBACK)"
)


@register
class MqttSnAckRunner(MqttSnRoundTripRunner):
    protocol = "mqttsn"
    measurements = (ACK,)

    @classmethod
    def validate_spec(cls, spec: Mapping[str, Any]) -> None:
        """The round trip's spec, at QoS 1: the only MQTT-SN publish that is acknowledged."""
        qos = MqttSnSpec.parse(spec).qos
        if qos != 1:
            raise UnsupportedJob(QOS_HAS_NO_PUBACK.format(qos=qos))

    def _subscribe(self, kind: int) -> None:
        """Nothing is subscribed: no copy comes back to an acknowledgement-timed run."""

    def run(self) -> None:
        secure = self._require_mechanism().secure
        schedule = self.spec.schedule
        next_interval_ns = schedule.interval_sampler()
        for seq in message_seqs(schedule.message_count, self.context.stop):
            payload = self.tags.payload(seq)
            msg_id = self.client.next_msg_id()
            wire, t_send, t_secured = time_secure(secure, payload)
            wire_bytes = self.client.send_bytes(self._publish(msg_id, wire))
            ended: GatewayDisconnected | None = None
            try:
                outcome, t_ack = self._await_puback(msg_id, t_send + schedule.timeout_ns)
            except GatewayDisconnected as exc:
                ended = exc  # the message in flight is recorded lost, then the run fails
                outcome, t_ack = LOST, None
            record = ack_record(
                self.context.clock,
                self._floor,
                seq,
                payload,
                (t_send, t_secured, t_ack),
                wire_bytes,
                outcome,
            )
            self.context.emit(record)
            if ended is not None:
                raise ended
            interval_ns = next_interval_ns()
            if seq + 1 < schedule.message_count:
                self._idle(time.perf_counter_ns() + interval_ns)

    def _publish(self, msg_id: int, data: bytes) -> bytes:
        """The QoS 1 PUBLISH datagram of ``data`` to the run's topic id."""
        kind = TOPIC_ID_TYPES[self.spec.topic_id_type]
        message = codec.Publish(self._topic_id, msg_id, data, qos=1, topic_id_type=kind)
        return codec.encode(message)
