"""MQTT-SN 1.2 round-trip runner (protocol ``mqttsn``; job fields in docs/mqttsn.md).

The device end publishes over UDP to an MQTT-SN gateway, the gateway forwards to the
broker, and the broker routes the message back through the gateway to this client's own
subscription: the same "publish → own subscription" round trip as ``mqtt_roundtrip``,
with the gateway (and its MQTT connection) inside it, as in the MQTT-SN paper's hybrid
network. ``mqttsn_gateway`` ("host:port") names the gateway; without it the runner starts
the agent's own transparent gateway (``mqttsn.gateway``) on 127.0.0.1 in a thread,
bridging to the job's ``broker_url``, and logs that it did.

Measurement choices, and why:

- The client is ``mqttsn.client.SnClient``: one UDP socket, driven in this thread; the
  wait for the echo is ``select`` up to the timeout, never a sleep, and nothing else
  happens between ``t_send`` and the echo.
- As the MQTT runner (and the MQTT/CoAP paper) does, ``t_send`` is taken just BEFORE
  ``secure`` and ``t_recv`` just AFTER the echo has been received, decoded and
  ``unsecure``d; ``secure_ns``/``unsecure_ns`` are the time inside each
  (``timing.time_secure`` / ``time_unsecure``), and after each round trip the ``null``
  mechanism is timed the same way as the record's harness floor (``timing.HarnessFloor``,
  built in ``setup``). With the
  lightweight CBC mechanisms the PUBLISH's Data is ``iv(8) || CBC(iv, PKCS#7(payload))``,
  the MQTT-SN paper's payload (AES-CBC: a 16-byte IV).
- QoS −1 (§6.8 of the spec) needs no connection: the PUBLISHes go out from a second UDP
  socket that never sends CONNECT, to a short topic name or a predefined topic id. The
  echo still needs a subscription, so the receiving socket connects and subscribes at
  QoS 0. QoS 0 and 1 publish from the connected socket; at QoS 1 the subscription is
  QoS 1 too, and the echo's PUBACK is sent after ``t_recv``.
- ``wire_bytes`` is the UDP payload of the message's PUBLISH as the kernel took it from
  the publishing socket: the MQTT-SN message, Length (1 or 3 octets) to Data. As for MQTT,
  acknowledgements (PUBACK, the echo's PUBACK) are not credited to the message. The
  client never retransmits: a PUBLISH, its acknowledgement or its echo that does not
  arrive within ``timeout_ms`` makes the message ``lost``.
- Which echo is ours: one message is in flight; a PUBLISH whose Data does not unsecure
  is the echo, corrupted (``decrypt_error``/``rejected_signature``); one that unsecures to
  a payload without our sequence tag (the seq, or below 8 bytes the seq modulo 256**n:
  ``mqtt_roundtrip.SeqTags``) is a late echo of an earlier message: skipped and counted in
  ``tags.late_echoes``.
- A broker restart (issue #17, docs/data-plane-faults.md) is ridden out by the gateway,
  not here: the client never sees the broker, so its session, topic ids and subscription
  stay as they are while the gateway reconnects (``spec.reconnect_budget_s``, passed to
  the local gateway). The round trip open at the cut gets no echo and is recorded
  ``lost`` at its timeout, like a PUBLISH the gateway drops while the broker is away; a
  copy of a closed seq arriving later is a late echo, never a second record; the run goes
  on with the next seq. Past the budget the gateway DISCONNECTs the client: the round
  trip open then is recorded ``lost`` and the run fails with a DataPlaneError naming the
  budget (the records logged until then are kept).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from iotsecbench_contract.jobspec import (
    DEFAULT_RECONNECT_BUDGET_S,
    ROUND_TRIP,
    Schedule,
    choice_field,
    hex_field,
    int_field,
    reconnect_budget_field,
)
from iotsecbench_contract.limits import MAX_PUBLISH_DATA, MAX_UDP_PAYLOAD

from iotsecbench_agent.brokerurl import host_port, parse_mqtt_url
from iotsecbench_agent.errors import AgentError, DataPlaneError, UnsupportedJob
from iotsecbench_agent.mqttsn import codec
from iotsecbench_agent.mqttsn.client import SnClient, return_code_name
from iotsecbench_agent.mqttsn.gateway import Gateway
from iotsecbench_agent.runners.base import Runner, message_seqs, register, require
from iotsecbench_agent.runners.mqtt_roundtrip import SECURITY_NONE, SeqTags
from iotsecbench_agent.runners.resources import Traffic
from iotsecbench_agent.runners.target_watch import TargetWatch
from iotsecbench_agent.runners.timing import (
    HarnessFloor,
    refusal_outcome,
    round_trip_record,
    time_secure,
    time_unsecure,
)
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import Mechanism, MechanismError, SecurityError
from iotsecbench_agent.storage.recordlog import LOST, OK

logger = logging.getLogger(__name__)

NORMAL = "normal"
SHORT = "short"
PREDEFINED = "predefined"
TOPIC_ID_TYPES = {
    NORMAL: codec.TOPIC_NORMAL,
    SHORT: codec.TOPIC_SHORT,
    PREDEFINED: codec.TOPIC_PREDEFINED,
}
QOS_LEVELS = (-1, 0, 1)
IDLE_SLICE_NS = 250_000_000
# The keep-alive Duration of our CONNECT; we PINGREQ after half of it without sending.
KEEPALIVE_S = 60
# Spec fields that only the MQTT runner understands: refused rather than ignored. (A
# network_profile is refused by the executor, as for every runner without emulated links.)
MQTT_ONLY_FIELDS = ("tls_version", "ca_cert", "client_cert", "client_key")


class GatewayDisconnected(DataPlaneError):
    """The gateway ended the client's session (DISCONNECT) while the run was measuring."""


