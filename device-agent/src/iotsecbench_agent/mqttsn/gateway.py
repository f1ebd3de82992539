"""A transparent MQTT-SN 1.2 gateway: MQTT-SN over UDP in, MQTT 3.1.1 over TCP to a broker.

Transparent (the spec's §4, "MQTT-SN Architecture", Transparent Gateway): every MQTT-SN
client that connects gets its own MQTT connection to the broker, opened on its CONNECT
with its ClientId and clean-session flag and closed on its DISCONNECT, on keep-alive
expiry (1.5 × its Duration, §6.11) or when the broker closes it for longer than the
reconnect budget (below). Messages are translated
one to one, and acknowledgements are end to end: a client's QoS 1 PUBLISH is PUBACKed
when the broker's PUBACK arrives, its SUBSCRIBE is SUBACKed with the QoS the broker
granted. QoS −1 PUBLISHes (§6.8) need no connection: from an address without a session
they go out on one connection of the gateway's own, at QoS 0.

What is implemented, by section of the spec:

- §6.1 discovery: SEARCHGW is answered with GWINFO (to the searcher; there is no
  broadcast network here), no ADVERTISE is sent;
- §6.2 CONNECT/CONNACK, without the will (a CONNECT with the Will flag is refused
  "not supported"), §6.3 clean session as the client asks;
- §6.5 REGISTER/REGACK: normal topic ids are per client, assigned 1, 2, …;
- §6.6 QoS 0 and 1 PUBLISH, §6.7 predefined topic ids (``predefined``, id → topic name,
  the same for every client) and short topic names, §6.8 QoS −1;
- §6.9 SUBSCRIBE/UNSUBSCRIBE by topic name (wildcards too), short name or predefined id;
- §6.10 the gateway's publish: a topic that the client has no id for (a wildcard match)
  is REGISTERed first and its PUBLISHes are held until the REGACK;
- §6.11 PINGREQ/PINGRESP and keep-alive, §6.12 DISCONNECT.

Not implemented: QoS 2 (a client's QoS 2 PUBLISH is rejected "not supported"; messages
the broker delivers at QoS 2 go to the client at QoS 1), wills (§6.4), sleeping clients
(§6.14: a DISCONNECT with a Duration ends the session like one without), retransmission
towards clients (§6.13), forwarders (§5.5).

A lost broker connection is ridden out (issue #17; docs/data-plane-faults.md): when the
connection of a connected client fails (the broker restarts), the client's session is
kept — its topic ids, its subscriptions, its keep-alive — and the gateway connects to the
broker again for it, at once, then after 50 ms doubling up to 250 ms (``mqtt_link``'s
policy), for up to ``reconnect_budget_s`` since the cut. Reconnected means: CONNACK, every
subscription the broker had granted made again at the same QoS, every SUBACK received; the
client is told nothing and keeps using its topic ids. Meanwhile its PUBLISHes cannot be
forwarded: they are dropped (a QoS 1 one gets PUBACK "rejected: congestion"), never queued
and sent later; its SUBSCRIBEs and UNSUBSCRIBEs wait for the reconnect. The broker
connection carrying QoS −1 PUBLISHes is reconnected the same way. Each cut is logged
``agent.data_plane_lost`` (WARNING), each recovery ``agent.data_plane_reconnected
outage_ms=… attempts=… dropped=…`` (INFO). Past the budget the client's session ends as
before (DISCONNECT), and ``gave_up`` says why. A budget of 0 ends it at the cut.

Each reconnect attempt's TCP connect blocks the loop (at most ``RECONNECT_CONNECT_TIMEOUT_S``;
a refused connect, as while a broker restarts on its host, returns at once).

One thread runs everything: a ``select`` over the UDP socket and every broker socket,
driving paho through its external-loop API (``loop_read``/``loop_write``/``loop_misc``),
so a datagram is translated and written to the broker in the same pass that read it, and
a broker message is sent to the client from paho's callback without a thread hand-off.
TCP_NODELAY is set on every broker socket before its CONNECT is written (without it a
QoS 1 round trip grows ~40 ms steps from Nagle and delayed ACKs).
"""

from __future__ import annotations

import logging
import select
import socket
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import paho.mqtt.client as mqtt
from iotsecbench_contract.brokerurl import BrokerAddress
from iotsecbench_contract.jobspec import DEFAULT_RECONNECT_BUDGET_S
from iotsecbench_contract.limits import MAX_UDP_PAYLOAD
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode
from paho.mqtt.reasoncodes import ReasonCode

from iotsecbench_agent.errors import DataPlaneError
from iotsecbench_agent.mqttsn import codec
from iotsecbench_agent.mqttsn.client import RECV_BYTES

logger = logging.getLogger(__name__)

