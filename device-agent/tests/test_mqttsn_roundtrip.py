"""The MQTT-SN round-trip runner over real UDP, through the agent's gateway, to a real
Mosquitto (integration)."""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from iotsecbench_contract.errors import JobSpecError
from iotsecbench_contract.limits import MAX_PUBLISH_DATA

from iotsecbench_agent.brokerurl import parse_mqtt_url
from iotsecbench_agent.errors import DataPlaneError, RunAborted
from iotsecbench_agent.jobkinds import runner_for
from iotsecbench_agent.mqttsn import codec
from iotsecbench_agent.mqttsn.gateway import Gateway
from iotsecbench_agent.runners import RunClock, RunContext
from iotsecbench_agent.runners.mqtt_roundtrip import filler_for, payload_of
from iotsecbench_agent.runners.mqttsn_roundtrip import MqttSnRoundTripRunner
from iotsecbench_agent.security import blockmodes, registry
from iotsecbench_agent.storage.recordlog import DECRYPT_ERROR, LOST, OK, Record
from mqttsn_kit import UdpTap, run_sn_broker
from testkit import BLACKHOLE_PREFIX, Broker

pytestmark = pytest.mark.integration

DEVICE = "6f1c1a52-3c1e-4a8e-9a57-1d0c2b7e9f10"
PREDEFINED_ID = 21
# TEST-ONLY keys: PRESENT-80 and LBlock take 80-bit keys, AES-128 a 128-bit one.
KEYS = {
    "present-80-cbc": bytes(range(10)),
    "lblock-cbc": bytes(range(10, 20)),
    "aes-128-cbc": bytes(range(16)),
}


@pytest.fixture(scope="module")
def sn_broker() -> Iterator[Broker]:
    yield from run_sn_broker()


@pytest.fixture
def gateway(sn_broker: Broker) -> Iterator[Gateway]:
    """An external gateway (as a job's spec.mqttsn_gateway names one)."""
    gw = Gateway(parse_mqtt_url(sn_broker.url), port=0)
    gw.start()
    yield gw
    gw.close()


@pytest.fixture
def tap(gateway: Gateway) -> Iterator[UdpTap]:
    relay = UdpTap(gateway.address)
    yield relay
    relay.close()


def spec(broker: Broker, **overrides: Any) -> dict[str, Any]:
    return {
        "protocol": "mqttsn",
        "measurement": "round_trip",
        "qos": 0,
        "topic_id_type": "normal",
        "topic": f"iotsecbench/sn/{uuid.uuid4()}",
        "security": "none",
        "payload_size": 66,
        "message_count": 20,
        "interval_ms": 0,
        "timeout_ms": 2000,
        "broker_url": broker.url,
        **overrides,
    }


def context(stop: threading.Event | None = None) -> tuple[RunContext, list[Record]]:
    records: list[Record] = []
    return (
        RunContext(
            run_id=str(uuid.uuid4()),
            device_id=DEVICE,
            clock=RunClock(),
            emit=records.append,
            stop=stop or threading.Event(),
        ),
        records,
    )


def run(job_spec: dict[str, Any], stop: threading.Event | None = None) -> list[Record]:
    ctx, records = context(stop)
    runner_for("messaging", job_spec)(job_spec, ctx).execute()
    return records


def publishes(datagrams: list[bytes]) -> list[tuple[bytes, codec.Publish]]:
    """The PUBLISH datagrams among those a client sent, decoded."""
    decoded = [(d, codec.decode(d)) for d in datagrams]
    return [(d, m) for d, m in decoded if isinstance(m, codec.Publish)]


@pytest.mark.parametrize(
    ("qos", "kind", "topic"),
    [
        (-1, "short", "q1"),
        (-1, "predefined", None),
        (0, "normal", None),
        (0, "short", "q2"),
        (0, "predefined", None),
        (1, "normal", None),
        (1, "short", "q3"),
    ],
)
def test_roundtrip_records_every_message_ok_through_a_local_gateway(
    sn_broker: Broker,
    caplog: pytest.LogCaptureFixture,
    qos: int,
    kind: str,
    topic: str | None,
) -> None:
    overrides: dict[str, Any] = {"qos": qos, "topic_id_type": kind}
    if topic is not None:
        overrides["topic"] = topic
    if kind == "predefined":
        overrides["mqttsn_topic_id"] = PREDEFINED_ID
    caplog.set_level(logging.INFO, logger="iotsecbench_agent.runners.mqttsn_roundtrip")

    records = run(spec(sn_broker, **overrides))

    assert [r.seq for r in records] == list(range(20))
    assert {r.outcome for r in records} == {OK}
    assert all(r.t_recv_ns is not None and r.t_recv_ns > r.t_send_ns for r in records)
    assert {r.app_bytes for r in records} == {66}
    # Length(1) + MsgType + Flags + TopicId(2) + MsgId(2) + 66 octets of Data.
    assert {r.wire_bytes for r in records} == {7 + 66}
    # security none: no mechanism, so no floor under it
    assert {(r.floor_secure_ns, r.floor_unsecure_ns) for r in records} == {(None, None)}
    assert "agent.mqttsn_local_gateway" in caplog.text  # the runner says it started one


