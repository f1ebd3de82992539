"""One-way receiver runners (``measurement: one_way``, protocols ``mqtt`` and ``srup``): the
device end of the SRUP paper's method, where a controller (the platform,
``oneway.controller``) sends messages to the devices and each device times their arrival.
Method, payload layout and limits: device-agent/docs/one-way.md; job fields: §5 of
docs/control-plane.md.

The run, in order:

1. connect (``mqtt_link.MqttLink``: TCP_NODELAY, TLS below paho) and build what unsecures
   a message: the payload security mechanism with the key from the job (the controller
   secured the messages, so a key made here would not open them; for a signature, the
   controller's public key: a job carrying a private key is refused), or for SRUP a
   ``srup.receiver.Receiver`` holding the controller's public key;
2. probe the clock offset to the platform (``oneway.clock``; eight NTP-style probes,
   minimum-RTT filter), on this run's ``RunClock``;
3. subscribe to ``spec.topic`` (SUBACK received), then publish ``receiver_ready``: the
   platform starts its controller once every device of the run is ready;
4. receive until every message has arrived intact, or ``timeout_ms`` after the END marker,
   or ``oneway_deadline_s`` after ready, or a stop;
5. probe the offset again; correct every receive time by the mean of the two offsets
   (so it is on the controller's clock, like ``t_send_ns``); emit one Record per expected
   ``seq`` in order; publish ``clock_offset`` with both offsets and the one applied.

Measurement choices, and why:

- ``t_recv`` is taken after the message was unsecured (decrypted, or SRUP verified and its
  sequence ID checked), as the paper's devices logged a command once processed;
  ``unsecure_ns`` is the time inside that step (``timing.time_unsecure``, as every runner
  times it). ``secure_ns`` is empty: the controller secured it.
- The harness floor: after each message that arrived, the ``null`` mechanism's
  ``unsecure`` of a null frame of the run's payload size (made once in ``setup``) is timed
  the same way, as ``floor_unsecure_ns`` (``timing.HarnessFloor``); ``floor_secure_ns`` is
  empty, as ``secure_ns`` is. A run without a mechanism (``security: none``) has no floor.
- ``wire_bytes`` is the PUBLISH as it arrived, counted at this client's socket: what paho
  reads is copied into an ``OutboundMeter`` (the parser that credits each written PUBLISH
  to its payload, here fed the inbound stream). Over TLS a PUBLISH is credited with the TLS
  bytes read from the kernel while paho read that packet.
- Outcomes: ``ok``; ``lost`` (never arrived); ``decrypt_error`` / ``rejected_signature``
  (does not decrypt, MAC or SRUP signature does not verify, unknown SRUP sender,
  malformed); ``rejected_replay`` (verified, but its SRUP sequence ID, or its seq, is not
  above the last one accepted). A refused message's own fields cannot be trusted, so it is
  counted against the message it arrived in place of: the first seq after the last one
  accepted that has no record yet (one publisher, one subscriber: MQTT keeps their order).
  If that message's intact copy arrives afterwards, the copy is what is recorded.
- A lost connection (``mqtt_link.ride_out``): connected again (clean session, topic
  subscribed again) within ``reconnect_budget_s``, the receiver goes on waiting; the
  messages the controller sent meanwhile never arrive and are recorded ``lost``.
- A lost or refused message's send time is unknown here: its ``t_send_ns`` is the send
  time of the last message before it that arrived intact (or, before any, the moment this
  receiver was ready, on the controller's clock), so a run's time range stays right.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar

import paho.mqtt.client as mqtt
from iotsecbench_contract.jobspec import (
    MAX_MESSAGE_COUNT,
    LinkSpec,
    OneWayReceiverFields,
    choice_field,
    hex_field,
    int_field,
    number_field,
)
from iotsecbench_contract.limits import ONE_WAY_MIN_PAYLOAD
from iotsecbench_contract.mechanisms import SIGNATURE

from iotsecbench_agent.errors import DataPlaneError, RunAborted, UnsupportedJob
from iotsecbench_agent.links.mqtt_link import ConnectionLost, MqttLink, pump, ride_out
from iotsecbench_agent.links.mqtt_wire import CountingSocket, CountingTLSSocket, OutboundMeter
from iotsecbench_agent.netemu.nsutil import in_main_namespace
from iotsecbench_agent.oneway.clock import ClockOffset, ClockProbeError, probe_clock_offset
from iotsecbench_agent.oneway.wire import parse_payload
from iotsecbench_agent.runners.base import Runner, register, require
from iotsecbench_agent.runners.mqtt_roundtrip import MAX_PAYLOAD_BYTES, SECURITY_NONE
from iotsecbench_agent.runners.resources import Traffic, link_traffic
from iotsecbench_agent.runners.srup_roundtrip import _id_field
from iotsecbench_agent.runners.timing import HarnessFloor, refusal_outcome, time_unsecure
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import MechanismError
from iotsecbench_agent.security.mechanisms import Signature
from iotsecbench_agent.srup.codec import MAX_FIELD_BYTES, MalformedMessage
from iotsecbench_agent.srup.keys import DEFAULT_SIGNATURE, SIGNATURES, load_key
from iotsecbench_agent.srup.receiver import Receiver
from iotsecbench_agent.storage.recordlog import LOST, OK, REJECTED_REPLAY, Record

logger = logging.getLogger(__name__)

ONE_WAY = "one_way"
# Checked between two waits: how soon a stop or the deadline is noticed.
_SLICE_NS = 200_000_000
_CONTROLLER_SLOT = "oneway-controller"


@dataclass(frozen=True)
class OneWaySpec:
    link: LinkSpec
    topic: str
    payload_size: int
    message_count: int
    timeout_ms: float
    deadline_s: float
    time_url: str
    security: str = SECURITY_NONE
    security_key: bytes | None = field(default=None, repr=False)
    # protocol srup
    srup_signature: str = DEFAULT_SIGNATURE
    srup_controller_key: bytes | None = field(default=None, repr=False)
    srup_controller_id: int | None = None

    @classmethod
    def parse(cls, spec: Mapping[str, Any], *, srup: bool) -> OneWaySpec:
        if spec.get("measurement") != ONE_WAY:
            raise UnsupportedJob(f"spec.measurement must be {ONE_WAY!r} for a one-way receiver")
        topic = spec.get("topic")
        if not isinstance(topic, str) or not topic or any(c in topic for c in "+#"):
            raise UnsupportedJob("spec.topic must be a non-empty topic without wildcards")
        receiver = OneWayReceiverFields.parse(spec)
        common: dict[str, Any] = {
            "link": LinkSpec.parse(spec),
            "topic": topic,
            "payload_size": int_field(
                spec,
                "payload_size",
                ONE_WAY_MIN_PAYLOAD,
                MAX_FIELD_BYTES if srup else MAX_PAYLOAD_BYTES,
            ),
            "message_count": int_field(spec, "message_count", 1, MAX_MESSAGE_COUNT),
            "timeout_ms": number_field(spec, "timeout_ms", minimum=1.0),
            "deadline_s": receiver.deadline_s,
            "time_url": receiver.time_url,
        }
        security = spec.get("security", SECURITY_NONE)
        security_key = hex_field(spec, "security_key")
        if srup:
            if security != SECURITY_NONE or security_key is not None:
                raise UnsupportedJob(
                    "srup signs its messages itself (spec.srup_signature); "
                    "spec.security must be none and spec.security_key absent"
                )
            controller_key = _key_field(spec, "srup_controller_public_key")
            controller_id = _id_field(spec, "srup_controller_id")
            if controller_key is None or controller_id is None:
                raise UnsupportedJob(
                    "a one-way SRUP receiver verifies the controller: "
                    "spec.srup_controller_public_key and spec.srup_controller_id are required"
                )
            return cls(
                **common,
                srup_signature=choice_field(spec, "srup_signature", SIGNATURES, DEFAULT_SIGNATURE),
                srup_controller_key=controller_key,
                srup_controller_id=controller_id,
            )
        if not isinstance(security, str) or security not in registry.names():
            raise UnsupportedJob(
                f"security {security!r} is not supported (see `iotsecbench-agent mechanisms`)"
            )
        if security_key is None and spec.get("security_key_error"):
            # identity.BrokerIdentity.apply could not open the key sealed to this device.
            raise UnsupportedJob(str(spec["security_key_error"]))
        if security != SECURITY_NONE and security_key is None:
            raise UnsupportedJob(
                "in a one-way run the platform secures the messages: spec.security_key "
                "(the key it uses, or for a signature its public key) is required"
            )
        if registry.describe(security).kind == SIGNATURE:
            _check_verify_only(security, security_key)
        return cls(**common, security=security, security_key=security_key)


def _check_verify_only(security: str, key: bytes | None) -> None:
    """A signed one-way payload is verified with the controller's public key: a job that
    carries a key that can sign (the controller's private key) is refused, so a device
    never holds what would let it sign as the platform."""
    try:
        mechanism = registry.create(security, key=key)
    except MechanismError as exc:
        raise UnsupportedJob(f"spec.security_key: {exc}") from None
    if not isinstance(mechanism, Signature) or mechanism.can_sign:
        raise UnsupportedJob(
            f"spec.security_key must be the controller's {security} public key, not a "
            "private key: the device only verifies"
        )


@dataclass
class _Arrival:
    outcome: str
    t_send_ns: int | None  # the controller's send time, from an intact payload
    t_recv_perf: int
    unsecure_ns: int
    app_bytes: int
    wire_bytes: int
    floor_unsecure_ns: int | None


class OneWayReceiver(Runner):
    """The device end of a one-way run (see the module doc); registered per protocol."""

    measurements = (ONE_WAY,)
    # Under a profile the receiver's link is emulated like a round trip's; the clock
    # probes leave the device namespace (_probe).
    network_profiles = True
    srup: ClassVar[bool] = False

    def __init__(self, spec: Mapping[str, Any], context: Any) -> None:
        super().__init__(spec, context)
        self.spec = OneWaySpec.parse(spec, srup=self.srup)
        # What paho reads, parsed back into packets: each PUBLISH credited to its payload.
        self.inbound = OutboundMeter(mqtt5=self.spec.link.mqtt5, by_payload=True)
        self._link: MqttLink | None = None
        self._open: Callable[[bytes], bytes] | None = None
        self._floor: HarnessFloor | None = None
        self._floor_frame = b""  # a null frame of the run's payload size (setup)
        self._arrivals: dict[int, _Arrival] = {}
        self._last_accepted = -1
        self._intact = 0
        self._end_seen = False
        self._wake = threading.Event()  # END seen, or every message intact
        # Messages not recorded against any seq: refusals with nothing awaited, duplicates,
        # strays (too short, or a seq outside the run).
        self.unattributed: Counter[str] = Counter()
        self.before: ClockOffset | None = None
        self.after: ClockOffset | None = None

    @classmethod
    def validate_spec(cls, spec: Mapping[str, Any]) -> None:
        OneWaySpec.parse(spec, srup=cls.srup)

    @property
    def link(self) -> MqttLink:
        return require(self._link)

    def setup(self) -> None:
        try:
            self._open = self._opener()
        except MechanismError as exc:
            raise UnsupportedJob(str(exc)) from None
        # SRUP always verifies a signature; otherwise the job's mechanism, if any.
        self._floor = HarnessFloor() if self.srup else HarnessFloor.for_security(self.spec.security)
        if self._floor is not None:
            self._floor_frame = self._floor.frame(self.spec.payload_size)
        self._link = MqttLink(
            self.spec.link,
            meter=OutboundMeter(mqtt5=self.spec.link.mqtt5),
            client_id=f"isb-{self.context.run_id[:8]}-{self.context.device_id[:8]}",
            on_message=self._on_message,
            via=self.context.broker_via,
        )
        self._link.connect()
        # After the CONNACK, before the SUBACK: the metered stream starts on a packet. So
        # after each reconnect (ride_out) on the new socket, before the topic's SUBACK.
        self._meter_inbound(self._link)
        self._link.on_reconnected = self._meter_inbound

    def _meter_inbound(self, link: MqttLink) -> None:
        sock = link.metered_socket()
        if sock is None:
            raise DataPlaneError("the data-plane socket is not metered")
        self.inbound.restart_stream()  # a packet the lost socket left half-read is dropped
        _meter_inbound(sock, self.inbound)

    def run(self) -> None:
        context = self.context
        clock = context.clock
        perf_counter_ns = time.perf_counter_ns

        def now() -> int:
            return clock.wall_ns(perf_counter_ns())

        self.before = self._probe(now)
        self.link.subscribe(self.spec.topic)
        t_ready = perf_counter_ns()
        self._publish({"event": "receiver_ready"})
        failure: DataPlaneError | None = None
        try:
            self._receive(t_ready)
        except DataPlaneError as exc:
            # The connection was lost past reconnect_budget_s: what arrived until then is
            # still recorded (on the clock probed after), then the run fails saying why.
            failure = exc
        stopped = context.stop.is_set()
        if not stopped:
            try:
                self.after = self._probe(now)
            except ClockProbeError as exc:
                logger.warning("agent.oneway_clock_after_failed run_id=%s %s", context.run_id, exc)
        applied = applied_offset(self.before, self.after)
        self._publish({"event": "clock_offset", **clock_event(self.before, self.after)})
        last = self.spec.message_count
        if stopped or failure is not None:
            last = max(self._arrivals, default=-1) + 1
        self._emit(last, clock.wall_ns(t_ready) + applied[0], applied[0])
        if self.unattributed:
            logger.info(
                "agent.oneway_unattributed run_id=%s %s",
                context.run_id,
                " ".join(f"{k}={v}" for k, v in sorted(self.unattributed.items())),
            )
        if stopped:
            raise RunAborted(
                f"stopped after receiving {self._intact} of {self.spec.message_count} messages"
            )
        if failure is not None:
            raise failure

    def traffic(self) -> Traffic:
        return link_traffic(self._link)

    def cleanup(self) -> None:
        self._open = None
        self._floor = None
        link, self._link = self._link, None
        if link is not None:
            link.close()

    # -- steps -------------------------------------------------------------------------

    def _opener(self) -> Callable[[bytes], bytes]:
        """bytes published by the controller -> the one-way payload; SecurityError if
        they do not decrypt, verify or pass the replay check."""
        spec = self.spec
        if not self.srup:
            return registry.create(spec.security, key=spec.security_key).unsecure
        controller_id = spec.srup_controller_id
        assert controller_id is not None  # OneWaySpec.parse requires it for srup
        controller = load_key(spec.srup_signature, spec.srup_controller_key, slot=_CONTROLLER_SLOT)
        receiver = Receiver({controller_id: controller.verifier})

        def open_srup(wire: bytes) -> bytes:
            data = receiver.accept(wire).data
            if data is None:
                raise MalformedMessage("SRUP: a one-way message is a data message")
            return data

        return open_srup

    def _probe(self, now: Callable[[], int]) -> ClockOffset:
        token = self.context.api_token
        if token is None:
            raise ClockProbeError("the platform's clock cannot be read: no device token")
        # Outside the run's emulated link, if there is one: the probes must measure the
        # clocks, not the shaped path (its delay is one-sided and would skew the offset).
        return in_main_namespace(lambda: probe_clock_offset(self.spec.time_url, token, now=now))

    def _publish(self, event: dict[str, Any]) -> None:
        publish = self.context.publish_event
        if publish is None:
            logger.warning("agent.oneway_event_not_published event=%s", event["event"])
            return
        publish(event)

    def _receive(self, t_ready: int) -> None:
        """Service the connection until every message is intact, ``timeout_ms`` after the
        END marker, the deadline, or a stop (all messages are handled in ``_on_message``)."""
        links = (self.link,)
        stop = self.context.stop
        wake = self._wake
        perf_counter_ns = time.perf_counter_ns
        deadline = t_ready + int(self.spec.deadline_s * 1e9)
        end_by: int | None = None
        while not stop.is_set():
            now = perf_counter_ns()
            limit = deadline if end_by is None else min(deadline, end_by)
            if now >= limit:
                return
            try:
                pump(links, wake, min(limit, now + _SLICE_NS))
            except ConnectionLost as exc:
                # Subscribed again after the reconnect; what the controller sent during
                # the outage never arrives and is recorded lost by ``_emit``.
                try:
                    ride_out(
                        links,
                        exc,
                        budget_s=self.spec.link.reconnect_budget_s,
                        stop=stop,
                        run_id=self.context.run_id,
                    )
                except RunAborted:
                    return  # stopped while reconnecting: ``run`` records what arrived
            if self._intact == self.spec.message_count:
                return
            if self._end_seen and end_by is None:
                end_by = perf_counter_ns() + int(self.spec.timeout_ms * 1e6)
            wake.clear()

    def _emit(self, count: int, ready_ns: int, offset_ns: int) -> None:
        clock = self.context.clock
        emit = self.context.emit
        payload_size = self.spec.payload_size
        last_send = ready_ns
        for seq in range(count):
            arrival = self._arrivals.get(seq)
            if arrival is None:
                emit(Record(seq, last_send, None, payload_size, 0, LOST))
                continue
            if arrival.t_send_ns is not None:
                last_send = arrival.t_send_ns
            emit(
                Record(
                    seq=seq,
                    t_send_ns=last_send,
                    t_recv_ns=clock.wall_ns(arrival.t_recv_perf) + offset_ns,
                    app_bytes=arrival.app_bytes,
                    wire_bytes=arrival.wire_bytes,
                    outcome=arrival.outcome,
                    secure_ns=None,
                    unsecure_ns=arrival.unsecure_ns,
                    floor_unsecure_ns=arrival.floor_unsecure_ns,
                )
            )

    # -- paho callback: runs in this thread, inside pump --------------------------------

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        open_ = self._open
        if open_ is None:
            return
        data = message.payload
        wire = data if isinstance(data, bytes) else bytes(data)
        payload, error, t_open, t_recv = time_unsecure(open_, wire)
        unsecure_ns = t_recv - t_open
        outcome = OK if error is None else refusal_outcome(error)
        wire_bytes = self.inbound.take_payload_bytes(wire)
        if payload is not None:
            parsed = parse_payload(payload)
            if parsed is None:
                self.unattributed["too_short"] += 1
                return
            if parsed.is_end:
                self._end_seen = True
                self._wake.set()
                return
            seq = parsed.seq
            if seq >= self.spec.message_count:
                self.unattributed["outside_run"] += 1
                return
            if seq > self._last_accepted:
                self._last_accepted = seq
                self._intact += 1  # above every seq accepted so far: a first intact copy
                self._arrivals[seq] = _Arrival(
                    OK,
                    parsed.t_send_ns,
                    t_recv,
                    unsecure_ns,
                    len(payload),
                    wire_bytes,
                    self._floor_unsecure_ns(),
                )
                if self._intact == self.spec.message_count:
                    self._wake.set()
                return
            outcome = REJECTED_REPLAY  # verified, but not above the last seq accepted
        seq_awaited = self._awaited()
        if seq_awaited is None:
            self.unattributed[outcome] += 1
            return
        self._arrivals[seq_awaited] = _Arrival(
            outcome,
            None,
            t_recv,
            unsecure_ns,
            self.spec.payload_size,
            wire_bytes,
            self._floor_unsecure_ns(),
        )

    def _floor_unsecure_ns(self) -> int | None:
        """The harness floor beside a recorded arrival (after its ``t_recv``)."""
        floor = self._floor
        return None if floor is None else floor.unsecure_ns(self._floor_frame)

    def _awaited(self) -> int | None:
        """The message a refused one arrived in place of: the first seq after the last
        accepted that has no record yet (None: none is left)."""
        seq = self._last_accepted + 1
        while seq in self._arrivals:
            seq += 1
        return seq if seq < self.spec.message_count else None


@register
class MqttOneWayReceiver(OneWayReceiver):
    protocol = "mqtt"


@register
class SrupOneWayReceiver(OneWayReceiver):
    protocol = "srup"
    srup = True


def applied_offset(before: ClockOffset | None, after: ClockOffset | None) -> tuple[int, int]:
    """(offset, uncertainty) in ns applied to the receive times: the mean of the offsets
    before and after the run; its uncertainty the larger of theirs plus half their
    difference (the drift over the run). Only one of them: that one."""
    if before is None and after is None:
        raise ValueError("no clock offset was measured")
    if before is None or after is None:
        only = before or after
        assert only is not None
        return only.offset_ns, only.uncertainty_ns
    offset = (before.offset_ns + after.offset_ns) // 2
    drift = abs(after.offset_ns - before.offset_ns)
    return offset, max(before.uncertainty_ns, after.uncertainty_ns) + (drift + 1) // 2


def clock_event(before: ClockOffset | None, after: ClockOffset | None) -> dict[str, Any]:
    """The fields of the ``clock_offset`` event (ms, platform minus device)."""
    offset, uncertainty = applied_offset(before, after)
    return {
        "before": _offset_fields(before),
        "after": _offset_fields(after),
        "applied_ms": offset / 1e6,
        "applied_uncertainty_ms": uncertainty / 1e6,
    }


def _offset_fields(offset: ClockOffset | None) -> dict[str, float] | None:
    if offset is None:
        return None
    return {"offset_ms": offset.offset_ms, "uncertainty_ms": offset.uncertainty_ms}


def _key_field(spec: Mapping[str, Any], key: str) -> bytes | None:
    """A key given as PEM text or as hex (of PEM/DER bytes)."""
    value = spec.get(key)
    if isinstance(value, str) and "-----BEGIN " in value:
        return value.encode("ascii", errors="replace")
    return hex_field(spec, key)


def _meter_inbound(sock: CountingSocket | CountingTLSSocket, meter: OutboundMeter) -> None:
    """Copy everything paho reads from ``sock`` into ``meter``: on plain TCP the bytes
    themselves; over TLS the plaintext with the TLS bytes read from the kernel meanwhile."""
    if isinstance(sock, CountingTLSSocket):
        tls = sock
        tls_recv = tls.recv

        def recv_tls(size: int) -> bytes:
            before = tls.bytes_received
            data = tls_recv(size)
            if data:
                meter.record(data, tls.bytes_received - before)
            return data

        tls.recv = recv_tls  # type: ignore[method-assign,assignment]
        return
    plain_recv = sock.recv
    record = meter.record

    def recv_plain(size: int) -> bytes:
        data = plain_recv(size)
        if data:
            record(data)
        return data

    sock.recv = recv_plain
