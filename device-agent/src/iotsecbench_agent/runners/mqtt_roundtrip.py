"""MQTT round-trip runner (§5 of docs/control-plane.md): publish to a topic this client is
subscribed to, and time each message until its own copy comes back through the broker.

Measurement choices, and why:

- A separate paho client from the control plane's, connected to ``spec.broker_url``, so
  heartbeats and jobs never share the measured socket or its thread.
- TCP_NODELAY on the socket (set in ``on_socket_open``, before CONNECT is written): with
  Nagle and delayed ACKs, QoS 1/2 round trips grow ~40 ms steps that look like protocol cost.
- The network loop runs in this (the measuring) thread through paho's external-loop API
  (``loop_read``/``loop_write``/``loop_misc`` driven by ``select``), not in paho's own
  thread: ``publish()`` then writes the PUBLISH synchronously right after ``t_send`` is
  taken, instead of handing it to another thread through a wake-up socket. On loopback with
  Mosquitto that halves QoS 1/2 round trips (p50 53 µs vs 140 µs QoS 1, 114 µs vs 395 µs
  QoS 2) and matches the figures in the design notes.
- Waiting for the echo is ``select`` on the socket with the remaining timeout, never a
  sleep; ``on_message`` takes ``t_recv`` first thing and sets a ``threading.Event``.
- Nothing else happens between ``t_send`` and the echo: records, progress and wire-byte
  parsing are done after ``t_recv`` is taken.
- Security (``spec.security``, a mechanism of ``security/registry.py``): as the MQTT/CoAP
  paper measures it, ``t_send`` is taken just BEFORE ``secure`` and ``t_recv`` just AFTER
  the echo has been received and ``unsecure``d, so the RTT includes both; ``secure_ns``
  and ``unsecure_ns`` record the time inside each. The mechanism (its key schedule, key
  import or RSA key generation) is built in ``setup``, before anything is timed.
- TLS (``mqtts://`` broker URLs): the agent runs TLS itself below paho
  (``mqtt_wire.CountingTLSSocket``), so ``wire_bytes`` are the TLS records that carried the
  message's PUBLISH, counted as written to the TCP socket. ``tls_version`` pins both the
  minimum and the maximum protocol version; the server is always verified (``ca_cert`` or
  the system's trust store, hostname checked); ``client_cert``/``client_key`` are loaded
  from 0600 temporary files that are removed at once. The handshake is done in ``setup``,
  before anything is timed.
- Which echo is ours: only one message is in flight, so the first message on the topic
  whose ``unsecure`` raises while we wait is counted as our echo, corrupted
  (``decrypt_error`` / ``rejected_signature``); a message that unsecures to another seq
  is a late echo of an earlier one and is ignored, as without security.
"""

from __future__ import annotations

import logging
import os
import select
import socket
import ssl
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode
from paho.mqtt.reasoncodes import ReasonCode

from iotsecbench_agent.config import parse_mqtt_url
from iotsecbench_agent.errors import AgentError, DataPlaneError, RunAborted, UnsupportedJob
from iotsecbench_agent.recordlog import DECRYPT_ERROR, LOST, OK, REJECTED_SIGNATURE, Record
from iotsecbench_agent.runners.base import Runner, register
from iotsecbench_agent.runners.intervals import DISTRIBUTIONS, FIXED, interval_sampler
from iotsecbench_agent.runners.mqtt_wire import (
    SEQ_BYTES,
    CountingTLSSocket,
    MeteredClient,
    OutboundMeter,
)
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import (
    DecryptError,
    Mechanism,
    MechanismError,
    SignatureError,
)

logger = logging.getLogger(__name__)

MQTT_VERSIONS = {"3.1.1": mqtt.MQTTv311, "5": mqtt.MQTTv5, "5.0": mqtt.MQTTv5}
SECURITY_NONE = "none"
ROUND_TRIP = "round_trip"
# One message must fit comfortably in a Pi Zero's RAM alongside the agent.
MAX_PAYLOAD_BYTES = 16 * 1024 * 1024
# A run of more than a million messages is a throughput test, not a latency one.
MAX_MESSAGE_COUNT = 1_000_000
CONNECT_TIMEOUT_S = 10.0
KEEPALIVE_S = 60
FILLER = 0xA5
TLS_VERSIONS = {"1.2": ssl.TLSVersion.TLSv1_2, "1.3": ssl.TLSVersion.TLSv1_3}
DEFAULT_TLS_VERSION = "1.3"
MAX_PEM_CHARS = 1_000_000


