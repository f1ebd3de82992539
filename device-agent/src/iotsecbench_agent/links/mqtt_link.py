"""One measured MQTT connection of a round-trip runner, and the loop that drives them.

``MqttLink`` is a paho client on the job's broker with everything the measurements rely
on, done once here for every runner (``mqtt_roundtrip``, ``srup_roundtrip``):

- its own connection, never the control plane's, so heartbeats and jobs never share the
  measured socket or its thread;
- TCP_NODELAY on the socket (set in ``on_socket_open``, before CONNECT is written, and
  checked after): with Nagle and delayed ACKs, QoS 1/2 round trips grow ~40 ms steps that
  look like protocol cost;
- wire bytes counted at the socket (``mqtt_wire.MeteredClient``), over TLS too: the agent
  runs TLS itself below paho (``CountingTLSSocket``), so what is counted are the TLS
  records as written to the TCP socket; the handshake is done in ``connect``, before
  anything is timed;
- ``subscribe`` waits for the SUBACK, so the first message of a run cannot be published
  before the broker routes copies back.

``pump`` drives the network I/O of one or more links in the calling (measuring) thread
through paho's external-loop API (``loop_read``/``loop_write``/``loop_misc`` on ``select``),
not in paho's own threads: ``publish()`` then writes the PUBLISH synchronously right after
``t_send`` is taken, instead of handing it to another thread through a wake-up socket. On
loopback with Mosquitto that halves QoS 1/2 round trips (p50 53 µs vs 140 µs QoS 1, 114 µs
vs 395 µs QoS 2). Waiting is ``select`` with the remaining timeout, never a sleep. A runner
with two ends in one process (SRUP's controller and its echo peer) pumps both links in one
``select``, so the peer answers as soon as its request arrives, with no thread hand-off.

A publish made inside a paho callback (an echo peer answering from ``on_message``) is
queued by paho and written by ``pump``'s next ``loop_write``, one ``select`` later.

A connection lost mid-run (a read or write fails, the broker closes it, keepalive
expires) makes ``pump`` raise ``ConnectionLost``. The runner then records the message in
flight as lost and calls ``ride_out``: every link of the run is opened again (a new paho
client on a new metered socket, CONNACK and TCP_NODELAY checked as on the first connect,
every topic subscribed again, SUBACK received) with backoff, for up to the job's
``reconnect_budget_s``; past it the run fails with a DataPlaneError saying so. Each cut
is logged (``agent.data_plane_lost``, WARNING) and each recovery with its outage
(``agent.data_plane_reconnected outage_ms=…``, INFO).

Sessions are clean on every connection, on purpose (MQTT 3.1.1 clean_session, MQTT 5
clean start with no session expiry), rather than resumed with a stable client id:

- a resumed session makes paho re-send our unacknowledged PUBLISH (DUP) and the broker
  redeliver queued copies after the reconnect: the message in flight at the cut would be
  sent again under the same seq and its copy would time the outage, not the protocol. Its
  record is closed as lost at the cut, and is never reopened;
- a broker restarted without persistence (Mosquitto's default) has lost every session
  anyway, so the subscriptions must be made again on every connect regardless;
- every connection of a run then starts in the same state: no backlog of queued copies
  bursts in right after a reconnect to disturb the next round trips.
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
from collections.abc import Sequence
from typing import Any, Callable

import paho.mqtt.client as mqtt
from iotsecbench_contract.jobspec import LinkSpec
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode
from paho.mqtt.reasoncodes import ReasonCode

from iotsecbench_agent.errors import DataPlaneError, RunAborted, UnsupportedJob
from iotsecbench_agent.links.mqtt_wire import (
    CountingSocket,
    CountingTLSSocket,
    MeteredClient,
    OutboundMeter,
)

logger = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 10.0
KEEPALIVE_S = 60
# The longest client id every MQTT 3.1.1 broker must accept.
MAX_CLIENT_ID_CHARS = 23

# ride_out's backoff between two attempts to reach the broker again: the first attempt at
# once, then 50 ms doubling up to 250 ms (a refused TCP connect costs next to nothing, and
# the outage is known to within the last step).
RECONNECT_FIRST_DELAY_S = 0.05
RECONNECT_MAX_DELAY_S = 0.25
# paho's return codes of a publish or ack on a connection that is gone.
LOST_CONNECTION_CODES = (
    MQTTErrorCode.MQTT_ERR_CONN_LOST,
    MQTTErrorCode.MQTT_ERR_NO_CONN,
    MQTTErrorCode.MQTT_ERR_KEEPALIVE,
)

MessageCallback = Callable[[mqtt.Client, Any, mqtt.MQTTMessage], None]
# paho on_publish, callback API 2: (client, userdata, mid, reason_code, properties).
PublishCallback = Callable[[mqtt.Client, Any, int, Any, Any], None]

# paho's protocol and ssl's version for the contract's version strings (jobspec).
PAHO_PROTOCOLS = {"3.1.1": mqtt.MQTTv311, "5": mqtt.MQTTv5, "5.0": mqtt.MQTTv5}
SSL_VERSIONS = {"1.2": ssl.TLSVersion.TLSv1_2, "1.3": ssl.TLSVersion.TLSv1_3}


def tls_context(spec: LinkSpec) -> ssl.SSLContext:
    """The client context for an mqtts:// broker: server verified, hostname checked,
    ``tls_version`` as both minimum and maximum. UnsupportedJob if the PEMs are bad."""
    if spec.tls_version is None:
        raise UnsupportedJob("spec.broker_url is not mqtts://")
    try:
        context = ssl.create_default_context(cadata=spec.ca_cert)
    except (ssl.SSLError, ValueError) as exc:
        raise UnsupportedJob(f"spec.ca_cert is not a usable PEM certificate: {exc}") from None
    context.check_hostname = True
    context.verify_mode = ssl.CERT_REQUIRED
    version = SSL_VERSIONS[spec.tls_version]
    context.minimum_version = version
    context.maximum_version = version
    if spec.client_cert is not None and spec.client_key is not None:
        load_client_chain(context, spec.client_cert, spec.client_key)
    return context


def load_client_chain(context: ssl.SSLContext, cert_pem: str, key_pem: str) -> None:
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


class ConnectionLost(DataPlaneError):
    """The data-plane connection was lost mid-run (``pump``, ``publish`` or ``ack``): the
    runner may ride it out (``ride_out``)."""


class MqttLink:
    """A metered paho client of one runner (see the module doc). ``on_message`` is paho's
    callback, called inside ``pump`` in the measuring thread."""

    def __init__(
        self,
        spec: LinkSpec,
        *,
        meter: OutboundMeter,
        client_id: str,
        on_message: MessageCallback,
        via: tuple[str, int] | None = None,
        manual_ack: bool = False,
        on_publish: PublishCallback | None = None,
    ) -> None:
        if len(client_id) > MAX_CLIENT_ID_CHARS:
            raise ValueError(f"client id {client_id!r} is longer than {MAX_CLIENT_ID_CHARS}")
        self.spec = spec
        self.meter = meter
        self._broker = spec.broker
        # With an enforced network profile the connection goes to the relay (an IP
        # literal, so nothing is resolved inside the device namespace); TLS still checks
        # the broker's own name.
        self._target = via or (self._broker.host, self._broker.port)
        self._client_id = client_id
        self._on_message = on_message
        self._manual_ack = manual_ack
        # paho's on_publish (callback API 2): our QoS 1 publish's PUBACK, QoS 2's PUBCOMP.
        self._on_publish = on_publish
        self._tls_context = tls_context(spec) if self._broker.tls else None
        self._topics: list[str] = []  # subscribed, in order: subscribed again on reconnect
        # Called after a reconnect's CONNACK, before the topics are subscribed again (a
        # one-way receiver meters the new socket's inbound stream from there).
        self.on_reconnected: Callable[[MqttLink], None] | None = None
        self._connected = threading.Event()
        self._subscribed = threading.Event()
        self._refusal: str | None = None
        # Every socket this link has opened, for its byte totals (``traffic``).
        self._sockets: list[CountingSocket | CountingTLSSocket] = []
        self.client = self._new_client()

    def _new_client(self) -> MeteredClient:
        client = MeteredClient(
            self.meter,
            tls_context=self._tls_context,
            connect_timeout_s=CONNECT_TIMEOUT_S,
            server_hostname=self._broker.host,
            callback_api_version=CallbackAPIVersion.VERSION2,
            client_id=self._client_id,
            protocol=PAHO_PROTOCOLS[self.spec.mqtt_version],
            # True: the caller acknowledges every QoS 1/2 message it receives (``ack``).
            manual_ack=self._manual_ack,
        )
        if self._broker.username is not None:
            client.username_pw_set(self._broker.username, self._broker.password)
        client.on_socket_open = _set_nodelay
        client.on_connect = self._on_connect
        client.on_subscribe = self._on_subscribe
        client.on_message = self._on_message
        if self._on_publish is not None:
            client.on_publish = self._on_publish
        return client

    def connect(self, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
        """Connect (TLS handshake included) and wait for the CONNACK; DataPlaneError if the
        broker cannot be reached, refuses, or TCP_NODELAY could not be set."""
        broker = self._broker
        host, port = self._target
        self._connected.clear()
        self._refusal = None
        self.client.connect_timeout = timeout_s
        try:
            self.client.connect(host, port, keepalive=KEEPALIVE_S)
        except OSError as exc:
            relayed = (host, port) != (broker.host, broker.port)
            through = f" (relay of {broker.host}:{broker.port})" if relayed else ""
            raise DataPlaneError(
                f"cannot connect to {host}:{port}{through}: {exc.strerror or exc}"
            ) from None
        raw = self.client.require_metering()
        opened = self.client.last_metered
        if opened is not None and opened not in self._sockets:
            self._sockets.append(opened)
        if not raw.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY):
            raise DataPlaneError("TCP_NODELAY could not be set on the data-plane socket")
        pump((self,), self._connected, deadline(timeout_s))
        if not self._connected.is_set():
            raise DataPlaneError(
                f"broker {broker.host}:{broker.port} "
                + (
                    f"refused the connection: {self._refusal}"
                    if self._refusal
                    else "sent no CONNACK"
                )
            )
        sock = self.client.metered_socket()
        if isinstance(sock, CountingTLSSocket):
            logger.debug("agent.data_plane_tls", extra={"tls_version": sock.version})

    def subscribe(self, topic: str, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
        """Subscribe with the link's QoS and wait for the SUBACK (again after every
        reconnect: ``reopen``)."""
        self._subscribe(topic, timeout_s)
        if topic not in self._topics:
            self._topics.append(topic)

    def _subscribe(self, topic: str, timeout_s: float) -> None:
        self._subscribed.clear()
        self._refusal = None
        result, _mid = self.client.subscribe(topic, qos=self.spec.qos)
        if result in LOST_CONNECTION_CODES:
            raise ConnectionLost(f"subscribe failed: {mqtt.error_string(result)}")
        if result != MQTTErrorCode.MQTT_ERR_SUCCESS:
            raise DataPlaneError(f"subscribe failed: {mqtt.error_string(result)}")
        pump((self,), self._subscribed, deadline(timeout_s))
        if not self._subscribed.is_set():
            raise DataPlaneError(f"subscription to {topic} failed: {self._refusal or 'no SUBACK'}")

    def reopen(self, timeout_s: float) -> None:
        """After a cut: a new client on a new metered socket, connected (CONNACK) and
        subscribed again to every topic (SUBACKs), each step within ``timeout_s``.
        DataPlaneError if the broker cannot be reached or refuses."""
        self._drop_client()
        self.meter.restart_stream()
        self.client = self._new_client()
        self.connect(timeout_s)
        if self.on_reconnected is not None:
            self.on_reconnected(self)
        for topic in self._topics:
            self._subscribe(topic, timeout_s)

    def publish(self, topic: str, payload: bytes) -> None:
        """Publish with the link's QoS; written at once unless called inside a callback.
        ConnectionLost if the connection is gone."""
        check_publish(self.client.publish(topic, payload, qos=self.spec.qos).rc)

    def ack(self, mid: int, qos: int) -> None:
        """Acknowledge a received QoS 1/2 message (``manual_ack`` links): PUBACK, or
        PUBCOMP after the broker's PUBREL."""
        rc = self.client.ack(mid, qos)
        if rc in LOST_CONNECTION_CODES:
            raise ConnectionLost(f"acknowledging a message failed: {mqtt.error_string(rc)}")
        if rc != MQTTErrorCode.MQTT_ERR_SUCCESS:
            raise DataPlaneError(f"acknowledging a message failed: {mqtt.error_string(rc)}")

    def _drop_client(self) -> None:
        """Close the socket of a client whose connection was lost (no DISCONNECT: there is
        no one to send it to); never raises."""
        sock = self.client.socket()
        if sock is not None:
            try:
                sock.close()
            except OSError:
                logger.debug("agent.data_plane_close_failed", exc_info=True)

    def close(self) -> None:
        """Disconnect and close the socket; never raises."""
        client = self.client
        try:
            client.disconnect()
        except Exception:
            logger.debug("agent.data_plane_disconnect_failed", exc_info=True)
        sock = client.socket()
        if sock is not None:
            sock.close()

    def metered_socket(self) -> CountingSocket | CountingTLSSocket | None:
        return self.client.metered_socket()

    def traffic(self) -> tuple[int, int]:
        """(bytes sent, bytes received) over every socket this link has opened, a
        reconnect's too: MQTT packets on plain TCP, TLS records (handshakes included) over
        TLS (mqtt_wire.py's module doc)."""
        sockets = self._sockets
        return (
            sum(sock.bytes_sent for sock in sockets),
            sum(sock.total_received() for sock in sockets),
        )

    def data_socket(self) -> socket.socket:
        """The raw TCP socket of the measured connection (after ``connect``)."""
        return self.client.require_metering()

    def closed_error(self) -> ConnectionLost:
        """The error for a connection paho has closed, with the TLS error if one ended it."""
        closed = "the data-plane connection was closed"
        return ConnectionLost(_closed_reason(closed, self.client.last_metered))

    # paho callbacks: they run in the measuring thread, inside ``pump``.

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


