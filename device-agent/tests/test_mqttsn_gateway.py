"""The transparent MQTT-SN gateway, driven by a third-party MQTT-SN 1.2 client library
(``mqtt-sn-12`` from PyPI) over real UDP, in front of a real Mosquitto that a plain
paho-mqtt client observes."""

from __future__ import annotations

import select
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from mqttsn12.client.MqttSnClient import MqttSnClient, MqttSnListener, MqttSnMessage

from iotsecbench_agent.brokerurl import parse_mqtt_url
from iotsecbench_agent.mqttsn import codec
from iotsecbench_agent.mqttsn.client import SnClient
from iotsecbench_agent.mqttsn.gateway import Gateway
from mqttsn_kit import run_sn_broker
from testkit import WAIT_S, Broker, Observer

pytestmark = pytest.mark.integration

PREDEFINED_ID = 7
# Every octet value, so that nothing on the way may treat the payload as text.
PAYLOAD = bytes(range(256)) + b"\x00\xff"


@pytest.fixture(scope="module")
def sn_broker() -> Iterator[Broker]:
    yield from run_sn_broker()


@pytest.fixture
def topic() -> str:
    return f"iotsecbench/sn/{uuid.uuid4()}"


@pytest.fixture
def gateway(sn_broker: Broker, topic: str) -> Iterator[Gateway]:
    gw = Gateway(
        parse_mqtt_url(sn_broker.url), port=0, predefined={PREDEFINED_ID: f"{topic}/predefined"}
    )
    gw.start()
    yield gw
    gw.close()


@pytest.fixture
def observer(sn_broker: Broker) -> Iterator[Observer]:
    obs = Observer(sn_broker, "#")
    yield obs
    obs.close()


def third_party_client(gateway: tuple[str, int], *, connect: bool = True) -> MqttSnClient:
    client = MqttSnClient()
    client.set_client_id(f"tp-{uuid.uuid4().hex[:8]}")
    client.set_timeout(int(WAIT_S))
    client.open(gateway[0], gateway[1])
    if connect:
        client.send_connect()
    return client


def received(observer: Observer, topic: str, count: int) -> list[tuple[str, bytes]]:
    observer.wait_for(
        lambda o: sum(1 for t, _p, _r in o.messages if t == topic) >= count, what=topic
    )
    return [(t, p) for t, p, _r in observer.messages if t == topic]


class Inbox(MqttSnListener):  # type: ignore[misc]  # the library is untyped
    def __init__(self) -> None:
        self.messages: list[tuple[str | None, bytes]] = []

    def message_arrived(self, msg: MqttSnMessage) -> None:
        self.messages.append((msg.get_topic_name(), bytes(msg.get_payload())))


def poll_until(client: MqttSnClient, inbox: Inbox, count: int) -> None:
    """Let the third-party client read datagrams (its ``polling`` is non-blocking) until
    ``inbox`` holds ``count`` messages; waits in select on its socket, not in sleeps."""
    deadline = time.monotonic() + WAIT_S
    while len(inbox.messages) < count:
        remaining = deadline - time.monotonic()
        assert remaining > 0, f"third-party client got {inbox.messages}"
        select.select([client.datagram_socket], [], [], remaining)
        client.polling()


def test_gateway_forwards_third_party_qos0_and_qos1_publishes_to_the_broker(
    gateway: Gateway, observer: Observer, topic: str
) -> None:
    client = third_party_client(gateway.address)
    try:
        # A normal topic name: the library REGISTERs it, then publishes with its id.
        topic_id = client.send_publish(topic, PAYLOAD, 0)
        assert client.send_publish(topic, PAYLOAD[::-1], 1) == topic_id  # waits for PUBACK
        client.send_disconnect()
    finally:
        client.close()

    assert topic_id >= 1
    assert received(observer, topic, 2) == [(topic, PAYLOAD), (topic, PAYLOAD[::-1])]


def test_gateway_forwards_short_and_predefined_topic_publishes(
    gateway: Gateway, observer: Observer, topic: str
) -> None:
    short = "s" + uuid.uuid4().hex[0]  # a 2-character topic name
    client = third_party_client(gateway.address)
    try:
        client.send_publish(short, b"short qos 1", 1)
        client.send_publish_predefined(PREDEFINED_ID, b"predefined qos 0", 0)
    finally:
        client.close()

    assert received(observer, short, 1) == [(short, b"short qos 1")]
    predefined = f"{topic}/predefined"
    assert received(observer, predefined, 1) == [(predefined, b"predefined qos 0")]


def test_gateway_forwards_qos_minus_1_publishes_from_a_client_that_never_connected(
    gateway: Gateway, observer: Observer, topic: str
) -> None:
    client = third_party_client(gateway.address, connect=False)
    try:
        client.send_publish_predefined(PREDEFINED_ID, PAYLOAD, -1)
        client.send_publish_short(codec.short_topic_id("m1"), b"qos -1 short", -1)
    finally:
        client.close()

    predefined = f"{topic}/predefined"
    assert received(observer, predefined, 1) == [(predefined, PAYLOAD)]
    assert received(observer, "m1", 1) == [("m1", b"qos -1 short")]
    assert gateway.sessions == {}  # no connection was made for them


