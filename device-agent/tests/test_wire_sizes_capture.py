"""The platform's message-size model checked against packet captures, one protocol each.

The model (backend results.services.sizes) is built from ``iotsecbench_contract.framing``;
here the agent's runners send real messages while ``tshark`` captures the loopback, and
each test asserts, per message: captured payload == the record's ``wire_bytes`` == the
framing formula for the run's parameters, and captured frame length == payload + the
headers below the socket the model assumes (Ethernet 14, IPv4 20, TCP 20 + 12 timestamps,
or UDP 8). The backend's tests check the model's breakdown against the same formulas and
the agent's encoders (backend/results/tests/services/test_size_models.py).
"""

from __future__ import annotations

import contextlib
import functools
import socket
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from iotsecbench_contract import framing

from iotsecbench_agent.jobkinds import runner_for
from iotsecbench_agent.runners import RunClock, RunContext
from iotsecbench_agent.runners.coap_roundtrip import CoapRoundTripRunner
from iotsecbench_agent.runners.mqtt_roundtrip import MqttRoundTripRunner
from iotsecbench_agent.runners.mqttsn_roundtrip import MqttSnRoundTripRunner
from iotsecbench_agent.runners.srup_roundtrip import SrupRoundTripRunner
from iotsecbench_agent.security import registry
from iotsecbench_agent.storage.recordlog import OK, Record
from testkit import Broker, Capture, TlsBroker, tshark_binary

pytestmark = pytest.mark.integration

MQTT_PUBLISH = "3"
MQTTSN_PUBLISH = "12"  # 0x0C
SRUP_FIELDS = 1 + 1 + 8 + 8 + 2 + 2 + 2 + len(b"data") + 2  # srup/codec.py data message
SRUP_TOKEN = 36
ED25519_SIGNATURE = 64
TLS13_RECORD_OVERHEAD = 5 + 1 + 16  # record header, inner content type, AEAD tag
TCP_FRAME_HEADERS = (
    framing.ETHERNET_HEADER_BYTES
    + framing.IPV4_HEADER_BYTES
    + framing.TCP_HEADER_BYTES
    + framing.TCP_TIMESTAMPS_BYTES
)
UDP_FRAME_HEADERS = (
    framing.ETHERNET_HEADER_BYTES + framing.IPV4_HEADER_BYTES + framing.UDP_HEADER_BYTES
)


class UdpCapture(Capture):
    """``tshark -i lo`` on every UDP datagram (a runner's ports are known only after its
    setup, so the tests pick its datagrams by port afterwards). ``testkit.Capture`` with a
    UDP capture filter; start and stop wait for a probe datagram (to the prober's own port)
    to show up in tshark's live output, as ``Capture`` waits for a TCP connection."""

    def __init__(self, directory: Path) -> None:
        self._prober = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._prober.bind(("127.0.0.1", 0))
        super().__init__(self._prober.getsockname()[1], directory, capture_filter="udp")

    def _probe(self) -> None:
        deadline = time.monotonic() + 30
        while True:
            with self._seen:
                before = self._lines
            with contextlib.suppress(OSError):
                self._prober.sendto(b"probe", ("127.0.0.1", self.port))
            with self._seen:
                if self._seen.wait_for(functools.partial(self._more_than, before), timeout=0.5):
                    return
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"tshark is not capturing: {self._log.read_text()}")

    def stop(self) -> None:
        super().stop()
        self._prober.close()


@pytest.fixture
def tshark_dir() -> Iterator[Path]:
    """A directory dumpcap may write to; fails (not skips) without tshark: without the
    capture nothing checks the model's bytes."""
    if tshark_binary() is None:
        pytest.fail("tshark not found on PATH: apt-get install tshark (or `make tshark`)")
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp).chmod(0o777)  # dumpcap may drop to its own user
        yield Path(tmp)


def _captured(runner: Any, capture: Capture, port_of: Callable[[], int]) -> int:
    """Runs ``runner`` while ``capture`` records; returns the client port ``port_of`` names
    once the messages went out."""
    try:
        runner.setup()
        runner.run()
        return port_of()
    finally:
        runner.cleanup()
        capture.stop()


def _context(records: list[Record]) -> RunContext:
    return RunContext(
        run_id=str(uuid.uuid4()),
        device_id="d1",
        clock=RunClock(),
        emit=records.append,
        stop=threading.Event(),
    )


def _secured_size(security: str, payload_size: int) -> int:
    return payload_size + registry.describe(security).overhead(payload_size)