@dataclass(frozen=True)
class RoundTripSpec:
    mqtt_version: str
    qos: int
    payload_size: int
    message_count: int
    interval_ms: float
    timeout_ms: float
    broker_url: str
    topic: str
    security: str = SECURITY_NONE
    # A key from the job (hex in spec.security_key); None: the mechanism makes its own.
    security_key: bytes | None = field(default=None, repr=False)
    interval_distribution: str = FIXED
    interval_seed: int | None = None
    # Over mqtts:// only: TLS version pinned as min and max, PEM texts.
    tls_version: str | None = None
    ca_cert: str | None = field(default=None, repr=False)
    client_cert: str | None = field(default=None, repr=False)
    client_key: str | None = field(default=None, repr=False)

    @classmethod
    def parse(cls, spec: Mapping[str, Any]) -> RoundTripSpec:
        security = spec.get("security", SECURITY_NONE)
        if not isinstance(security, str) or security not in registry.names():
            raise UnsupportedJob(
                f"security {security!r} is not supported (see `iotsecbench-agent mechanisms`)"
            )
        security_key = _hex_key(spec.get("security_key"))
        version = spec.get("mqtt_version", "3.1.1")
        if version not in MQTT_VERSIONS:
            raise UnsupportedJob(f"mqtt_version {version!r} is not supported (3.1.1 or 5)")
        topic = spec.get("topic")
        if not isinstance(topic, str) or not topic or any(c in topic for c in "+#"):
            raise UnsupportedJob("spec.topic must be a non-empty topic without wildcards")
        broker_url = spec.get("broker_url")
        if not isinstance(broker_url, str):
            raise UnsupportedJob("spec.broker_url is missing")
        try:
            broker = parse_mqtt_url(broker_url, what="spec.broker_url")
        except AgentError as exc:
            raise UnsupportedJob(str(exc)) from None
        tls_version = spec.get("tls_version")
        ca_cert = _pem(spec, "ca_cert")
        client_cert = _pem(spec, "client_cert")
        client_key = _pem(spec, "client_key")
        if broker.tls:
            tls_version = DEFAULT_TLS_VERSION if tls_version is None else tls_version
            if tls_version not in TLS_VERSIONS:
                raise UnsupportedJob(
                    f"spec.tls_version {tls_version!r} is not supported (1.2 or 1.3)"
                )
            if (client_cert is None) != (client_key is None):
                raise UnsupportedJob("spec.client_cert and spec.client_key go together")
        elif any(v is not None for v in (tls_version, ca_cert, client_cert, client_key)):
            raise UnsupportedJob(
                "spec.tls_version, ca_cert, client_cert and client_key need an mqtts:// broker_url"
            )
        distribution = spec.get("interval_distribution", FIXED)
        if distribution not in DISTRIBUTIONS:
            raise UnsupportedJob(
                f"interval_distribution {distribution!r} is not supported "
                f"({', '.join(DISTRIBUTIONS)})"
            )
        seed = spec.get("interval_seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise UnsupportedJob("spec.interval_seed must be an integer")
        return cls(
            interval_distribution=distribution,
            interval_seed=seed,
            mqtt_version=str(version),
            qos=_int(spec, "qos", 0, 2),
            payload_size=_int(spec, "payload_size", SEQ_BYTES, MAX_PAYLOAD_BYTES),
            message_count=_int(spec, "message_count", 1, MAX_MESSAGE_COUNT),
            interval_ms=_number(spec, "interval_ms", minimum=0.0),
            timeout_ms=_number(spec, "timeout_ms", minimum=1.0),
            broker_url=broker_url,
            topic=topic,
            security=security,
            security_key=security_key,
            tls_version=tls_version,
            ca_cert=ca_cert,
            client_cert=client_cert,
            client_key=client_key,
        )

    def tls_context(self) -> ssl.SSLContext:
        """The client context for an mqtts:// broker: server verified, hostname checked,
        ``tls_version`` as both minimum and maximum. UnsupportedJob if the PEMs are bad."""
        if self.tls_version is None:
            raise UnsupportedJob("spec.broker_url is not mqtts://")
        try:
            context = ssl.create_default_context(cadata=self.ca_cert)
        except (ssl.SSLError, ValueError) as exc:
            raise UnsupportedJob(f"spec.ca_cert is not a usable PEM certificate: {exc}") from None
        context.check_hostname = True
        context.verify_mode = ssl.CERT_REQUIRED
        version = TLS_VERSIONS[self.tls_version]
        context.minimum_version = version
        context.maximum_version = version
        if self.client_cert is not None and self.client_key is not None:
            _load_client_chain(context, self.client_cert, self.client_key)
        return context


@register
class MqttRoundTripRunner(Runner):
    protocol = "mqtt"
    measurements = (ROUND_TRIP,)

    def __init__(self, spec: Mapping[str, Any], context: Any) -> None:
        super().__init__(spec, context)
        self.spec = RoundTripSpec.parse(spec)
        # Secured payloads start with an IV, not the seq: credit wire bytes per payload.
        self.meter = OutboundMeter(
            mqtt5=MQTT_VERSIONS[self.spec.mqtt_version] == mqtt.MQTTv5, by_payload=True
        )
        self._client: MeteredClient | None = None
        self._mechanism: Mechanism | None = None
        self._connected = threading.Event()
        self._subscribed = threading.Event()
        self._arrived = threading.Event()
        self._refusal: str | None = None
        self._awaiting = -1
        self._t_recv_perf = 0
        self._unsecure_ns = 0
        self._outcome = OK

    @classmethod
    def validate_spec(cls, spec: Mapping[str, Any]) -> None:
        RoundTripSpec.parse(spec)

    def setup(self) -> None:
        spec = self.spec
        try:
            self._mechanism = registry.create(spec.security, key=spec.security_key)
        except MechanismError as exc:
            raise UnsupportedJob(str(exc)) from None
        broker = parse_mqtt_url(spec.broker_url)
        protocol = MQTT_VERSIONS[spec.mqtt_version]
        client = MeteredClient(
            self.meter,
            tls_context=spec.tls_context() if broker.tls else None,
            connect_timeout_s=CONNECT_TIMEOUT_S,
            callback_api_version=CallbackAPIVersion.VERSION2,
            # <= 23 characters: the longest client id every MQTT 3.1.1 broker must accept.
            client_id=f"isb-{self.context.run_id[:8]}-{self.context.device_id[:8]}",
            protocol=protocol,
        )
        if broker.username is not None:
            client.username_pw_set(broker.username, broker.password)
        client.on_socket_open = _set_nodelay
        client.on_connect = self._on_connect
        client.on_subscribe = self._on_subscribe
        client.on_message = self._on_message
        self._client = client
        try:
            client.connect(broker.host, broker.port, keepalive=KEEPALIVE_S)
        except OSError as exc:
            raise DataPlaneError(
                f"cannot connect to {broker.host}:{broker.port}: {exc.strerror or exc}"
            ) from None
        raw = client.require_metering()
        if not raw.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY):
            raise DataPlaneError("TCP_NODELAY could not be set on the data-plane socket")
        self._pump(self._connected, _deadline(CONNECT_TIMEOUT_S))
        if not self._connected.is_set():
            raise DataPlaneError(
                f"broker {broker.host}:{broker.port} "
                + (
                    f"refused the connection: {self._refusal}"
                    if self._refusal
                    else "sent no CONNACK"
                )
            )
        sock = client.metered_socket()
        if isinstance(sock, CountingTLSSocket):
            logger.debug("agent.data_plane_tls", extra={"tls_version": sock.version})
        # Subscribe and wait for the SUBACK before the first send, or the first copies
        # could be published before the broker routes them back to us.
        result, _mid = client.subscribe(spec.topic, qos=spec.qos)
        if result != MQTTErrorCode.MQTT_ERR_SUCCESS:
            raise DataPlaneError(f"subscribe failed: {mqtt.error_string(result)}")
        self._pump(self._subscribed, _deadline(CONNECT_TIMEOUT_S))
        if not self._subscribed.is_set():
            raise DataPlaneError(
                f"subscription to {spec.topic} failed: {self._refusal or 'no SUBACK'}"
            )

    def run(self) -> None:
        client = self._require_client()
        secure = self._require_mechanism().secure
        spec = self.spec
        clock = self.context.clock
        stop = self.context.stop
        timeout_ns = int(spec.timeout_ms * 1_000_000)
        next_interval_ns = interval_sampler(
            spec.interval_distribution, spec.interval_ms, spec.interval_seed
        )
        filler = bytes([FILLER]) * (spec.payload_size - SEQ_BYTES)
        for seq in range(spec.message_count):
            if stop.is_set():
                raise RunAborted(f"stopped after {seq} of {spec.message_count} messages")
            payload = seq.to_bytes(SEQ_BYTES, "big") + filler
            self._awaiting = seq
            self._arrived.clear()
            t_send = time.perf_counter_ns()
            wire = secure(payload)
            t_secured = time.perf_counter_ns()
            info = client.publish(spec.topic, wire, qos=spec.qos)
            if info.rc != MQTTErrorCode.MQTT_ERR_SUCCESS:
                raise DataPlaneError(f"publish failed: {mqtt.error_string(info.rc)}")
            self._pump(self._arrived, t_send + timeout_ns)
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
            if interval_ns and seq + 1 < spec.message_count:
                # The interval wait still services the socket (late acks, keepalive) and
                # ends early on shutdown. It starts after the echo, as in the papers.
                self._pump(stop, time.perf_counter_ns() + interval_ns)

    def cleanup(self) -> None:
        self._mechanism = None
        client = self._client
        self._client = None
        if client is None:
            return
        try:
            client.disconnect()
        except Exception:
            logger.debug("agent.data_plane_disconnect_failed", exc_info=True)
        sock = client.socket()
        if sock is not None:
            sock.close()

    def _pump(self, until: threading.Event, deadline_ns: int) -> None:
        """Drive paho's network I/O in this thread until ``until`` is set or the deadline
        passes."""
        client = self._require_client()
        while not until.is_set():
            remaining_s = (deadline_ns - time.perf_counter_ns()) / 1e9
            if remaining_s <= 0:
                return
            sock = client.metered_socket()
            if sock is None:
                raise DataPlaneError(
                    self._closed_reason("the data-plane connection was closed", client.last_metered)
                )
            wlist = [sock] if client.want_write() else []
            if sock.pending():
                # Already received (under TLS), invisible to select: read it now.
                readable, writable = True, False
            else:
                ready_r, ready_w, _ = select.select([sock], wlist, [], remaining_s)
                readable, writable = bool(ready_r), bool(ready_w)
            if readable:
                self._check(client.loop_read(), "read", sock)
            if writable:
                self._check(client.loop_write(), "write", sock)
            self._check(client.loop_misc(), "keepalive", sock)

    def _check(self, rc: MQTTErrorCode, what: str, sock: object) -> None:
        if rc not in (MQTTErrorCode.MQTT_ERR_SUCCESS, MQTTErrorCode.MQTT_ERR_AGAIN):
            raise DataPlaneError(
                self._closed_reason(
                    f"data-plane connection failed during {what}: {mqtt.error_string(rc)}", sock
                )
            )

    def _closed_reason(self, message: str, sock: object = None) -> str:
        tls_error = getattr(sock, "tls_error", None)
        return f"{message} (TLS: {tls_error})" if tls_error else message

    def data_socket(self) -> socket.socket:
        """The raw TCP socket of the measured connection (after ``setup``)."""
        return self._require_client().require_metering()

    def _require_client(self) -> MeteredClient:
        if self._client is None:
            raise DataPlaneError("runner used before setup()")
        return self._client

    def _require_mechanism(self) -> Mechanism:
        if self._mechanism is None:
            raise DataPlaneError("runner used before setup()")
        return self._mechanism

    # paho callbacks: they run in this thread, inside _pump.

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

    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode, properties: Any
    ) -> None:
        if reason.is_failure:
            self._refusal = reason.getName()
        else:
            self._connected.set()

    def _on_subscribe(
        self,
        client: mqtt.Client,
        userdata: Any,
        mid: int,
        reasons: list[ReasonCode],
        properties: Any,
    ) -> None:
        failed = [r for r in reasons if r.is_failure]
        if failed:
            self._refusal = failed[0].getName()
        else:
            self._subscribed.set()