def test_gateway_delivers_a_broker_message_to_a_third_party_subscriber(
    gateway: Gateway, observer: Observer, topic: str
) -> None:
    client = third_party_client(gateway.address)
    inbox = Inbox()
    try:
        client.send_subscribe(f"{topic}/down", 1, inbox)
        observer.publish(f"{topic}/down", PAYLOAD, qos=1)
        poll_until(client, inbox, 1)
    finally:
        client.close()

    assert inbox.messages == [(f"{topic}/down", PAYLOAD)]


def test_gateway_registers_a_wildcard_match_with_the_client_before_publishing_it(
    gateway: Gateway, observer: Observer, topic: str
) -> None:
    client = third_party_client(gateway.address)
    inbox = Inbox()
    try:
        client.send_subscribe(f"{topic}/+", 0, inbox)
        observer.publish(f"{topic}/a", b"first", qos=0)
        observer.publish(f"{topic}/b", b"second", qos=0)
        poll_until(client, inbox, 2)
    finally:
        client.close()

    # The library knows the topic names only from the gateway's REGISTERs (§6.10).
    assert sorted(inbox.messages) == [(f"{topic}/a", b"first"), (f"{topic}/b", b"second")]


def test_gateway_answers_pingreq_and_disconnect(gateway: Gateway) -> None:
    client = third_party_client(gateway.address)
    try:
        client.send_ping_req()  # raises unless a PINGRESP comes back
        client.send_disconnect()  # raises unless the gateway's DISCONNECT comes back
    finally:
        client.close()

    assert gateway.sessions == {}


def test_gateway_rejects_a_publish_to_an_unregistered_topic_id(gateway: Gateway) -> None:
    client = SnClient(gateway.address)
    try:
        client.connect("isb-unknown-topic", duration_s=60)
        client.send(codec.Publish(topic_id=99, msg_id=1, data=b"x", qos=1))
        answer = client.receive(time.perf_counter_ns() + int(WAIT_S * 1e9))
    finally:
        client.close()

    assert answer == codec.Puback(99, 1, codec.REJECTED_INVALID_TOPIC_ID)


def test_gateway_refuses_a_connect_that_asks_for_a_will(gateway: Gateway) -> None:
    client = SnClient(gateway.address)
    try:
        connack = client.request(
            codec.Connect(client_id="isb-will", duration=60, will=True),
            codec.Connack,
            what="CONNECT",
        )
    finally:
        client.close()

    assert connack == codec.Connack(codec.REJECTED_NOT_SUPPORTED)


def test_gateway_sets_tcp_nodelay_on_each_clients_broker_connection(gateway: Gateway) -> None:
    client = SnClient(gateway.address)
    try:
        client.connect("isb-nodelay", duration_s=60)
        (session,) = gateway.sessions.values()
        broker_socket: Any = session.mqtt.socket()
        assert broker_socket.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        client.close()


def test_gateway_disconnects_a_client_whose_keepalive_expired(gateway: Gateway) -> None:
    client = SnClient(gateway.address)
    try:
        client.connect("isb-keepalive", duration_s=1)
        # Nothing sent: after 1.5 × 1 s the gateway ends the session and says so (§6.11).
        answer = client.receive(time.perf_counter_ns() + int(WAIT_S * 1e9))
    finally:
        client.close()

    assert answer == codec.Disconnect()
    assert gateway.sessions == {}


def test_gateway_cli_serves_a_third_party_client_until_sigterm(
    sn_broker: Broker, observer: Observer, topic: str
) -> None:
    port = free_udp_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "iotsecbench_agent",
            "mqttsn-gateway",
            "--broker",
            sn_broker.url,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--predefined",
            f"{PREDEFINED_ID}={topic}/cli",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for_gwinfo(("127.0.0.1", port), process)
        client = third_party_client(("127.0.0.1", port))
        try:
            client.send_publish_predefined(PREDEFINED_ID, PAYLOAD, 1)
        finally:
            client.close()
        assert received(observer, f"{topic}/cli", 1) == [(f"{topic}/cli", PAYLOAD)]
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=WAIT_S)

    assert process.returncode == 0, stderr.decode()


def test_gateway_cli_fails_with_one_line_when_the_broker_url_is_wrong() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "iotsecbench_agent", "mqttsn-gateway", "--broker", "http://x"],
        capture_output=True,
        text=True,
        timeout=WAIT_S * 3,
        check=False,
    )

    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1].startswith("error: --broker must start with")


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_for_gwinfo(address: tuple[str, int], process: subprocess.Popen[bytes]) -> None:
    """SEARCHGW until the gateway process answers GWINFO (it is then serving)."""
    client = SnClient(address)
    deadline = time.monotonic() + WAIT_S * 3
    try:
        while True:
            assert process.poll() is None, "the gateway process exited"
            assert time.monotonic() < deadline, "the gateway never answered SEARCHGW"
            client.send(codec.SearchGw(radius=0))
            answer = client.receive(time.perf_counter_ns() + 200_000_000)
            if isinstance(answer, codec.GwInfo):
                return
    finally:
        client.close()