@pytest.mark.parametrize(("qos", "size", "count"), [(0, 1, 260), (1, 1, 5), (1, 7, 5)])
def test_roundtrip_carries_payloads_shorter_than_the_seq_as_the_seq_modulo_256_to_the_n(
    sn_broker: Broker, tap: UdpTap, qos: int, size: int, count: int
) -> None:
    job_spec = spec(
        sn_broker, qos=qos, payload_size=size, message_count=count, mqttsn_gateway=tap.spec_value
    )
    records = run(job_spec)

    assert [r.seq for r in records] == list(range(count))
    assert {r.outcome for r in records} == {OK}
    assert {r.app_bytes for r in records} == {size}
    # Length(1) + MsgType + Flags + TopicId(2) + MsgId(2) + the payload.
    assert {r.wire_bytes for r in records} == {7 + size}
    sent = [message.data for _datagram, message in publishes(tap.datagrams())]
    assert sent == [(seq % 256**size).to_bytes(size, "big") for seq in range(count)]


def test_roundtrip_publishes_from_a_socket_that_never_connects_at_qos_minus_1(
    sn_broker: Broker, tap: UdpTap
) -> None:
    records = run(
        spec(
            sn_broker,
            qos=-1,
            topic_id_type="short",
            topic="m5",
            message_count=3,
            mqttsn_gateway=tap.spec_value,
        )
    )

    assert {r.outcome for r in records} == {OK}
    sent = [codec.decode(d) for d in tap.datagrams()]
    connects = [m for m in sent if isinstance(m, codec.Connect)]
    pubs = [m for m in sent if isinstance(m, codec.Publish)]
    assert len(connects) == 1  # the subscriber's; the PUBLISHes come from another socket
    assert [(p.qos, p.topic_id_type, p.topic_id, p.msg_id) for p in pubs] == [
        (-1, codec.TOPIC_SHORT, codec.short_topic_id("m5"), 0)
    ] * 3


@pytest.mark.parametrize(
    ("mechanism", "iv_bytes"),
    [
        ("present-80-cbc", 8),
        ("lblock-cbc", 8),
        ("aes-128-cbc", 16),
    ],
)
def test_roundtrip_publish_data_is_the_iv_then_the_cbc_ciphertext_on_the_wire(
    sn_broker: Broker, tap: UdpTap, mechanism: str, iv_bytes: int
) -> None:
    key = KEYS[mechanism]
    records = run(
        spec(
            sn_broker,
            qos=1,
            security=mechanism,
            security_key=key.hex(),
            message_count=5,
            mqttsn_gateway=tap.spec_value,
        )
    )

    assert {r.outcome for r in records} == {OK}
    sent = publishes(tap.datagrams())
    assert len(sent) == 5
    padded = 72 if iv_bytes == 8 else 80  # PKCS#7 of 66 bytes to 8- or 16-byte blocks
    for (datagram, publish), record in zip(sent, records):
        data = publish.data
        payload = payload_of(record.seq, filler_for(66))
        assert len(data) == iv_bytes + padded
        iv, ciphertext = data[:iv_bytes], data[iv_bytes:]
        assert ciphertext == blockmodes.encrypt(mechanism, "cbc", key, payload, iv)
        # wire_bytes is the datagram that carried the PUBLISH, counted at the socket.
        assert record.wire_bytes == len(datagram) == 7 + iv_bytes + padded
    assert len({p.data[:iv_bytes] for _d, p in sent}) == 5  # a fresh IV per message
    assert registry.create(mechanism, key=key).unsecure(sent[0][1].data) == payload_of(
        0, filler_for(66)
    )


@pytest.mark.parametrize("mechanism", ["xtea-cbc", "null"])
def test_roundtrip_records_the_harness_floor_beside_every_message_when_secured(
    sn_broker: Broker, mechanism: str
) -> None:
    records = run(spec(sn_broker, qos=0, security=mechanism, message_count=10))

    assert {r.outcome for r in records} == {OK}
    for r in records:
        assert r.floor_secure_ns is not None
        assert r.floor_unsecure_ns is not None
        assert r.floor_secure_ns > 0
        assert r.floor_unsecure_ns > 0


