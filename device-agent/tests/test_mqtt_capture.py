"""Wire bytes counted by the agent against a packet capture of the same traffic (tshark)."""

from __future__ import annotations

import tempfile
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from paho.mqtt.enums import CallbackAPIVersion

from iotsecbench_agent.links.mqtt_wire import (
    CountingSocket,
    MeteredClient,
    OutboundMeter,
    publish_packet_size,
)
from iotsecbench_agent.runners import RunClock, RunContext
from iotsecbench_agent.runners.mqtt_roundtrip import MqttRoundTripRunner
from iotsecbench_agent.storage.recordlog import OK, Record
from testkit import WAIT_S, Broker, Capture, tshark_binary

pytestmark = pytest.mark.integration

MQTT_PUBLISH = "3"


@pytest.fixture
def capture_dir() -> Iterator[Path]:
    if tshark_binary() is None:
        # Fail, not skip: without the capture nothing checks the counted wire bytes.
        pytest.fail("tshark not found on PATH: apt-get install tshark (or `make tshark`)")
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp).chmod(0o777)  # dumpcap may drop to its own user
        yield Path(tmp)


def test_qos1_publish_of_one_byte_is_14_bytes_on_the_wire_and_counted_so(
    broker: Broker, capture_dir: Path
) -> None:
    meter = OutboundMeter(mqtt5=False, by_payload=True)
    client = MeteredClient(
        meter, callback_api_version=CallbackAPIVersion.VERSION2, client_id=f"cap-{uuid.uuid4()}"
    )
    capture = Capture(broker.port, capture_dir)
    try:
        client.connect("127.0.0.1", broker.port)
        client.require_metering()
        sock = client.socket()
        assert isinstance(sock, CountingSocket)
        client_port = sock.raw.getsockname()[1]
        client.loop_start()
        info = client.publish("test/d1", b"1", qos=1)
        info.wait_for_publish(WAIT_S)  # the broker's PUBACK came back
        assert info.is_published()
        client.disconnect()
        client.loop_stop()
    finally:
        capture.stop()

    frames = capture.fields(
        "tcp.srcport",
        "tcp.len",
        "mqtt.msgtype",
        display_filter=f"tcp.port == {client_port}",
        decode_as=f"tcp.port=={broker.port},mqtt",
    )
    sent = [(int(length), msgtype) for src, length, msgtype in frames if int(src) == client_port]
    publishes = [length for length, msgtype in sent if msgtype == MQTT_PUBLISH]
    # 1 (type+flags) + 1 (remaining length 12) + 2 + 7 ("test/d1") + 2 (packet id) + 1 = 14.
    assert publishes == [14]
    assert meter.take_payload_bytes(b"1") == 14
    # Everything the client sent (CONNECT, PUBLISH, DISCONNECT) is what its socket counted.
    assert sum(length for length, _ in sent) == sock.bytes_sent == meter.total_bytes > 14


def test_runner_publishes_of_one_byte_payloads_are_the_captured_tcp_payloads(
    broker: Broker, capture_dir: Path
) -> None:
    topic = "iotsecbench/d1"  # the test broker lets us read back only under iotsecbench/
    job_spec = {
        "protocol": "mqtt",
        "measurement": "round_trip",
        "qos": 1,
        "payload_size": 1,
        "message_count": 3,
        "interval_ms": 0,
        "timeout_ms": 2000,
        "broker_url": broker.url,
        "topic": topic,
    }
    records: list[Record] = []
    context = RunContext(
        run_id=str(uuid.uuid4()),
        device_id="d1",
        clock=RunClock(),
        emit=records.append,
        stop=threading.Event(),
    )
    runner = MqttRoundTripRunner(job_spec, context)
    capture = Capture(broker.port, capture_dir)
    try:
        runner.setup()
        client_port = runner.data_socket().getsockname()[1]
        runner.run()
    finally:
        runner.cleanup()
        capture.stop()

    frames = capture.fields(
        "tcp.srcport",
        "tcp.len",
        "mqtt.msgtype",
        "mqtt.msg",
        display_filter=f"tcp.srcport == {client_port} && mqtt.msgtype == {MQTT_PUBLISH}",
        decode_as=f"tcp.port=={broker.port},mqtt",
    )
    # 1 (type+flags) + 1 (remaining length 19) + 2 + 14 ("iotsecbench/d1") + 2 (id) + 1 = 21.
    assert [int(length) for _src, length, _type, _msg in frames] == [21, 21, 21]
    assert [msg for _src, _length, _type, msg in frames] == ["00", "01", "02"]  # seq mod 256
    assert [r.wire_bytes for r in records] == [21, 21, 21]
    assert publish_packet_size(topic=topic, payload_size=1, qos=1) == 21
    assert {r.outcome for r in records} == {OK}