DEFAULT_PORT = 1884  # no port is assigned to MQTT-SN; 1884 is common next to MQTT's 1883
DEFAULT_GW_ID = 1
BROKER_KEEPALIVE_S = 60
CONNECT_TIMEOUT_S = 10.0
# How often the loop wakes without traffic, to expire sessions and answer close().
IDLE_WAKE_S = 0.25
# §6.11: a client that sent nothing for 1.5 × its keep-alive Duration is gone.
KEEPALIVE_GRACE = 1.5
WILDCARDS = ("+", "#")
# Riding out a lost broker connection: the budget when none is given is the contract's
# DEFAULT_RECONNECT_BUDGET_S; mqtt_link's backoff (the first attempt at once, then 50 ms
# doubling up to 250 ms) is repeated here: ``runners`` is not imported, it imports us.
RECONNECT_FIRST_DELAY_S = 0.05
RECONNECT_MAX_DELAY_S = 0.25
# The longest a reconnect attempt's TCP connect may block the loop, and its CONNACK and
# SUBACKs may take before the attempt counts as failed.
RECONNECT_CONNECT_TIMEOUT_S = 1.0
RECONNECT_ATTEMPT_TIMEOUT_S = CONNECT_TIMEOUT_S

Address = tuple[Any, ...]  # a UDP peer as socket.recvfrom gives it


@dataclass
class Outage:
    """A lost broker connection being ridden out (monotonic times)."""

    t_cut: float
    give_up: float
    error: str
    next_attempt: float = 0.0  # the first attempt at once
    delay_s: float = 0.0
    attempts: int = 0
    dropped: int = 0  # PUBLISHes that could not be forwarded meanwhile
    last_error: str = ""
    attempt_deadline: float | None = None  # an attempt under way (TCP up) ends by then

    def failed(self, now: float, error: str) -> None:
        """The attempt under way failed: the next one after the backoff's next step."""
        self.last_error = error
        self.attempt_deadline = None
        self.delay_s = (
            min(self.delay_s * 2, RECONNECT_MAX_DELAY_S)
            if self.delay_s
            else RECONNECT_FIRST_DELAY_S
        )
        self.next_attempt = now + self.delay_s


@dataclass
class Session:
    """One connected MQTT-SN client and its own connection to the broker."""

    address: Address
    client_id: str
    duration_s: int
    mqtt: mqtt.Client
    last_heard: float = field(default_factory=time.monotonic)
    connected: bool = False  # the broker's CONNACK arrived (the client got its CONNACK)
    ids: dict[str, int] = field(default_factory=dict)  # topic name -> normal topic id
    known: set[int] = field(default_factory=set)  # ids the client knows (REGISTER/SUBACK)
    next_topic_id: int = 0
    next_msg_id: int = 0
    # paho mid -> what to answer the client when the broker acknowledges.
    subscribes: dict[int, tuple[codec.Subscribe, int, str, int]] = field(
        default_factory=dict
    )  # (the SUBSCRIBE, its TopicId, topic filter, QoS asked of the broker)
    unsubscribes: dict[int, tuple[codec.Unsubscribe, str]] = field(default_factory=dict)
    publishes: dict[int, tuple[int, int]] = field(default_factory=dict)  # (TopicId, MsgId)
    # Our REGISTER's MsgId -> (topic id, PUBLISHes held until the client's REGACK).
    registering: dict[int, tuple[int, list[codec.Publish]]] = field(default_factory=dict)
    closing: bool = False
    clean_session: bool = True
    # What the broker granted (topic filter -> QoS): made again after a reconnect.
    subscriptions: dict[str, int] = field(default_factory=dict)
    outage: Outage | None = None  # the broker connection is lost and being restored
    # After a reconnect's CONNACK: the mids of the subscriptions being made again.
    restoring: set[int] = field(default_factory=set)
    # SUBSCRIBE/UNSUBSCRIBE that arrived (or were unanswered) while the broker was away.
    deferred: list[codec.Subscribe | codec.Unsubscribe] = field(default_factory=list)

    def topic_id_for(self, name: str) -> int:
        """The normal topic id of ``name`` for this client, assigned on first use."""
        topic_id = self.ids.get(name)
        if topic_id is None:
            if self.next_topic_id >= codec.MAX_TOPIC_ID:
                raise codec.CodecError("no topic id left for this client")
            self.next_topic_id += 1
            topic_id = self.ids[name] = self.next_topic_id
        return topic_id

    def topic_name(self, topic_id: int) -> str | None:
        for name, known_id in self.ids.items():
            if known_id == topic_id:
                return name
        return None

    def msg_id(self) -> int:
        self.next_msg_id = self.next_msg_id % 0xFFFF + 1
        return self.next_msg_id