def test_roundtrip_floors_only_securing_when_the_echo_is_lost(sn_broker: Broker) -> None:
    # The test broker's ACL lets the gateway subscribe under blackhole/ but drops publishes.
    topic = f"{BLACKHOLE_PREFIX}{uuid.uuid4()}"
    records = run(spec(sn_broker, security="null", message_count=2, timeout_ms=50, topic=topic))

    assert {r.outcome for r in records} == {LOST}
    for r in records:
        # As unsecure_ns: nothing came back to unsecure, so no floor for it either.
        assert (r.unsecure_ns, r.floor_unsecure_ns) == (None, None)
        assert r.floor_secure_ns is not None
        assert r.floor_secure_ns > 0


def test_roundtrip_uses_the_three_octet_length_for_the_papers_1280_byte_payload(
    sn_broker: Broker,
) -> None:
    records = run(spec(sn_broker, qos=1, payload_size=1280, message_count=3))

    assert {r.outcome for r in records} == {OK}
    assert {r.wire_bytes for r in records} == {9 + 1280}


def test_roundtrip_carries_the_largest_payload_one_datagram_holds(sn_broker: Broker) -> None:
    records = run(spec(sn_broker, payload_size=MAX_PUBLISH_DATA, message_count=2))

    assert {r.outcome for r in records} == {OK}
    assert {r.wire_bytes for r in records} == {65507}


@pytest.mark.parametrize("qos", [0, 1])
def test_roundtrip_records_lost_when_the_broker_drops_the_publish(
    sn_broker: Broker, qos: int
) -> None:
    # The test broker's ACL lets the gateway subscribe under blackhole/ but drops publishes.
    records = run(
        spec(
            sn_broker,
            qos=qos,
            message_count=3,
            timeout_ms=50,
            topic=f"{BLACKHOLE_PREFIX}{uuid.uuid4()}",
        )
    )

    assert [(r.seq, r.outcome, r.t_recv_ns, r.unsecure_ns) for r in records] == [
        (0, LOST, None, None),
        (1, LOST, None, None),
        (2, LOST, None, None),
    ]
    assert {r.wire_bytes for r in records} == {7 + 66}  # written all the same


def test_roundtrip_records_lost_when_the_gateway_drops_datagrams(
    sn_broker: Broker, tap: UdpTap
) -> None:
    ctx, records = context()
    runner = MqttSnRoundTripRunner(
        spec(sn_broker, qos=1, message_count=3, timeout_ms=50, mqttsn_gateway=tap.spec_value),
        ctx,
    )
    runner.setup()
    try:
        tap.drop = True
        runner.run()
    finally:
        runner.cleanup()

    assert [r.outcome for r in records] == [LOST, LOST, LOST]
    assert {r.wire_bytes for r in records} == {7 + 66}


def test_roundtrip_records_lost_when_the_gateway_vanishes_during_the_run(
    sn_broker: Broker, tap: UdpTap
) -> None:
    ctx, records = context()
    runner = MqttSnRoundTripRunner(
        spec(sn_broker, message_count=3, timeout_ms=50, mqttsn_gateway=tap.spec_value), ctx
    )
    runner.setup()
    try:
        tap.close()  # gone without a word: the port answers ICMP port unreachable
        runner.run()
    finally:
        runner.cleanup()

    assert [r.outcome for r in records] == [LOST, LOST, LOST]
    assert {r.wire_bytes for r in records} == {7 + 66}


def test_roundtrip_fails_with_data_plane_error_when_the_gateway_disconnects_it(
    sn_broker: Broker,
) -> None:
    gw = Gateway(parse_mqtt_url(sn_broker.url), port=0)
    gw.start()
    host, port = gw.address
    ctx, records = context()
    runner = MqttSnRoundTripRunner(
        spec(sn_broker, message_count=3, timeout_ms=500, mqttsn_gateway=f"{host}:{port}"), ctx
    )
    try:
        runner.setup()
        gw.close()  # a gateway shutting down DISCONNECTs its clients (§6.12)
        with pytest.raises(DataPlaneError, match="gateway disconnected the client"):
            runner.run()
    finally:
        runner.cleanup()
        gw.close()

    # The round trip open when the DISCONNECT came is recorded lost before the run fails.
    assert [(r.seq, r.outcome) for r in records] == [(0, LOST)]


def test_roundtrip_fails_with_data_plane_error_when_no_gateway_listens(sn_broker: Broker) -> None:
    gw = Gateway(parse_mqtt_url(sn_broker.url), port=0)
    host, port = gw.address
    gw.close()  # the port was ours a moment ago; nothing listens on it now

    with pytest.raises(DataPlaneError, match=r"did not answer CONNECT \(nothing listens there\)"):
        run(spec(sn_broker, mqttsn_gateway=f"{host}:{port}"))