_HOST_PORT = re.compile(r"^(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<host>[^:\[\]\s]+)):(?P<port>\d{1,5})$")


@dataclass(frozen=True)
class MqttSnSpec:
    schedule: Schedule
    topic: str
    qos: int = 0
    topic_id_type: str = NORMAL
    predefined_id: int | None = None
    gateway: tuple[str, int] | None = None  # None: start a local gateway
    broker_url: str | None = None
    security: str = SECURITY_NONE
    security_key: bytes | None = field(default=None, repr=False)
    # How long the local gateway rides out a lost broker connection (an external
    # gateway has its own: ``mqttsn-gateway --reconnect-budget``).
    reconnect_budget_s: float = DEFAULT_RECONNECT_BUDGET_S

    @classmethod
    def parse(cls, spec: Mapping[str, Any]) -> MqttSnSpec:
        for key in MQTT_ONLY_FIELDS:
            if spec.get(key) is not None:
                raise UnsupportedJob(f"spec.{key} is not supported by mqttsn")
        if spec.get("mqtt_version", "3.1.1") != "3.1.1":
            raise UnsupportedJob(
                "mqttsn's gateway speaks MQTT 3.1.1: spec.mqtt_version must be 3.1.1"
            )
        security = spec.get("security", SECURITY_NONE)
        if not isinstance(security, str) or security not in registry.names():
            raise UnsupportedJob(
                f"security {security!r} is not supported (see `iotsecbench-agent mechanisms`)"
            )
        qos = spec.get("qos", 0)
        if isinstance(qos, bool) or qos not in QOS_LEVELS:
            raise UnsupportedJob(f"spec.qos must be -1, 0 or 1 for mqttsn, got {qos!r}")
        kind = choice_field(spec, "topic_id_type", tuple(TOPIC_ID_TYPES), NORMAL)
        topic = _topic_field(spec, kind)
        if qos == -1 and kind == NORMAL:
            raise UnsupportedJob(
                "QoS -1 publishes without a connection, so without REGISTER: "
                "spec.topic_id_type must be short or predefined"
            )
        predefined_id = None
        if kind == PREDEFINED:
            predefined_id = int_field(spec, "mqttsn_topic_id", 1, codec.MAX_TOPIC_ID)
        elif spec.get("mqttsn_topic_id") is not None:
            raise UnsupportedJob("spec.mqttsn_topic_id is for topic_id_type predefined only")
        gateway = _gateway_field(spec)
        broker_url = spec.get("broker_url")
        if gateway is None:
            if not isinstance(broker_url, str):
                raise UnsupportedJob(
                    "spec.broker_url is missing (the local MQTT-SN gateway bridges to it; "
                    "or name a gateway in spec.mqttsn_gateway)"
                )
            try:
                broker = parse_mqtt_url(broker_url, what="spec.broker_url")
            except AgentError as exc:
                raise UnsupportedJob(str(exc)) from None
            if broker.tls:
                raise UnsupportedJob("the local MQTT-SN gateway bridges to mqtt:// brokers only")
        schedule = Schedule.parse(spec, min_payload=1, max_payload=MAX_PUBLISH_DATA)
        secured = schedule.payload_size + registry.describe(security).overhead(
            schedule.payload_size
        )
        if secured > MAX_PUBLISH_DATA:
            raise UnsupportedJob(
                f"spec.payload_size {schedule.payload_size} secured with {security} is "
                f"{secured} bytes: an MQTT-SN PUBLISH carries at most {MAX_PUBLISH_DATA} "
                f"(one UDP datagram of {MAX_UDP_PAYLOAD})"
            )
        return cls(
            schedule=schedule,
            topic=topic,
            qos=qos,
            topic_id_type=kind,
            predefined_id=predefined_id,
            gateway=gateway,
            broker_url=broker_url if isinstance(broker_url, str) else None,
            security=security,
            security_key=hex_field(spec, "security_key"),
            reconnect_budget_s=reconnect_budget_field(spec),
        )