class Gateway:
    """The gateway on ``host:port`` (UDP; port 0: any free port, see ``address``) in front
    of ``broker`` (plain MQTT; user name and password are passed on). ``predefined`` maps
    predefined topic ids to topic names (§6.7). A lost broker connection is tried again
    for up to ``reconnect_budget_s`` (0: the client's session ends at the cut). ``start``
    runs it in a thread, ``close`` stops it and closes every broker connection."""

    def __init__(
        self,
        broker: BrokerAddress,
        *,
        host: str = "127.0.0.1",
        port: int = DEFAULT_PORT,
        predefined: Mapping[int, str] | None = None,
        gw_id: int = DEFAULT_GW_ID,
        reconnect_budget_s: float = DEFAULT_RECONNECT_BUDGET_S,
    ) -> None:
        if broker.tls:
            raise DataPlaneError("the MQTT-SN gateway bridges to mqtt:// brokers only, not TLS")
        if not reconnect_budget_s >= 0:
            raise DataPlaneError(f"reconnect budget must be >= 0 s, got {reconnect_budget_s!r}")
        self.broker = broker
        self.gw_id = gw_id
        self.reconnect_budget_s = float(reconnect_budget_s)
        # ClientId -> why the gateway ended that client's session after a lost broker
        # connection (past the budget): the runner's error message names it.
        self.gave_up: dict[str, str] = {}
        self.predefined = dict(predefined or {})
        for topic_id, name in self.predefined.items():
            if not 1 <= topic_id <= codec.MAX_TOPIC_ID or not name:
                raise DataPlaneError(f"predefined topic {topic_id}={name!r} is not valid")
        self._by_name = {name: topic_id for topic_id, name in self.predefined.items()}
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.sock = socket.socket(family, socket.SOCK_DGRAM)
        try:
            self.sock.bind((host, port))
        except OSError as exc:
            self.sock.close()
            raise DataPlaneError(
                f"MQTT-SN gateway cannot listen on UDP {host}:{port}: {exc.strerror or exc}"
            ) from None
        self.sock.setblocking(False)
        self.sessions: dict[Address, Session] = {}
        self._anonymous: mqtt.Client | None = None  # QoS −1 publishers' connection
        self._anonymous_ready = False  # its CONNACK arrived
        self._anonymous_outage: Outage | None = None
        self._anonymous_id = f"isb-sngw-{uuid.uuid4().hex[:12]}"
        # Broker connections to close at the end of this pass, outside paho's callbacks.
        self._retired: list[mqtt.Client] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.datagrams_in = 0
        self.datagrams_out = 0

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.sock.getsockname()[:2]
        return str(host), int(port)

    def start(self) -> None:
        """Run the gateway in a daemon thread (see ``serve``)."""
        self._thread = threading.Thread(target=self.serve, name="mqttsn-gateway", daemon=True)
        self._thread.start()

    def serve(self) -> None:
        """Serve until ``close`` (or ``stop``) is called; the calling thread's loop."""
        try:
            while not self._stop.is_set():
                self._pass()
        finally:
            self._shutdown()

    def stop(self) -> None:
        self._stop.set()

    def alive(self) -> bool:
        """Whether the thread ``start`` began is still serving."""
        return self._thread is not None and self._thread.is_alive()

    def close(self) -> None:
        """Stop serving; the broker connections are closed and the UDP socket released."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(CONNECT_TIMEOUT_S)
            self._thread = None
        else:
            self._shutdown()

    # -- the loop ---------------------------------------------------------------------

    def _pass(self) -> None:
        clients = [s.mqtt for s in list(self.sessions.values())]
        if self._anonymous is not None:
            clients.append(self._anonymous)
        rlist: list[Any] = [self.sock]
        wlist: list[Any] = []
        owners: dict[Any, mqtt.Client] = {}
        for client in clients:
            sock = client.socket()
            if sock is None:
                continue
            owners[sock] = client
            rlist.append(sock)
            if client.want_write():
                wlist.append(sock)
        readable, writable, _ = select.select(rlist, wlist, [], self._wake_after())
        if self.sock in readable:
            self._read_datagrams()
        for sock in readable:
            owner = owners.get(sock)
            if owner is not None and owner not in self._retired:
                self._drive(owner, owner.loop_read())
        for sock in writable:
            owner = owners.get(sock)
            if owner is not None and owner not in self._retired and owner.socket() is sock:
                self._drive(owner, owner.loop_write())
        for client in clients:
            if client.socket() is not None and client not in self._retired:
                self._drive(client, client.loop_misc())
        self._expire_sessions()
        self._reconnect_due()
        retired, self._retired = self._retired, []
        for client in retired:
            _close_client(client)

    def _drive(self, client: mqtt.Client, rc: MQTTErrorCode) -> None:
        if rc in (MQTTErrorCode.MQTT_ERR_SUCCESS, MQTTErrorCode.MQTT_ERR_AGAIN):
            return
        error = mqtt.error_string(rc)
        session = self._session_of(client)
        if session is not None:
            if session.outage is not None:
                self._attempt_failed(session, error)  # a reconnect attempt's connection
            elif session.connected and self.reconnect_budget_s > 0:
                self._cut(session, error)
            else:
                logger.info(
                    "mqttsn.broker_connection_lost client_id=%s error=%s",
                    session.client_id,
                    error,
                )
                self._end_session(session, tell_client=True)
        elif client is self._anonymous:
            self._retired.append(client)
            self._anonymous = None
            if self._anonymous_outage is not None:
                self._anonymous_outage.failed(time.monotonic(), error)
            elif self._anonymous_ready and self.reconnect_budget_s > 0:
                self._anonymous_cut(error)
            else:
                logger.warning("mqttsn.anonymous_connection_lost error=%s", error)
            self._anonymous_ready = False

    def _read_datagrams(self) -> None:
        while True:
            try:
                data, address = self.sock.recvfrom(RECV_BYTES)
            except (BlockingIOError, InterruptedError):
                return
            except ConnectionRefusedError:
                continue  # a client went away before our last datagram reached it
            self.datagrams_in += 1
            try:
                message = codec.decode(data)
            except codec.UnsupportedMessage as exc:
                logger.debug("mqttsn.unsupported from=%s %s", address, exc)
                continue
            except codec.CodecError as exc:
                logger.debug("mqttsn.malformed from=%s %s", address, exc)
                continue
            self._handle(address, message)

    def _send(self, address: Address, message: codec.Message) -> None:
        datagram = codec.encode(message)
        if len(datagram) > MAX_UDP_PAYLOAD:
            logger.warning("mqttsn.too_long_for_udp to=%s octets=%d", address, len(datagram))
            return
        try:
            self.sock.sendto(datagram, address)
            self.datagrams_out += 1
        except OSError as exc:
            logger.debug("mqttsn.send_failed to=%s %s", address, exc)

    # -- messages from clients ----------------------------------------------------------

    def _handle(self, address: Address, message: codec.Message) -> None:
        session = self.sessions.get(address)
        if session is not None:
            session.last_heard = time.monotonic()
        if isinstance(message, codec.SearchGw):
            self._send(address, codec.GwInfo(self.gw_id))
        elif isinstance(message, codec.Connect):
            self._on_connect(address, message)
        elif isinstance(message, codec.Publish):
            self._on_publish(address, session, message)
        elif session is None or not session.connected:
            logger.debug("mqttsn.not_connected from=%s type=0x%02x", address, message.TYPE)
        elif isinstance(message, codec.Register):
            self._on_register(session, message)
        elif isinstance(message, codec.Regack):
            self._on_regack(session, message)
        elif isinstance(message, codec.Subscribe):
            self._on_subscribe(session, message)
        elif isinstance(message, codec.Unsubscribe):
            self._on_unsubscribe(session, message)
        elif isinstance(message, codec.Pingreq):
            self._send(address, codec.Pingresp())
        elif isinstance(message, codec.Disconnect):
            self._end_session(session, tell_client=True)
        # PUBACKs of our QoS 1 PUBLISHes need nothing: there is no retransmission.

    def _on_connect(self, address: Address, connect: codec.Connect) -> None:
        old = self.sessions.pop(address, None)
        if old is not None:
            self._end_session(old, tell_client=False)
        if connect.protocol_id != codec.PROTOCOL_ID or connect.will:
            # Will topic/message exchange (§6.4) is not implemented.
            self._send(address, codec.Connack(codec.REJECTED_NOT_SUPPORTED))
            return
        client_id = connect.client_id or f"isb-sn-{uuid.uuid4().hex[:12]}"
        client = self._new_client(client_id, clean_session=connect.clean_session)
        session = Session(
            address=address,
            client_id=client_id,
            duration_s=connect.duration,
            mqtt=client,
            clean_session=connect.clean_session,
        )
        self._wire(client, session)
        self.gave_up.pop(client_id, None)
        try:
            client.connect(self.broker.host, self.broker.port, keepalive=BROKER_KEEPALIVE_S)
        except OSError as exc:
            logger.warning(
                "mqttsn.broker_unreachable client_id=%s error=%s", client_id, exc.strerror or exc
            )
            self._send(address, codec.Connack(codec.REJECTED_CONGESTION))
            return
        self.sessions[address] = session

    def _on_publish(
        self, address: Address, session: Session | None, publish: codec.Publish
    ) -> None:
        def reject(code: int) -> None:
            self._send(address, codec.Puback(publish.topic_id, publish.msg_id, code))

        if publish.qos == 2:
            reject(codec.REJECTED_NOT_SUPPORTED)
            return
        if publish.topic_id_type == codec.TOPIC_PREDEFINED:
            topic = self.predefined.get(publish.topic_id)
        elif publish.topic_id_type == codec.TOPIC_SHORT:
            try:
                topic = codec.short_topic_name(publish.topic_id)
            except codec.CodecError:
                topic = None
        elif session is not None:
            topic = session.topic_name(publish.topic_id)
        else:
            topic = None
        if topic is None:
            reject(codec.REJECTED_INVALID_TOPIC_ID)
            return
        if session is not None and session.connected:
            if session.outage is not None:
                # The broker is away: dropped, never held and sent later under its seq.
                session.outage.dropped += 1
                if publish.qos == 1:
                    reject(codec.REJECTED_CONGESTION)
                return
            client = session.mqtt
        elif publish.qos == -1:
            # §6.8: no connection needed; the gateway's own connection carries it.
            anonymous = self._anonymous_client()
            if anonymous is None:
                if self._anonymous_outage is not None:
                    self._anonymous_outage.dropped += 1
                return
            client = anonymous
        else:
            logger.debug("mqttsn.publish_without_connection from=%s", address)
            return
        qos = max(publish.qos, 0)
        info = client.publish(topic, publish.data, qos=qos, retain=publish.retain)
        if info.rc != MQTTErrorCode.MQTT_ERR_SUCCESS:
            reject(codec.REJECTED_CONGESTION)
        elif qos == 1 and session is not None:
            session.publishes[info.mid] = (publish.topic_id, publish.msg_id)

    def _on_register(self, session: Session, register: codec.Register) -> None:
        name = register.topic_name
        if not name or any(w in name for w in WILDCARDS):
            self._send(
                session.address,
                codec.Regack(0, register.msg_id, codec.REJECTED_NOT_SUPPORTED),
            )
            return
        topic_id = session.topic_id_for(name)
        session.known.add(topic_id)
        self._send(session.address, codec.Regack(topic_id, register.msg_id, codec.ACCEPTED))

    def _on_regack(self, session: Session, regack: codec.Regack) -> None:
        pending = session.registering.pop(regack.msg_id, None)
        if pending is None:
            return
        topic_id, held = pending
        if regack.return_code != codec.ACCEPTED:
            logger.info("mqttsn.register_refused client_id=%s", session.client_id)
            return
        session.known.add(topic_id)
        for publish in held:
            self._send(session.address, publish)

    def _topic_of(self, session: Session, message: codec.Subscribe | codec.Unsubscribe) -> str:
        if message.topic_id_type == codec.TOPIC_PREDEFINED:
            return self.predefined.get(message.topic_id, "")
        return message.topic_name

    def _on_subscribe(self, session: Session, subscribe: codec.Subscribe) -> None:
        if session.outage is not None:
            session.deferred.append(subscribe)  # made once the broker is back
            return
        topic = self._topic_of(session, subscribe)
        if not topic:
            self._send(
                session.address,
                codec.Suback(
                    0, subscribe.topic_id, subscribe.msg_id, codec.REJECTED_INVALID_TOPIC_ID
                ),
            )
            return
        if subscribe.topic_id_type == codec.TOPIC_PREDEFINED:
            topic_id = subscribe.topic_id
        elif subscribe.topic_id_type == codec.TOPIC_NORMAL and not any(
            w in topic for w in WILDCARDS
        ):
            topic_id = session.topic_id_for(topic)
            session.known.add(topic_id)
        else:
            topic_id = 0  # short names and wildcard filters carry no id (§5.4.16)
        # QoS −1 is not a subscription QoS, and QoS 2 is not implemented towards clients.
        qos = min(max(subscribe.qos, 0), 1)
        result, mid = session.mqtt.subscribe(topic, qos=qos)
        if result != MQTTErrorCode.MQTT_ERR_SUCCESS or mid is None:
            self._send(
                session.address,
                codec.Suback(0, topic_id, subscribe.msg_id, codec.REJECTED_CONGESTION),
            )
            return
        session.subscribes[mid] = (subscribe, topic_id, topic, qos)

    def _on_unsubscribe(self, session: Session, unsubscribe: codec.Unsubscribe) -> None:
        if session.outage is not None:
            session.deferred.append(unsubscribe)
            return
        topic = self._topic_of(session, unsubscribe)
        if not topic:
            self._send(session.address, codec.Unsuback(unsubscribe.msg_id))
            return
        result, mid = session.mqtt.unsubscribe(topic)
        if result == MQTTErrorCode.MQTT_ERR_SUCCESS and mid is not None:
            session.unsubscribes[mid] = (unsubscribe, topic)

    # -- paho callbacks: in the gateway thread, inside loop_read/loop_write ------------

    def _on_broker_connect(
        self, client: mqtt.Client, session: Session, flags: Any, reason: ReasonCode, props: Any
    ) -> None:
        if session.outage is not None:
            self._on_reconnect_connack(session, reason)
            return
        if reason.is_failure:
            logger.info(
                "mqttsn.broker_refused client_id=%s reason=%s", session.client_id, reason.getName()
            )
            self._send(session.address, codec.Connack(codec.REJECTED_NOT_SUPPORTED))
            self._end_session(session, tell_client=False)
            return
        session.connected = True
        self._send(session.address, codec.Connack(codec.ACCEPTED))

    def _on_broker_suback(
        self,
        client: mqtt.Client,
        session: Session,
        mid: int,
        reasons: list[ReasonCode],
        props: Any,
    ) -> None:
        reason = reasons[0] if reasons else None
        if mid in session.restoring:
            self._on_restored(session, mid, reason)
            return
        pending = session.subscribes.pop(mid, None)
        if pending is None:
            return
        subscribe, topic_id, topic, qos = pending
        msg_id = subscribe.msg_id
        if reason is None or reason.is_failure:
            self._send(
                session.address,
                codec.Suback(0, topic_id, msg_id, codec.REJECTED_NOT_SUPPORTED),
            )
            return
        granted = min(int(reason.value), 1)
        session.subscriptions[topic] = qos  # asked again at this QoS after a reconnect
        self._send(session.address, codec.Suback(granted, topic_id, msg_id, codec.ACCEPTED))

    def _on_broker_unsuback(
        self, client: mqtt.Client, session: Session, mid: int, reasons: Any, props: Any
    ) -> None:
        pending = session.unsubscribes.pop(mid, None)
        if pending is not None:
            unsubscribe, topic = pending
            session.subscriptions.pop(topic, None)
            self._send(session.address, codec.Unsuback(unsubscribe.msg_id))

    def _on_broker_puback(
        self, client: mqtt.Client, session: Session, mid: int, reason: Any, props: Any
    ) -> None:
        pending = session.publishes.pop(mid, None)
        if pending is not None:
            topic_id, msg_id = pending
            self._send(session.address, codec.Puback(topic_id, msg_id, codec.ACCEPTED))

    def _on_broker_message(
        self, client: mqtt.Client, session: Session, message: mqtt.MQTTMessage
    ) -> None:
        if session.closing:
            return
        topic = message.topic
        qos = min(message.qos, 1)
        msg_id = session.msg_id() if qos else 0
        data = bytes(message.payload)
        if topic in self._by_name:
            kind, topic_id = codec.TOPIC_PREDEFINED, self._by_name[topic]
        elif len(topic.encode("utf-8")) == 2:
            kind, topic_id = codec.TOPIC_SHORT, codec.short_topic_id(topic)
        else:
            kind, topic_id = codec.TOPIC_NORMAL, session.topic_id_for(topic)
        publish = codec.Publish(
            topic_id=topic_id,
            msg_id=msg_id,
            data=data,
            qos=qos,
            topic_id_type=kind,
            retain=bool(message.retain),
        )
        if kind == codec.TOPIC_NORMAL and topic_id not in session.known:
            self._register_then(session, topic, topic_id, publish)
            return
        self._send(session.address, publish)

    def _register_then(
        self, session: Session, topic: str, topic_id: int, publish: codec.Publish
    ) -> None:
        """§6.10: tell the client the topic's id first; hold PUBLISHes until its REGACK."""
        for pending_id, held in session.registering.values():
            if pending_id == topic_id:
                held.append(publish)
                return
        msg_id = session.msg_id()
        session.registering[msg_id] = (topic_id, [publish])
        self._send(session.address, codec.Register(topic_id, msg_id, topic))

    # -- sessions -------------------------------------------------------------------------

    def _new_client(self, client_id: str, *, clean_session: bool) -> mqtt.Client:
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=client_id,
            clean_session=clean_session,
            protocol=mqtt.MQTTv311,
        )
        client.on_socket_open = _set_nodelay
        if self.broker.username is not None:
            client.username_pw_set(self.broker.username, self.broker.password)
        return client

    def _wire(self, client: mqtt.Client, session: Session) -> None:
        client.user_data_set(session)
        client.on_connect = self._on_broker_connect
        client.on_subscribe = self._on_broker_suback
        client.on_unsubscribe = self._on_broker_unsuback
        client.on_publish = self._on_broker_puback
        client.on_message = self._on_broker_message

    def _anonymous_client(self) -> mqtt.Client | None:
        """The connection that carries QoS −1 PUBLISHes of clients without a session,
        opened on first use (paho queues what is published before its CONNACK); None
        while it is lost and being restored, or if the broker cannot be reached."""
        if self._anonymous_outage is not None:
            return None
        if self._anonymous is None:
            client = self._new_anonymous_client()
            try:
                client.connect(self.broker.host, self.broker.port, keepalive=BROKER_KEEPALIVE_S)
            except OSError as exc:
                error = str(exc.strerror or exc)
                if self.reconnect_budget_s > 0:
                    self._anonymous_cut(error)
                else:
                    logger.warning("mqttsn.anonymous_connection_failed error=%s", error)
                return None
            self._anonymous = client
        return self._anonymous

    def _new_anonymous_client(self) -> mqtt.Client:
        client = self._new_client(self._anonymous_id, clean_session=True)
        client.on_connect = self._on_anonymous_connect
        return client

    def _on_anonymous_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode, props: Any
    ) -> None:
        if client is not self._anonymous:
            return
        outage = self._anonymous_outage
        if reason.is_failure:
            logger.warning("mqttsn.anonymous_refused reason=%s", reason.getName())
            self._retired.append(client)
            self._anonymous = None
            if outage is not None:
                outage.failed(time.monotonic(), f"refused: {reason.getName()}")
            return
        self._anonymous_ready = True
        if outage is not None:
            self._anonymous_outage = None
            self._log_reconnected(f"{self._anonymous_id} (QoS -1 publishers)", outage)

    def _anonymous_cut(self, error: str) -> None:
        now = time.monotonic()
        self._anonymous_outage = Outage(
            t_cut=now, give_up=now + self.reconnect_budget_s, error=error
        )
        logger.warning(
            "agent.data_plane_lost client_id=%s (QoS -1 publishers) error=%s budget_s=%g",
            self._anonymous_id,
            error,
            self.reconnect_budget_s,
        )

    # -- riding out a lost broker connection ------------------------------------------------

    def _cut(self, session: Session, error: str) -> None:
        """``session``'s broker connection is lost: keep the session, reconnect."""
        now = time.monotonic()
        session.outage = Outage(t_cut=now, give_up=now + self.reconnect_budget_s, error=error)
        # What waited for the lost connection's acknowledgements: SUBSCRIBEs and
        # UNSUBSCRIBEs are made again after the reconnect; QoS 1 PUBLISHes are lost.
        for subscribe, _topic_id, _topic, _qos in session.subscribes.values():
            session.deferred.append(subscribe)
        for unsubscribe, _topic in session.unsubscribes.values():
            session.deferred.append(unsubscribe)
        session.outage.dropped += len(session.publishes)
        session.subscribes.clear()
        session.unsubscribes.clear()
        session.publishes.clear()
        session.restoring.clear()
        self._retired.append(session.mqtt)
        logger.warning(
            "agent.data_plane_lost client_id=%s error=%s budget_s=%g",
            session.client_id,
            error,
            self.reconnect_budget_s,
        )

    def _wake_after(self) -> float:
        """How long the loop may wait in ``select``: until the next reconnect step."""
        now = time.monotonic()
        wake = IDLE_WAKE_S
        outages = [s.outage for s in self.sessions.values() if s.outage is not None]
        if self._anonymous_outage is not None:
            outages.append(self._anonymous_outage)
        for outage in outages:
            step = (
                outage.next_attempt if outage.attempt_deadline is None else outage.attempt_deadline
            )
            wake = min(wake, step - now, outage.give_up - now)
        return max(wake, 0.0)

    def _reconnect_due(self) -> None:
        now = time.monotonic()
        for session in list(self.sessions.values()):
            outage = session.outage
            if outage is None or session.closing:
                continue
            if now >= outage.give_up:
                self._give_up(session, outage)
            elif outage.attempt_deadline is not None:
                if now >= outage.attempt_deadline:
                    self._attempt_failed(session, "no CONNACK or SUBACK in time")
            elif now >= outage.next_attempt:
                self._attempt(session, outage, now)
        outage = self._anonymous_outage
        if outage is None:
            return
        if now >= outage.give_up:
            logger.warning(
                "agent.data_plane_gave_up (QoS -1 publishers) budget_s=%g attempts=%d "
                "dropped=%d error=%s last_error=%s",
                self.reconnect_budget_s,
                outage.attempts,
                outage.dropped,
                outage.error,
                outage.last_error,
            )
            # The next QoS −1 PUBLISH opens a connection afresh.
            self._anonymous_outage = None
            if self._anonymous is not None:
                self._retired.append(self._anonymous)
                self._anonymous = None
        elif outage.attempt_deadline is not None:
            if now >= outage.attempt_deadline and self._anonymous is not None:
                self._retired.append(self._anonymous)
                self._anonymous = None
                outage.failed(now, "no CONNACK in time")
        elif now >= outage.next_attempt:
            outage.attempts += 1
            client = self._new_anonymous_client()
            if self._connect_attempt(client, outage, now):
                self._anonymous = client
                self._anonymous_ready = False

    def _connect_attempt(self, client: mqtt.Client, outage: Outage, now: float) -> bool:
        """Open ``client``'s TCP connection (its CONNECT queued); False if it failed."""
        client.connect_timeout = max(min(RECONNECT_CONNECT_TIMEOUT_S, outage.give_up - now), 0.01)
        try:
            client.connect(self.broker.host, self.broker.port, keepalive=BROKER_KEEPALIVE_S)
        except OSError as exc:
            outage.failed(time.monotonic(), str(exc.strerror or exc))
            return False
        outage.attempt_deadline = min(now + RECONNECT_ATTEMPT_TIMEOUT_S, outage.give_up)
        return True

    def _attempt(self, session: Session, outage: Outage, now: float) -> None:
        outage.attempts += 1
        client = self._new_client(session.client_id, clean_session=session.clean_session)
        self._wire(client, session)
        if self._connect_attempt(client, outage, now):
            session.mqtt = client

    def _attempt_failed(self, session: Session, error: str) -> None:
        """The reconnect attempt under way failed: its connection goes, the next one
        comes after the backoff's next step."""
        if session.outage is None:
            return
        self._retired.append(session.mqtt)
        session.restoring.clear()
        session.outage.failed(time.monotonic(), error)

    def _on_reconnect_connack(self, session: Session, reason: ReasonCode) -> None:
        """A reconnect's CONNACK: make every subscription again, at the same QoS."""
        if reason.is_failure:
            self._attempt_failed(session, f"refused: {reason.getName()}")
            return
        for topic, qos in session.subscriptions.items():
            result, mid = session.mqtt.subscribe(topic, qos=qos)
            if result != MQTTErrorCode.MQTT_ERR_SUCCESS or mid is None:
                self._attempt_failed(session, f"subscribe failed: {mqtt.error_string(result)}")
                return
            session.restoring.add(mid)
        if not session.restoring:
            self._reconnected(session)

    def _on_restored(self, session: Session, mid: int, reason: ReasonCode | None) -> None:
        session.restoring.discard(mid)
        if reason is None or reason.is_failure:
            # The broker refuses what it granted before: the session cannot be restored
            # transparently.
            why = reason.getName() if reason is not None else "no reason code"
            self.gave_up[session.client_id] = (
                f"after a lost broker connection the broker refused to restore a "
                f"subscription: {why}"
            )
            logger.warning("mqttsn.restore_refused client_id=%s reason=%s", session.client_id, why)
            self._end_session(session, tell_client=True)
            return
        if not session.restoring:
            self._reconnected(session)

    def _reconnected(self, session: Session) -> None:
        outage, session.outage = session.outage, None
        if outage is None:
            return
        self._log_reconnected(session.client_id, outage)
        deferred, session.deferred = session.deferred, []
        for message in deferred:
            if isinstance(message, codec.Subscribe):
                self._on_subscribe(session, message)
            else:
                self._on_unsubscribe(session, message)

    def _log_reconnected(self, who: str, outage: Outage) -> None:
        logger.info(
            "agent.data_plane_reconnected client_id=%s outage_ms=%.1f attempts=%d dropped=%d",
            who,
            (time.monotonic() - outage.t_cut) * 1e3,
            outage.attempts,
            outage.dropped,
        )

    def _give_up(self, session: Session, outage: Outage) -> None:
        reason = (
            f"the gateway's broker connection was lost for longer than the reconnect "
            f"budget of {self.reconnect_budget_s:g} s after {outage.attempts} attempts: "
            f"{outage.error}; last attempt: {outage.last_error or 'none'}"
        )
        self.gave_up[session.client_id] = reason
        logger.warning(
            "agent.data_plane_gave_up client_id=%s budget_s=%g attempts=%d dropped=%d",
            session.client_id,
            self.reconnect_budget_s,
            outage.attempts,
            outage.dropped,
        )
        self._end_session(session, tell_client=True)

    def _session_of(self, client: mqtt.Client) -> Session | None:
        for session in self.sessions.values():
            if session.mqtt is client:
                return session
        return None

    def _end_session(self, session: Session, *, tell_client: bool) -> None:
        if session.closing:
            return
        session.closing = True
        if self.sessions.get(session.address) is session:
            del self.sessions[session.address]
        if tell_client:
            self._send(session.address, codec.Disconnect())
        self._retired.append(session.mqtt)

    def _expire_sessions(self) -> None:
        now = time.monotonic()
        for session in list(self.sessions.values()):
            if session.duration_s and now - session.last_heard > (
                KEEPALIVE_GRACE * session.duration_s
            ):
                logger.info("mqttsn.keepalive_expired client_id=%s", session.client_id)
                self._end_session(session, tell_client=True)

    def _shutdown(self) -> None:
        for session in list(self.sessions.values()):
            self._end_session(session, tell_client=True)
        if self._anonymous is not None:
            self._retired.append(self._anonymous)
            self._anonymous = None
        self._anonymous_outage = None
        retired, self._retired = self._retired, []
        for client in retired:
            _close_client(client)
        self.sock.close()


def _close_client(client: mqtt.Client) -> None:
    """Disconnect from the broker (written at once: we are not in a paho loop thread) and
    close the socket; never raises."""
    try:
        client.disconnect()
    except Exception:
        logger.debug("mqttsn.disconnect_failed", exc_info=True)
    sock = client.socket()
    if sock is not None:
        sock.close()


def _set_nodelay(client: mqtt.Client, userdata: Any, sock: Any) -> None:
    if isinstance(sock, socket.socket) and sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
