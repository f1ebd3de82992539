"""The control-plane MQTT client (agent ↔ platform, §3–§4 of docs/control-plane.md).

paho-mqtt sits behind the small ``ControlPlane`` interface, configured by one
``ControlPlaneOptions`` dataclass; paho's errors and reason codes are mapped onto
ControlPlaneError here, so nothing else imports paho for the control plane. Tests use a
fake implementation of the same interface.

This client never carries measured traffic: a run's data plane has its own client
(runners/mqtt_roundtrip.py), so heartbeats and job deliveries cannot skew its timings.
"""

from __future__ import annotations

import json
import logging
import socket
import ssl
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

import paho.mqtt.client as mqtt
from iotsecbench_contract.brokerurl import BrokerAddress
from iotsecbench_contract.topics import EVENTS, HEARTBEAT, JOBS, STATUS
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode
from paho.mqtt.reasoncodes import ReasonCode

from iotsecbench_agent.errors import ControlPlaneError

logger = logging.getLogger(__name__)

MessageHandler = Callable[[bytes], object]

# Long enough for a Pi on a slow link; the broker drops us (and fires the will) after 1.5x.
KEEPALIVE_S = 30
CONNECT_TIMEOUT_S = 10.0
# Paho's reconnect backoff after a lost connection: first retry fast, never wait over 30 s.
RECONNECT_MIN_DELAY_S = 1
RECONNECT_MAX_DELAY_S = 30


@dataclass(frozen=True)
class Topics:
    """The agent's topics under its prefix, by default ``iotsecbench_contract.topics``'s
    ``agent_prefix`` (``iotsecbench/agents/<device>``)."""

    prefix: str

    @property
    def status(self) -> str:
        return f"{self.prefix}/{STATUS}"

    @property
    def heartbeat(self) -> str:
        return f"{self.prefix}/{HEARTBEAT}"

    @property
    def events(self) -> str:
        return f"{self.prefix}/{EVENTS}"

    @property
    def jobs(self) -> str:
        return f"{self.prefix}/{JOBS}"


@dataclass(frozen=True)
class OutgoingMessage:
    topic: str
    payload: bytes
    qos: int
    retain: bool


@dataclass(frozen=True)
class ControlPlaneOptions:
    """Everything the control-plane client needs; built once by the agent."""

    broker: BrokerAddress
    client_id: str
    # Published by the broker if we vanish (the retained `offline` status).
    will: OutgoingMessage | None = None
    # Built and published on every (re)connect (the retained `online` status).
    birth: Callable[[], OutgoingMessage] | None = None
    keepalive_s: int = KEEPALIVE_S
    connect_timeout_s: float = CONNECT_TIMEOUT_S
    tls_context: ssl.SSLContext | None = field(default=None, repr=False)


def status_message(topics: Topics, state: str) -> OutgoingMessage:
    """The retained status of §3: ``{"state": "online"|"offline", "ts": <unix float>}``."""
    payload = json.dumps({"state": state, "ts": time.time()}).encode("utf-8")
    return OutgoingMessage(topic=topics.status, payload=payload, qos=1, retain=True)


class ControlPlane(Protocol):
    """What the agent needs from its control-plane connection."""

    def connect(self) -> None:
        """Connect and wait for the broker's CONNACK; raise ControlPlaneError on failure."""

    def subscribe(self, topic: str, *, qos: int, handler: MessageHandler) -> None:
        """Subscribe (again after every reconnect) and call ``handler`` with each payload."""

    def publish(
        self, topic: str, payload: bytes, *, qos: int, retain: bool = False, wait_s: float = 0.0
    ) -> bool:
        """Publish; with ``wait_s`` > 0 wait that long for delivery to the broker. Returns
        False when the message could not be handed over (e.g. while reconnecting)."""

    def disconnect(self) -> None:
        """Disconnect cleanly (the broker then does not publish the will)."""