def _set_nodelay(client: mqtt.Client, userdata: Any, sock: Any) -> None:
    raw = getattr(sock, "raw", sock)
    if isinstance(raw, socket.socket):
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _pem(spec: Mapping[str, Any], key: str) -> str | None:
    value = spec.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or "-----BEGIN " not in value or len(value) > MAX_PEM_CHARS:
        raise UnsupportedJob(f"spec.{key} must be PEM text")
    return value


def _load_client_chain(context: ssl.SSLContext, cert_pem: str, key_pem: str) -> None:
    """``load_cert_chain`` reads files only: write the PEMs to 0600 temporary files for the
    call and remove them straight after."""
    with tempfile.TemporaryDirectory(prefix="isb-tls-") as tmp:
        paths = []
        for name, pem in (("client.crt", cert_pem), ("client.key", key_pem)):
            path = os.path.join(tmp, name)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(pem)
            paths.append(path)
        try:
            context.load_cert_chain(paths[0], paths[1])
        except (ssl.SSLError, ValueError) as exc:
            raise UnsupportedJob(
                f"spec.client_cert/client_key are not a usable certificate and key: {exc}"
            ) from None


def _deadline(seconds: float) -> int:
    return time.perf_counter_ns() + int(seconds * 1e9)


def _hex_key(value: object) -> bytes | None:
    if value is None:
        return None
    if isinstance(value, str):
        try:
            return bytes.fromhex(value)
        except ValueError:
            pass
    raise UnsupportedJob("spec.security_key must be a hex string")


def _int(spec: Mapping[str, Any], key: str, minimum: int, maximum: int) -> int:
    value = spec.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise UnsupportedJob(
            f"spec.{key} must be an integer in {minimum}..{maximum}, got {value!r}"
        )
    return value


def _number(spec: Mapping[str, Any], key: str, *, minimum: float) -> float:
    value = spec.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= minimum:
        raise UnsupportedJob(f"spec.{key} must be a number >= {minimum:g}, got {value!r}")
    return float(value)