def pump(links: Sequence[MqttLink], until: threading.Event, deadline_ns: int) -> None:
    """Drive the network I/O of ``links`` in this thread until ``until`` is set or
    ``deadline_ns`` (``perf_counter_ns``) passes. DataPlaneError if a connection fails.

    This loop is inside every measured round trip. One link over plain TCP (the MQTT
    runner without TLS) takes ``_pump_plain``: nothing waits above the kernel there, so
    ``select`` on the file descriptor alone says when to read, as in a bare paho loop.
    Otherwise one pass over the links builds all that ``select`` needs, TLS bytes already
    received (``pending``, invisible to ``select``) included. ``select`` gets file
    descriptors, not our socket wrappers, so it calls no Python ``fileno`` per pass."""
    if len(links) == 1 and type(links[0].client.socket()) is CountingSocket:
        _pump_plain(links[0], until, deadline_ns)
        return
    clients = [link.client for link in links]
    while not until.is_set():
        remaining_s = (deadline_ns - time.perf_counter_ns()) / 1e9
        if remaining_s <= 0:
            return
        rlist = []
        wlist = []
        pending = []
        for link, client in zip(links, clients):
            sock = client.metered_socket()
            if sock is None:
                raise link.closed_error()
            fd = sock.fileno()
            rlist.append(fd)
            if sock.pending():
                pending.append(client)  # already received (under TLS), invisible to select
            elif client.want_write():
                wlist.append(fd)
        if pending:
            readable, writable = pending, []
        else:
            ready_r, ready_w, _ = select.select(rlist, wlist, [], remaining_s)
            readable = [c for c, fd in zip(clients, rlist) if fd in ready_r] if ready_r else []
            writable = [c for c, fd in zip(clients, rlist) if fd in ready_w] if ready_w else []
        for client in readable:
            _check(client, client.loop_read(), "read")
        for client in writable:
            _check(client, client.loop_write(), "write")
        for client in clients:
            _check(client, client.loop_misc(), "keepalive")


