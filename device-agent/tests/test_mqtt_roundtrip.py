"""The MQTT round-trip runner against a real Mosquitto (integration)."""

from __future__ import annotations

import socket
import threading
import uuid
from typing import Any

import pytest

from iotsecbench_agent.errors import DataPlaneError, RunAborted, UnsupportedJob
from iotsecbench_agent.recordlog import LOST, OK, Record
from iotsecbench_agent.runners import RunClock, RunContext, runner_for
from iotsecbench_agent.runners.mqtt_roundtrip import MqttRoundTripRunner
from iotsecbench_agent.runners.mqtt_wire import publish_packet_size
from testkit import BLACKHOLE_PREFIX, Broker

pytestmark = pytest.mark.integration

DEVICE = "6f1c1a52-3c1e-4a8e-9a57-1d0c2b7e9f10"


def spec(broker: Broker, **overrides: Any) -> dict[str, Any]:
    run_id = str(uuid.uuid4())
    return {
        "protocol": "mqtt",
        "mqtt_version": "3.1.1",
        "qos": 1,
        "security": "none",
        "payload_size": 66,
        "message_count": 50,
        "interval_ms": 0,
        "measurement": "round_trip",
        "timeout_ms": 2000,
        "broker_url": broker.url,
        "topic": f"iotsecbench/data/{run_id}/{DEVICE}",
        **overrides,
    }


def run(spec: dict[str, Any], stop: threading.Event | None = None) -> list[Record]:
    records: list[Record] = []
    context = RunContext(
        run_id=str(uuid.uuid4()),
        device_id=DEVICE,
        clock=RunClock(),
        emit=records.append,
        stop=stop or threading.Event(),
    )
    runner_for("messaging", spec)(spec, context).execute()
    return records


@pytest.mark.parametrize("qos", [0, 1, 2])
def test_roundtrip_records_every_message_ok_when_broker_echoes(broker: Broker, qos: int) -> None:
    job_spec = spec(broker, qos=qos)
    records = run(job_spec)

    assert [r.seq for r in records] == list(range(50))
    assert {r.outcome for r in records} == {OK}
    assert all(r.t_recv_ns is not None and r.t_recv_ns - r.t_send_ns > 0 for r in records)
    assert {r.app_bytes for r in records} == {66}
    # Topic iotsecbench/data/<uuid>/<uuid> is 90 bytes: remaining length = 2 + 90 + 66
    # (+ 2 packet id for QoS>0) = 158 or 160, a 2-byte varint, so the packet is 161 or 163.
    expected = {0: 161, 1: 163, 2: 163}[qos]
    assert expected == publish_packet_size(topic=job_spec["topic"], payload_size=66, qos=qos)
    assert {r.wire_bytes for r in records} == {expected}


def test_roundtrip_counts_wire_bytes_for_mqtt5_when_version_is_5(broker: Broker) -> None:
    job_spec = spec(broker, mqtt_version="5", qos=1, message_count=5, payload_size=300)
    records = run(job_spec)

    assert {r.outcome for r in records} == {OK}
    assert {r.wire_bytes for r in records} == {
        publish_packet_size(topic=job_spec["topic"], payload_size=300, qos=1, mqtt5=True)
    }


def test_roundtrip_timestamps_share_one_wall_anchored_clock_when_run(broker: Broker) -> None:
    import time

    before = time.time_ns()
    records = run(spec(broker, message_count=5))
    after = time.time_ns()

    for r in records:
        assert r.t_recv_ns is not None
        assert before <= r.t_send_ns < r.t_recv_ns <= after
    assert [r.t_send_ns for r in records] == sorted(r.t_send_ns for r in records)


def test_roundtrip_records_lost_when_echo_never_comes_back(broker: Broker) -> None:
    # The test broker's ACL lets us subscribe under blackhole/ but drops our publishes.
    job_spec = spec(
        broker, qos=0, message_count=3, timeout_ms=50, topic=f"{BLACKHOLE_PREFIX}{uuid.uuid4()}"
    )
    records = run(job_spec)

    assert [(r.seq, r.outcome, r.t_recv_ns) for r in records] == [
        (0, LOST, None),
        (1, LOST, None),
        (2, LOST, None),
    ]
    # The PUBLISH was still written to the socket, so its bytes are still counted.
    assert {r.wire_bytes for r in records} == {
        publish_packet_size(topic=job_spec["topic"], payload_size=66, qos=0)
    }


def test_roundtrip_sets_tcp_nodelay_on_data_socket_when_connected(broker: Broker) -> None:
    context = RunContext(
        run_id=str(uuid.uuid4()),
        device_id=DEVICE,
        clock=RunClock(),
        emit=lambda record: None,
        stop=threading.Event(),
    )
    runner = MqttRoundTripRunner(spec(broker), context)
    runner.setup()
    try:
        assert runner.data_socket().getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        runner.cleanup()


def test_roundtrip_waits_interval_between_messages_when_interval_set(broker: Broker) -> None:
    records = run(spec(broker, message_count=4, interval_ms=30))

    gaps = [b.t_send_ns - a.t_send_ns for a, b in zip(records, records[1:])]
    assert all(gap >= 30_000_000 for gap in gaps)


def test_roundtrip_uses_the_jobs_interval_distribution_and_seed(broker: Broker) -> None:
    from iotsecbench_agent.runners.intervals import interval_sampler

    records = run(
        spec(
            broker,
            message_count=5,
            interval_ms=20,
            interval_distribution="exponential",
            interval_seed=11,
        )
    )
    planned = interval_sampler("exponential", 20, 11)
    gaps = [b.t_send_ns - a.t_send_ns for a, b in zip(records, records[1:])]
    # Each gap is the planned interval (after the echo) plus that message's round trip.
    for gap in gaps:
        assert gap >= planned()


def test_roundtrip_refuses_an_unknown_interval_distribution(broker: Broker) -> None:
    with pytest.raises(UnsupportedJob, match="interval_distribution"):
        run(spec(broker, interval_distribution="gaussian"))


def test_roundtrip_stops_between_messages_when_stop_is_set(broker: Broker) -> None:
    stop = threading.Event()
    stop.set()

    with pytest.raises(RunAborted):
        run(spec(broker), stop=stop)


def test_roundtrip_fails_with_data_plane_error_when_broker_is_unreachable() -> None:
    from testkit import free_port

    unreachable = {"broker_url": f"mqtt://127.0.0.1:{free_port()}"}
    with pytest.raises(DataPlaneError, match="cannot connect"):
        run({**spec_for_url(), **unreachable})


def spec_for_url() -> dict[str, Any]:
    return {
        "protocol": "mqtt",
        "qos": 0,
        "payload_size": 66,
        "message_count": 1,
        "interval_ms": 0,
        "measurement": "round_trip",
        "timeout_ms": 100,
        "topic": "iotsecbench/data/x",
    }


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"security": "aes-512-gcm"}, "security"),
        ({"security": "aes-128-gcm", "security_key": "not hex"}, "security_key"),
        ({"payload_size": 4}, "payload_size"),
        ({"qos": 3}, "qos"),
        ({"topic": "a/#"}, "topic"),
        ({"measurement": "one_way"}, "measurement"),
        ({"protocol": "amqp"}, "protocol"),
    ],
)
def test_runner_rejects_spec_as_unsupported_when_values_are_out_of_range(
    overrides: dict[str, Any], message: str
) -> None:
    bad = {**spec_for_url(), "broker_url": "mqtt://127.0.0.1:1883", **overrides}
    with pytest.raises(UnsupportedJob, match=message):
        runner_for("messaging", bad).validate_spec(bad)
