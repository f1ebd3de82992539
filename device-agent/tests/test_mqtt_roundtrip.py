"""The MQTT round-trip runner against a real Mosquitto (integration)."""

from __future__ import annotations

import socket
import threading
import uuid
from typing import Any

import pytest
from iotsecbench_contract.errors import JobSpecError

from iotsecbench_agent.errors import DataPlaneError, RunAborted
from iotsecbench_agent.jobkinds import runner_for
from iotsecbench_agent.links.mqtt_wire import publish_packet_size
from iotsecbench_agent.runners import RunClock, RunContext
from iotsecbench_agent.runners.mqtt_roundtrip import MqttRoundTripRunner, SeqTags, payload_of
from iotsecbench_agent.storage.recordlog import LOST, OK, Record
from testkit import BLACKHOLE_PREFIX, INJECTOR_USER, Broker, Observer

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


def context(records: list[Record], stop: threading.Event | None = None) -> RunContext:
    return RunContext(
        run_id=str(uuid.uuid4()),
        device_id=DEVICE,
        clock=RunClock(),
        emit=records.append,
        stop=stop or threading.Event(),
    )


def run(spec: dict[str, Any], stop: threading.Event | None = None) -> list[Record]:
    records: list[Record] = []
    runner_for("messaging", spec)(spec, context(records, stop)).execute()
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


@pytest.mark.parametrize(("size", "count"), [(1, 300), (7, 20)])
def test_roundtrip_records_payloads_shorter_than_the_seq_ok_with_the_publish_size_on_the_wire(
    broker: Broker, size: int, count: int
) -> None:
    job_spec = spec(broker, payload_size=size, message_count=count)
    observer = Observer(broker, job_spec["topic"])
    try:
        records = run(job_spec)
        observer.wait_for(lambda o: len(o.messages) == count, what=f"{count} payloads")
    finally:
        observer.close()

    assert [r.seq for r in records] == list(range(count))
    assert {r.outcome for r in records} == {OK}
    assert {r.app_bytes for r in records} == {size}
    # 1 (type, flags) + 1 (remaining length 2 + 90 + 2 + size, < 128) + 2 + 90 (topic)
    # + 2 (packet id) + size.
    assert {r.wire_bytes for r in records} == {96 + size}
    assert 96 + size == publish_packet_size(topic=job_spec["topic"], payload_size=size, qos=1)
    # The payload is the seq modulo 256**size, big-endian: 1 byte wraps after 0xff.
    payloads = [payload for _topic, payload, _retained in observer.messages]
    assert payloads == [(seq % 256**size).to_bytes(size, "big") for seq in range(count)]


def test_roundtrip_counts_an_echo_with_another_seq_as_late_and_never_as_ok(
    broker: Broker,
) -> None:
    # Our own publishes under blackhole/ are dropped by the broker; the injector's (another
    # client) arrive: a stand-in for an earlier message's echo arriving late.
    topic = f"{BLACKHOLE_PREFIX}{uuid.uuid4()}"
    job_spec = spec(broker, payload_size=1, message_count=2, timeout_ms=300, topic=topic)
    records: list[Record] = []
    runner = MqttRoundTripRunner(job_spec, context(records))
    injector = Observer(broker, topic, username=INJECTOR_USER)
    done = threading.Event()

    def inject() -> None:
        while not done.wait(0.03):
            injector.publish(topic, b"\x07")  # seq 7's tag: neither message 0's nor 1's

    runner.setup()
    thread = threading.Thread(target=inject)
    thread.start()
    try:
        runner.run()
    finally:
        done.set()
        thread.join()
        runner.cleanup()
        injector.close()

    assert [(r.seq, r.outcome, r.t_recv_ns) for r in records] == [(0, LOST, None), (1, LOST, None)]
    assert len(injector.messages) >= 2  # the broker did deliver them
    assert runner.tags.late_echoes >= 2
    assert runner.tags.ambiguous_echoes == 0


def test_seq_tags_keep_the_8_byte_seq_then_filler_when_payload_is_8_bytes_or_more() -> None:
    for size in (8, 66):
        tags = SeqTags(size)
        assert tags.payload(2**40 + 5) == (2**40 + 5).to_bytes(8, "big") + b"\xa5" * (size - 8)
        assert tags.payload(3) == payload_of(3, b"\xa5" * (size - 8))


def test_seq_tags_wrap_modulo_256_to_the_n_when_payload_is_shorter_than_8_bytes() -> None:
    assert [SeqTags(1).payload(seq) for seq in (0, 1, 255, 256, 257)] == [
        b"\x00",
        b"\x01",
        b"\xff",
        b"\x00",
        b"\x01",
    ]
    assert SeqTags(2).payload(65537) == b"\x00\x01"
    assert SeqTags(7).payload(2**56 + 9) == (9).to_bytes(7, "big")


def test_seq_tags_count_an_echo_as_ambiguous_when_a_lost_message_had_the_same_tag() -> None:
    tags = SeqTags(1)
    tags.lost(3)  # its echo may still come, and would carry tag 3 like seq 259
    tags.echoed(4)
    assert tags.ambiguous_echoes == 0
    tags.echoed(259)
    assert tags.ambiguous_echoes == 1
    tags.echoed(515)  # tag 3 was accounted for by 259's echo
    assert tags.ambiguous_echoes == 1


def test_seq_tags_forget_a_lost_tag_once_its_late_echo_came_back() -> None:
    tags = SeqTags(1)
    tags.lost(3)
    tags.late(b"\x03")
    tags.echoed(259)
    assert (tags.late_echoes, tags.ambiguous_echoes) == (1, 0)


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
    from iotsecbench_contract.intervals import interval_sampler

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
    with pytest.raises(JobSpecError, match="interval_distribution"):
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
        ({"payload_size": 0}, "payload_size"),
        ({"qos": 3}, "qos"),
        ({"topic": "a/#"}, "topic"),
        ({"measurement": "two_way"}, "measurement"),
        ({"protocol": "amqp"}, "protocol"),
    ],
)
def test_runner_rejects_spec_as_unsupported_when_values_are_out_of_range(
    overrides: dict[str, Any], message: str
) -> None:
    bad = {**spec_for_url(), "broker_url": "mqtt://127.0.0.1:1883", **overrides}
    with pytest.raises(JobSpecError, match=message):
        runner_for("messaging", bad).validate_spec(bad)