def _pump_plain(link: MqttLink, until: threading.Event, deadline_ns: int) -> None:
    """``pump`` for one link over plain TCP. If paho drops the socket (it closes it on
    an error, and never opens another inside a run), the next pass raises."""
    client = link.client
    sock = client.socket()
    if sock is None:
        raise link.closed_error()
    fds = (sock.fileno(),)
    no_fds = ()
    perf_counter_ns = time.perf_counter_ns
    while not until.is_set():
        remaining_s = (deadline_ns - perf_counter_ns()) / 1e9
        if remaining_s <= 0:
            return
        if client.socket() is not sock:
            raise link.closed_error()
        ready_r, ready_w, _ = select.select(
            fds, fds if client.want_write() else no_fds, no_fds, remaining_s
        )
        if ready_r:
            _check(client, client.loop_read(), "read")
        if ready_w:
            _check(client, client.loop_write(), "write")
        _check(client, client.loop_misc(), "keepalive")


def _check(client: MeteredClient, rc: MQTTErrorCode, what: str) -> None:
    if rc not in (MQTTErrorCode.MQTT_ERR_SUCCESS, MQTTErrorCode.MQTT_ERR_AGAIN):
        raise ConnectionLost(
            _closed_reason(
                f"data-plane connection failed during {what}: {mqtt.error_string(rc)}",
                client.last_metered,
            )
        )