def _rows(capture: Capture, fields: tuple[str, ...], **kwargs: Any) -> list[tuple[int, ...]]:
    return [tuple(int(v.split(",")[0]) for v in row) for row in capture.fields(*fields, **kwargs)]


def test_coap_request_is_header_token_options_marker_and_body_over_one_udp_header(
    tshark_dir: Path,
) -> None:
    job = {
        "protocol": "coap",
        "measurement": "round_trip",
        "coap_type": "con",
        "coap_method": "get",
        "security": "aes-128-gcm",
        "payload_size": 64,
        "message_count": 3,
        "interval_ms": 0,
        "timeout_ms": 2000,
    }
    records: list[Record] = []
    runner = runner_for("messaging", job)(job, _context(records))
    assert isinstance(runner, CoapRoundTripRunner)
    capture = UdpCapture(tshark_dir)
    # The client's socket is bound by its first send: its port is read after the run.
    client_port = _captured(runner, capture, lambda: runner.socket.getsockname()[1])
    url = runner.url

    sent = _rows(
        capture,
        ("frame.len", "udp.length", "coap.token_len"),
        display_filter=f"udp.srcport == {client_port}",
        decode_as=f"udp.port=={client_port},coap",
    )
    assert {r.outcome for r in records} == {OK}
    assert len(sent) == 3  # one request datagram per message, nothing else
    body = _secured_size("aes-128-gcm", 64)  # 12 + 64 + 16
    options = framing.coap_options_bytes(framing.coap_request_options(url))
    assert options == 5  # Uri-Path "echo"; no Uri-Host for 127.0.0.1
    for (frame, udp_length, token), record in zip(sent, records, strict=True):
        payload = udp_length - framing.UDP_HEADER_BYTES
        model = (
            framing.COAP_HEADER_BYTES + token + options + framing.COAP_PAYLOAD_MARKER_BYTES + body
        )
        assert payload == record.wire_bytes == model
        assert token == 2  # aiocoap's token, what the model takes from the measured bytes
        assert frame == payload + UDP_FRAME_HEADERS


def test_mqttsn_publish_is_its_header_topic_id_and_data_over_one_udp_header(
    broker: Broker, tshark_dir: Path
) -> None:
    job = {
        "protocol": "mqttsn",
        "measurement": "round_trip",
        "qos": 1,
        "topic_id_type": "normal",
        "topic": f"iotsecbench/sn/{uuid.uuid4()}",
        "security": "none",
        "payload_size": 64,
        "message_count": 3,
        "interval_ms": 0,
        "timeout_ms": 2000,
        "broker_url": broker.url,
    }
    records: list[Record] = []
    runner = runner_for("messaging", job)(job, _context(records))
    assert isinstance(runner, MqttSnRoundTripRunner)
    capture = UdpCapture(tshark_dir)
    client_port = _captured(runner, capture, lambda: runner.publisher.sock.getsockname()[1])

    publishes = _rows(
        capture,
        ("frame.len", "udp.length"),
        display_filter=f"udp.srcport == {client_port} && mqttsn.msg.type == {MQTTSN_PUBLISH}",
        decode_as=f"udp.port=={client_port},mqttsn",
    )
    assert {r.outcome for r in records} == {OK}
    # Length 1 + MsgType 1 + Flags 1 + TopicId 2 + MsgId 2 + 64 = 71, the figure.
    assert framing.mqttsn_publish_bytes(data_bytes=64) == 71
    assert [(udp - framing.UDP_HEADER_BYTES) for _frame, udp in publishes] == [71, 71, 71]
    assert [r.wire_bytes for r in records] == [71, 71, 71]
    assert {frame for frame, _udp in publishes} == {71 + UDP_FRAME_HEADERS}