class PahoControlPlane:
    """ControlPlane on paho-mqtt 2, with paho's own network thread (loop_start)."""

    def __init__(self, options: ControlPlaneOptions) -> None:
        self._options = options
        self._handlers: dict[str, tuple[int, MessageHandler]] = {}
        self._lock = threading.Lock()
        self._connected = threading.Event()
        self._answered = threading.Event()  # first CONNACK, accepted or not
        self._refusal: ReasonCode | None = None
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=options.client_id,
            protocol=mqtt.MQTTv311,
            clean_session=True,
        )
        broker = options.broker
        if broker.username is not None:
            client.username_pw_set(broker.username, broker.password)
        if broker.tls:
            client.tls_set_context(options.tls_context or ssl.create_default_context())
        if options.will is not None:
            will = options.will
            client.will_set(will.topic, will.payload, qos=will.qos, retain=will.retain)
        client.reconnect_delay_set(RECONNECT_MIN_DELAY_S, RECONNECT_MAX_DELAY_S)
        client.on_socket_open = _set_nodelay
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        self._client = client

    def connect(self) -> None:
        broker = self._options.broker
        try:
            self._client.connect(broker.host, broker.port, keepalive=self._options.keepalive_s)
        except (OSError, ValueError) as exc:
            raise _map_exception(exc, broker) from None
        self._client.loop_start()
        self._answered.wait(self._options.connect_timeout_s)
        if not self._connected.is_set():
            self._client.loop_stop()
            if self._refusal is not None:
                raise ControlPlaneError(
                    f"broker {broker.host}:{broker.port} refused the connection: "
                    f"{self._refusal.getName()}"
                )
            raise ControlPlaneError(
                f"no CONNACK from broker {broker.host}:{broker.port} within "
                f"{self._options.connect_timeout_s:g} s"
            )

    def subscribe(self, topic: str, *, qos: int, handler: MessageHandler) -> None:
        with self._lock:
            self._handlers[topic] = (qos, handler)
            # Read under the lock _on_connect copies the handlers under: a topic added
            # while it subscribes the others is subscribed by one of the two.
            connected = self._connected.is_set()
        if connected:
            result, _mid = self._client.subscribe(topic, qos=qos)
            if result == MQTTErrorCode.MQTT_ERR_NO_CONN:
                return  # lost meanwhile: _on_connect subscribes it on the reconnect
            if result != MQTTErrorCode.MQTT_ERR_SUCCESS:
                raise ControlPlaneError(f"subscribe to {topic} failed: {mqtt.error_string(result)}")

    def publish(
        self, topic: str, payload: bytes, *, qos: int, retain: bool = False, wait_s: float = 0.0
    ) -> bool:
        info = self._client.publish(topic, payload, qos=qos, retain=retain)
        if info.rc == MQTTErrorCode.MQTT_ERR_NO_CONN:
            # QoS>0 messages stay queued in paho and go out after the reconnect.
            return False
        if info.rc != MQTTErrorCode.MQTT_ERR_SUCCESS:
            raise ControlPlaneError(f"publish to {topic} failed: {mqtt.error_string(info.rc)}")
        if wait_s > 0:
            try:
                info.wait_for_publish(timeout=wait_s)
            except (RuntimeError, ValueError):
                return False
            return info.is_published()
        return True

    def disconnect(self) -> None:
        try:
            self._client.disconnect()
        finally:
            self._client.loop_stop()
            self._connected.clear()

    # paho callbacks: they run on paho's network thread.

    def _on_connect(
        self,
        client: mqtt.Client,
        userdata: Any,
        flags: mqtt.ConnectFlags,
        reason: ReasonCode,
        properties: Any,
    ) -> None:
        if reason.is_failure:
            self._refusal = reason
            logger.error("agent.broker_refused reason=%s", reason.getName())
            self._answered.set()
            return
        with self._lock:
            subscriptions = list(self._handlers.items())
            self._connected.set()
        for topic, (qos, _handler) in subscriptions:
            client.subscribe(topic, qos=qos)
        if self._options.birth is not None:
            birth = self._options.birth()
            client.publish(birth.topic, birth.payload, qos=birth.qos, retain=birth.retain)
        logger.info("agent.control_plane_connected")
        self._answered.set()

    def _on_disconnect(
        self,
        client: mqtt.Client,
        userdata: Any,
        flags: mqtt.DisconnectFlags,
        reason: ReasonCode,
        properties: Any,
    ) -> None:
        if self._connected.is_set() and reason.is_failure:
            logger.warning("agent.control_plane_lost reason=%s", reason.getName())
        # Until the next CONNACK: a subscribe meanwhile is only registered, and made by
        # _on_connect (with the others, then the birth) once paho has reconnected.
        self._connected.clear()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        with self._lock:
            entry = self._handlers.get(message.topic)
        if entry is None:
            return
        try:
            entry[1](bytes(message.payload))
        except Exception:
            # A handler bug must not kill paho's network thread (and with it the agent).
            logger.exception("agent.handler_failed topic=%s", message.topic)


def _set_nodelay(client: mqtt.Client, userdata: Any, sock: Any) -> None:
    """Disable Nagle: small control messages (heartbeats, acks) go out at once."""
    if isinstance(sock, socket.socket) and sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _map_exception(exc: Exception, broker: BrokerAddress) -> ControlPlaneError:
    where = f"{broker.host}:{broker.port}"
    if isinstance(exc, ssl.SSLError):
        return ControlPlaneError(f"TLS handshake with broker {where} failed: {exc.reason}")
    if isinstance(exc, OSError):
        return ControlPlaneError(f"cannot connect to broker {where}: {exc.strerror or exc}")
    return ControlPlaneError(f"cannot connect to broker {where}: {exc}")