def check_publish(rc: MQTTErrorCode) -> None:
    """A publish's return code: ConnectionLost if the connection is gone, DataPlaneError
    for any other failure."""
    if rc == MQTTErrorCode.MQTT_ERR_SUCCESS:
        return
    if rc in LOST_CONNECTION_CODES:
        raise ConnectionLost(f"publish failed: {mqtt.error_string(rc)}")
    raise DataPlaneError(f"publish failed: {mqtt.error_string(rc)}")


def ride_out(
    links: Sequence[MqttLink],
    cut: ConnectionLost,
    *,
    budget_s: float,
    stop: threading.Event,
    run_id: str,
) -> int:
    """Open every link of a run again after ``cut`` (in order: as ``setup`` opened them),
    retrying with backoff for up to ``budget_s``; the outage in ns (from now, when the cut
    was noticed, to the last SUBACK). The caller has already recorded the message in
    flight at the cut as lost.

    Every link is opened again, not only the one that failed: after a broker restart the
    others are gone too, and their cut would otherwise surface one message later and
    cost that message as well. ``budget_s`` 0: ``cut`` is raised at once (as before
    reconnecting existed). Past the budget: DataPlaneError saying so, with the last
    attempt's error. RunAborted if ``stop`` is set meanwhile."""
    if budget_s <= 0:
        raise cut
    t_cut = time.perf_counter_ns()
    logger.warning("agent.data_plane_lost run_id=%s error=%s budget_s=%g", run_id, cut, budget_s)
    give_up = t_cut + int(budget_s * 1e9)
    delay_s = 0.0
    attempts = 0
    last_error: DataPlaneError = cut
    while True:
        if delay_s:
            wait_s = min(delay_s, (give_up - time.perf_counter_ns()) / 1e9)
            if wait_s > 0 and stop.wait(wait_s):
                raise RunAborted("stopped while the data-plane connection was being restored")
            delay_s = min(delay_s * 2, RECONNECT_MAX_DELAY_S)
        else:
            delay_s = RECONNECT_FIRST_DELAY_S
        if stop.is_set():
            raise RunAborted("stopped while the data-plane connection was being restored")
        remaining_s = (give_up - time.perf_counter_ns()) / 1e9
        if remaining_s <= 0:
            break
        attempts += 1
        try:
            for link in links:
                link.reopen(min(remaining_s, CONNECT_TIMEOUT_S))
        except DataPlaneError as exc:
            last_error = exc
            logger.debug("agent.data_plane_reconnect_failed run_id=%s error=%s", run_id, exc)
            continue
        outage_ns = time.perf_counter_ns() - t_cut
        logger.info(
            "agent.data_plane_reconnected run_id=%s outage_ms=%.1f attempts=%d",
            run_id,
            outage_ns / 1e6,
            attempts,
        )
        return outage_ns
    raise DataPlaneError(
        f"the data-plane connection was lost for longer than the reconnect budget of "
        f"{budget_s:g} s (spec.reconnect_budget_s) after {attempts} attempts: {cut}; "
        f"last attempt: {last_error}"
    )


def _closed_reason(message: str, sock: object = None) -> str:
    tls_error = getattr(sock, "tls_error", None)
    return f"{message} (TLS: {tls_error})" if tls_error else message


def deadline(seconds: float) -> int:
    return time.perf_counter_ns() + int(seconds * 1e9)


def _set_nodelay(client: mqtt.Client, userdata: Any, sock: Any) -> None:
    raw = getattr(sock, "raw", sock)
    if isinstance(raw, socket.socket):
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