def test_mqtt_publish_is_header_topic_and_secured_body_over_one_tcp_segment(
    broker: Broker, tshark_dir: Path
) -> None:
    topic = f"iotsecbench/{uuid.uuid4()}"
    job = {
        "protocol": "mqtt",
        "measurement": "round_trip",
        "mqtt_version": "5",
        "qos": 1,
        "security": "aes-128-cbc",
        "payload_size": 66,
        "message_count": 3,
        "interval_ms": 0,
        "timeout_ms": 2000,
        "broker_url": broker.url,
        "topic": topic,
    }
    records: list[Record] = []
    runner = MqttRoundTripRunner(job, _context(records))
    capture = Capture(broker.port, tshark_dir)
    client_port = _captured(runner, capture, lambda: runner.data_socket().getsockname()[1])

    publishes = _rows(
        capture,
        ("frame.len", "tcp.len"),
        display_filter=f"tcp.srcport == {client_port} && mqtt.msgtype == {MQTT_PUBLISH}",
        decode_as=f"tcp.port=={broker.port},mqtt",
    )
    body = _secured_size("aes-128-cbc", 66)  # 16 + 66 + 14 padding
    topic_bytes = len(topic.encode())
    model = (
        framing.mqtt_publish_header_bytes(
            topic_bytes=topic_bytes, body_bytes=body, qos=1, mqtt5=True
        )
        + topic_bytes
        + body
    )
    assert {r.outcome for r in records} == {OK}
    assert [tcp for _frame, tcp in publishes] == [model] * 3
    assert [r.wire_bytes for r in records] == [model] * 3
    assert {frame for frame, _tcp in publishes} == {model + TCP_FRAME_HEADERS}


def test_srup_publish_over_tls13_is_the_signed_message_in_one_record(
    tls_broker: TlsBroker, tshark_dir: Path
) -> None:
    listener = "1.3-client-cert"
    port = tls_broker.ports[listener]
    job = {
        "protocol": "srup",
        "measurement": "round_trip",
        "mqtt_version": "3.1.1",
        "qos": 1,
        "srup_signature": "ed25519",
        "payload_size": 64,
        "message_count": 3,
        "interval_ms": 0,
        "timeout_ms": 2000,
        "broker_url": tls_broker.url(listener),
        "tls_version": "1.3",
        "ca_cert": tls_broker.pki.pem("ca.crt"),
        "client_cert": tls_broker.pki.pem("client.crt"),
        "client_key": tls_broker.pki.pem("client.key"),
    }
    records: list[Record] = []
    runner = SrupRoundTripRunner(job, _context(records))
    capture = Capture(port, tshark_dir)
    client_port = _captured(runner, capture, lambda: runner.link.data_socket().getsockname()[1])

    srup = SRUP_FIELDS + SRUP_TOKEN + ED25519_SIGNATURE + 64
    topic = len(runner.topic)  # SRUP/<16 hex digits>: 21
    plain = framing.mqtt_publish_header_bytes(
        topic_bytes=topic, body_bytes=srup, qos=1, mqtt5=False
    )
    plain += topic + srup
    assert {r.outcome for r in records} == {OK}
    assert [r.wire_bytes for r in records] == [plain + TLS13_RECORD_OVERHEAD] * 3
    # Each request's records are one segment of the controller's connection (TCP_NODELAY).
    segments = _rows(
        capture,
        ("frame.len", "tcp.len"),
        display_filter=f"tcp.srcport == {client_port} && tcp.len > 0",
    )
    for record in records:
        assert (record.wire_bytes + TCP_FRAME_HEADERS, record.wire_bytes) in segments


def test_the_srup_papers_plain_frame_is_14_bytes_of_tcp_and_80_on_the_wire(
    tshark_dir: Path,
) -> None:
    """Issue #19 point 2: topic ``test/d1``, QoS 1, a 1-byte payload, no security, MQTT
    3.1.1, on an external broker (the machine's own Mosquitto on 127.0.0.1:1883, which the
    product does not start; the job as the platform builds it for a design's broker_url)."""
    job = {
        "protocol": "mqtt",
        "measurement": "round_trip",
        "mqtt_version": "3.1.1",
        "qos": 1,
        "security": "none",
        "payload_size": 1,
        "message_count": 3,
        "interval_ms": 0,
        "timeout_ms": 2000,
        "broker_url": "mqtt://127.0.0.1:1883",
        "broker_external": True,
        "topic": "test/d1",
    }
    records: list[Record] = []
    runner = MqttRoundTripRunner(job, _context(records))
    capture = Capture(1883, tshark_dir)
    client_port = _captured(runner, capture, lambda: runner.data_socket().getsockname()[1])

    publishes = _rows(
        capture,
        ("frame.len", "tcp.len"),
        display_filter=f"tcp.srcport == {client_port} && mqtt.msgtype == {MQTT_PUBLISH}",
        decode_as="tcp.port==1883,mqtt",
    )
    assert {r.outcome for r in records} == {OK}
    assert [tcp for _frame, tcp in publishes] == [14] * 3
    assert [r.wire_bytes for r in records] == [14] * 3
    assert [frame for frame, _tcp in publishes] == [80] * 3
    assert 14 + TCP_FRAME_HEADERS == 80