def _topic_field(spec: Mapping[str, Any], kind: str) -> str:
    topic = spec.get("topic")
    if not isinstance(topic, str) or not topic or any(c in topic for c in "+#"):
        raise UnsupportedJob("spec.topic must be a non-empty topic without wildcards")
    if kind == SHORT and len(topic.encode("utf-8")) != 2:
        raise UnsupportedJob(
            f"with topic_id_type short, spec.topic is a 2-character short topic name, not {topic!r}"
        )
    return topic


def _gateway_field(spec: Mapping[str, Any]) -> tuple[str, int] | None:
    value = spec.get("mqttsn_gateway")
    if value is None:
        return None
    match = _HOST_PORT.match(value) if isinstance(value, str) else None
    port = int(match["port"]) if match else 0
    if match is None or not 1 <= port <= 65535:
        raise UnsupportedJob(
            f'spec.mqttsn_gateway must be "host:port" (IPv6: "[addr]:port"), got {value!r}'
        )
    return match["v6"] or match["host"], port


@register
class MqttSnRoundTripRunner(Runner):
    protocol = "mqttsn"
    measurements = (ROUND_TRIP,)
    spec_type = MqttSnSpec

    def __init__(self, spec: Mapping[str, Any], context: Any) -> None:
        super().__init__(spec, context)
        self.spec = MqttSnSpec.parse(spec)
        self.gateway: Gateway | None = None  # the local gateway, when the runner started one
        self._client: SnClient | None = None
        self._publisher: SnClient | None = None  # QoS −1's unconnected socket
        self._mechanism: Mechanism | None = None
        self._floor: HarnessFloor | None = None
        self._topic_id = 0
        self._client_id = ""
        self._ended = False  # the gateway DISCONNECTed us: nothing to DISCONNECT at cleanup
        self._last_puback: int | None = None  # the Msg ID of the latest PUBACK read
        self.tags = SeqTags(self.spec.schedule.payload_size)
        gateway = self.spec.gateway
        self.watch = TargetWatch("MQTT-SN gateway", gateway and host_port(*gateway))

    @property
    def client(self) -> SnClient:
        """The connected, subscribed client (after ``setup``)."""
        return require(self._client)

    def traffic(self) -> Traffic:
        """The client's socket and QoS −1's own publisher socket (the agent's own gateway,
        when it started one, is the other end, not counted)."""
        return Traffic.total(
            Traffic(sn.bytes_sent, sn.bytes_received)
            for sn in (self._client, self._publisher)
            if sn is not None
        )

    @property
    def publisher(self) -> SnClient:
        """The socket PUBLISHes leave from: the client's, or QoS −1's own."""
        return self._publisher or self.client

    def setup(self) -> None:
        spec = self.spec
        try:
            self._mechanism = registry.create(spec.security, key=spec.security_key)
        except MechanismError as exc:
            raise UnsupportedJob(str(exc)) from None
        self._floor = HarnessFloor.for_security(spec.security)
        address = spec.gateway or self._start_local_gateway()
        self._client = SnClient(address)
        client_id = f"isb-{self.context.run_id[:8]}-{self.context.device_id[:8]}"
        self._client_id = client_id
        self._client.connect(client_id, duration_s=KEEPALIVE_S)
        kind = TOPIC_ID_TYPES[spec.topic_id_type]
        if spec.topic_id_type == NORMAL:
            self._topic_id = self._client.register(spec.topic)
        elif spec.topic_id_type == SHORT:
            self._topic_id = codec.short_topic_id(spec.topic)
        else:
            self._topic_id = spec.predefined_id or 0
        self._subscribe(kind)
        if spec.qos == -1:
            self._publisher = SnClient(address)

    def _subscribe(self, kind: int) -> None:
        """Subscribed (SUBACK received) before the first send, as the MQTT runner (the
        echo comes back through this subscription)."""
        spec = self.spec
        self.client.subscribe(
            codec.Subscribe(
                msg_id=self.client.next_msg_id(),
                topic_id_type=kind,
                topic_name="" if kind == codec.TOPIC_PREDEFINED else spec.topic,
                topic_id=self._topic_id if kind == codec.TOPIC_PREDEFINED else 0,
                qos=1 if spec.qos == 1 else 0,
            )
        )

    def _start_local_gateway(self) -> tuple[str, int]:
        spec = self.spec
        assert spec.broker_url is not None  # checked by MqttSnSpec.parse
        predefined = {spec.predefined_id: spec.topic} if spec.predefined_id else {}
        gateway = Gateway(
            parse_mqtt_url(spec.broker_url),
            port=0,
            predefined=predefined,
            reconnect_budget_s=spec.reconnect_budget_s,
        )
        gateway.start()
        self.gateway = gateway
        host, port = gateway.address
        logger.info(
            "agent.mqttsn_local_gateway run_id=%s listen=%s:%d broker=%s:%d (no "
            "spec.mqttsn_gateway: the agent's own transparent gateway is in the round trip)",
            self.context.run_id,
            host,
            port,
            gateway.broker.host,
            gateway.broker.port,
        )
        return host, port

    def run(self) -> None:
        client = self.client
        publisher = self.publisher
        secure = self._require_mechanism().secure
        floor = self._floor
        spec = self.spec
        schedule = spec.schedule
        qos = spec.qos
        topic_id = self._topic_id
        kind = TOPIC_ID_TYPES[spec.topic_id_type]
        clock = self.context.clock
        stop = self.context.stop
        timeout_ns = schedule.timeout_ns
        next_interval_ns = schedule.interval_sampler()
        tags = self.tags
        watch = self.watch
        for seq in message_seqs(schedule.message_count, stop):
            payload = tags.payload(seq)
            msg_id = client.next_msg_id() if qos == 1 else 0
            wire, t_send, t_secured = time_secure(secure, payload)
            wire_bytes = publisher.send_bytes(
                codec.encode(codec.Publish(topic_id, msg_id, wire, qos=qos, topic_id_type=kind))
            )
            ended: GatewayDisconnected | None = None
            try:
                outcome, t_recv, unsecure_ns = self._await_echo(seq, t_send + timeout_ns)
            except GatewayDisconnected as exc:
                # The round trip open when the gateway ended the session is lost; it is
                # recorded before the run fails.
                ended = exc
                outcome, t_recv, unsecure_ns = LOST, 0, None
            if outcome == LOST:
                tags.lost(seq)
            else:
                tags.echoed(seq)
            if outcome == LOST and self._publisher is not None and ended is None:
                self._check_rejection(self._publisher)
            # The round trip is over (t_recv taken): the floor beside it, on the same size.
            times = (t_send, t_secured, t_recv)
            self.context.emit(
                round_trip_record(
                    clock, floor, seq, payload, times, wire_bytes, outcome, unsecure_ns
                )
            )
            if ended is not None:
                raise ended
            watch.record(lost=outcome == LOST)
            interval_ns = next_interval_ns()
            if seq + 1 < schedule.message_count:
                # Services the socket (late echoes, keep-alive); ends early on shutdown.
                self._idle(time.perf_counter_ns() + interval_ns)
            elif qos == 1 and outcome == OK and self._last_puback != msg_id:
                # The gateway's PUBACK may come after the echo: every earlier one is read
                # while the next message waits, the last one here (up to the timeout) unless
                # it came before the echo, so the run's bytes_received holds every
                # message's (runners/resources.py).
                self._await_puback(msg_id, time.perf_counter_ns() + timeout_ns)

    def _await_echo(self, seq: int, deadline_ns: int) -> tuple[str, int, int | None]:
        """(outcome, t_recv or 0, unsecure_ns) of message ``seq``: its echo, or LOST."""
        client = self.client
        mechanism = self._require_mechanism()
        expected = self.tags.tag(seq)
        while True:
            message = client.receive(deadline_ns)
            if message is None:
                return LOST, 0, None
            if isinstance(message, codec.Publish):
                payload, error, t_unsecure, t_recv = time_unsecure(mechanism.unsecure, message.data)
                client.acknowledge(message)
                if payload is not None and not payload.startswith(expected):
                    self.tags.late(payload)  # an earlier message's echo, or a stray
                    continue
                outcome = OK if error is None else refusal_outcome(error)
                return outcome, t_recv, t_recv - t_unsecure
            self._check_answer(message)

    def _await_puback(self, msg_id: int, deadline_ns: int) -> tuple[str, int | None]:
        """(outcome, t_ack or None) of the PUBLISH with ``msg_id``: its PUBACK, or LOST."""
        client = self.client
        while True:
            message = client.receive(deadline_ns)
            t_ack = time.perf_counter_ns()
            if message is None:
                return LOST, None
            if isinstance(message, codec.Puback) and message.msg_id == msg_id:
                if message.return_code == codec.REJECTED_CONGESTION:
                    return LOST, None
                self._check_answer(message)  # any other refusal fails the run
                return OK, t_ack
            client.acknowledge(message)
            self._check_answer(message)

    def _check_answer(self, message: codec.Message) -> None:
        """A non-PUBLISH from the gateway while measuring: a PUBACK that refuses our
        PUBLISH for a reason other than congestion ends the run (every message would be
        lost the same way); DISCONNECT too. PINGRESPs and acks need nothing (a PUBACK's
        Msg ID is kept: ``run`` waits for the last message's only if it has not come)."""
        if isinstance(message, codec.Puback):
            self._last_puback = message.msg_id
        if isinstance(message, codec.Puback) and message.return_code not in (
            codec.ACCEPTED,
            codec.REJECTED_CONGESTION,
        ):
            raise DataPlaneError(
                f"the MQTT-SN gateway refused PUBLISH: {return_code_name(message.return_code)}"
            )
        if isinstance(message, codec.Disconnect):
            raise self._disconnected()

    def _disconnected(self) -> GatewayDisconnected:
        """The error for the gateway's DISCONNECT, with its reason when the gateway is the
        local one and ended the session past the reconnect budget."""
        self._ended = True
        message = "the MQTT-SN gateway disconnected the client"
        if self.gateway is None:
            at = host_port(*self.spec.gateway) if self.spec.gateway else "?"
            return GatewayDisconnected(
                f"{message} (the gateway at {at}; a gateway does so when its broker connection "
                "stays lost for longer than its reconnect budget, or when it heard nothing "
                f"from the client for 1.5 × its {KEEPALIVE_S} s keep-alive: the client's "
                "datagrams no longer reach it)"
            )
        reason = self.gateway.gave_up.get(self._client_id)
        if reason is None:
            return GatewayDisconnected(message)
        return GatewayDisconnected(f"{message}: {reason} (spec.reconnect_budget_s)")

    def _check_rejection(self, publisher: SnClient) -> None:
        """QoS −1's socket hears from the gateway only when it refuses a PUBLISH."""
        while True:
            message = publisher.receive(time.perf_counter_ns())
            if message is None:
                return
            self._check_answer(message)

    def _idle(self, until_ns: int) -> None:
        """Between messages: answer what arrives (a late QoS 1 echo gets its PUBACK) and
        PINGREQ when half the keep-alive passed without a datagram from this client."""
        client = self.client
        stop = self.context.stop
        ping_after_ns = KEEPALIVE_S * 1_000_000_000 // 2
        while not stop.is_set():
            now = time.perf_counter_ns()
            if now - client.last_sent_ns >= ping_after_ns:
                client.ping()
            if now >= until_ns:
                return
            # Capped so that a stop during a long interval is seen soon.
            wake = min(until_ns, client.last_sent_ns + ping_after_ns, now + IDLE_SLICE_NS)
            message = client.receive(wake)
            if message is not None:
                client.acknowledge(message)
                if isinstance(message, codec.Publish):
                    self._late_echo(message.data)
                self._check_answer(message)

    def _late_echo(self, data: bytes) -> None:
        """A PUBLISH between two round trips: if it unsecures, an earlier message's echo."""
        try:
            payload = self._require_mechanism().unsecure(data)
        except SecurityError:
            return
        self.tags.late(payload)

    def cleanup(self) -> None:
        if self.tags.late_echoes or self.tags.ambiguous_echoes:
            logger.info(
                "agent.late_echoes run_id=%s late=%d ambiguous=%d",
                self.context.run_id,
                self.tags.late_echoes,
                self.tags.ambiguous_echoes,
            )
        self._mechanism = None
        self._floor = None
        client, self._client = self._client, None
        publisher, self._publisher = self._publisher, None
        gateway, self.gateway = self.gateway, None
        if client is not None:
            if not self._ended:
                client.disconnect()
            client.close()
        if publisher is not None:
            publisher.close()
        if gateway is not None:
            gateway.close()

    def _require_mechanism(self) -> Mechanism:
        return require(self._mechanism)