def test_roundtrip_records_decrypt_error_when_the_echo_does_not_decrypt(
    sn_broker: Broker, gateway: Gateway
) -> None:
    """A corrupted copy of the PUBLISH (its last octet cut, so the CBC ciphertext is no
    whole number of blocks) comes back as the echo."""
    tap = CuttingTap(gateway.address)
    try:
        records = run(
            spec(
                sn_broker,
                security="present-80-cbc",
                message_count=2,
                mqttsn_gateway=tap.spec_value,
            )
        )
    finally:
        tap.close()

    assert [r.outcome for r in records] == [DECRYPT_ERROR, DECRYPT_ERROR]
    assert all(r.t_recv_ns is not None and r.unsecure_ns is not None for r in records)


class CuttingTap(UdpTap):
    """Forwards every PUBLISH with its Data one octet short."""

    def _from_client(self, data: bytes, address: tuple[str, int]) -> None:
        message = codec.decode(data)
        if isinstance(message, codec.Publish):
            data = codec.encode(
                codec.Publish(
                    message.topic_id,
                    message.msg_id,
                    message.data[:-1],
                    qos=message.qos,
                    topic_id_type=message.topic_id_type,
                )
            )
        super()._from_client(data, address)


def test_roundtrip_stops_between_messages_when_stop_is_set(sn_broker: Broker) -> None:
    stop = threading.Event()
    stop.set()

    with pytest.raises(RunAborted):
        run(spec(sn_broker), stop=stop)


def test_roundtrip_waits_interval_between_messages_when_interval_set(sn_broker: Broker) -> None:
    records = run(spec(sn_broker, message_count=4, interval_ms=30))

    gaps = [b.t_send_ns - a.t_send_ns for a, b in zip(records, records[1:])]
    assert all(gap >= 30_000_000 for gap in gaps)


def test_runner_is_registered_for_protocol_mqttsn() -> None:
    job = {"protocol": "mqttsn", "measurement": "round_trip"}

    assert runner_for("messaging", job) is MqttSnRoundTripRunner


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"qos": 2}, "qos must be -1, 0 or 1"),
        ({"qos": True}, "qos must be -1, 0 or 1"),
        ({"qos": -1}, "topic_id_type must be short or predefined"),
        ({"topic_id_type": "long"}, "topic_id_type 'long' is not supported"),
        ({"topic_id_type": "short"}, "2-character short topic name"),
        ({"topic_id_type": "predefined"}, "mqttsn_topic_id must be an integer in 1..65534"),
        ({"topic_id_type": "predefined", "mqttsn_topic_id": 0}, "mqttsn_topic_id"),
        ({"mqttsn_topic_id": 3}, "mqttsn_topic_id is for topic_id_type predefined only"),
        ({"topic": "a/+"}, "without wildcards"),
        ({"mqttsn_gateway": "gateway"}, 'mqttsn_gateway must be "host:port"'),
        ({"mqttsn_gateway": "gw:70000"}, 'mqttsn_gateway must be "host:port"'),
        ({"broker_url": None}, "broker_url is missing"),
        ({"broker_url": "mqtts://127.0.0.1:8883"}, "mqtt:// brokers only"),
        ({"mqtt_version": "5"}, "mqtt_version must be 3.1.1"),
        ({"tls_version": "1.3"}, "tls_version is not supported by mqttsn"),
        ({"security": "aes-512-gcm"}, "security"),
        ({"payload_size": 0}, "payload_size"),
        ({"payload_size": MAX_PUBLISH_DATA + 1}, "payload_size"),
        (
            {"payload_size": MAX_PUBLISH_DATA, "security": "aes-128-cbc"},
            r"secured with aes-128-cbc is 65520 bytes: an MQTT-SN PUBLISH carries at most 65498",
        ),
    ],
)
def test_runner_rejects_spec_as_unsupported_when_fields_are_wrong(
    overrides: dict[str, Any], message: str
) -> None:
    bad = {
        "protocol": "mqttsn",
        "measurement": "round_trip",
        "topic": "iotsecbench/sn/x",
        "payload_size": 66,
        "message_count": 1,
        "interval_ms": 0,
        "timeout_ms": 100,
        "broker_url": "mqtt://127.0.0.1:1883",
        **overrides,
    }
    if bad["broker_url"] is None:
        del bad["broker_url"]

    with pytest.raises(JobSpecError, match=message):
        runner_for("messaging", bad).validate_spec(bad)


def test_runner_accepts_the_documented_job_without_a_broker_url_when_a_gateway_is_named() -> None:
    # The example of docs/control-plane.md §5.
    job = {
        "protocol": "mqttsn",
        "measurement": "round_trip",
        "qos": -1,
        "topic_id_type": "predefined",
        "mqttsn_topic_id": 1,
        "topic": "sensors/t1",
        "mqttsn_gateway": "192.0.2.10:1884",
        "security": "present-80-cbc",
        "payload_size": 66,
        "message_count": 500,
        "interval_ms": 0,
        "timeout_ms": 2000,
    }

    runner_for("messaging", job).validate_spec(job)
