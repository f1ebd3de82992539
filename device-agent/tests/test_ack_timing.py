"""Measurement ``ack`` (issue #19 point 4): publish → PUBACK / PUBCOMP against a real
Mosquitto, CON → ACK against the agent's own CoAP echo server and a raw RFC 7252 peer."""

from __future__ import annotations

import socket
import threading
import time
import uuid
from typing import Any

import pytest

from iotsecbench_agent.errors import DataPlaneError, UnsupportedJob
from iotsecbench_agent.jobkinds import runner_for
from iotsecbench_agent.links.mqtt_wire import publish_packet_size
from iotsecbench_agent.runners import RunClock, RunContext
from iotsecbench_agent.runners.coap_roundtrip import NON_HAS_NO_ACK
from iotsecbench_agent.runners.mqtt_ack import MqttAckRunner
from iotsecbench_agent.storage.recordlog import LOST, OK, Record
from test_coap_roundtrip import CON, RawCoapPeer
from testkit import BLACKHOLE_PREFIX, Broker, Observer

pytestmark = pytest.mark.integration

DEVICE = "6f1c1a52-3c1e-4a8e-9a57-1d0c2b7e9f10"
COUNT = 200


def mqtt_spec(broker: Broker, **overrides: Any) -> dict[str, Any]:
    return {
        "protocol": "mqtt",
        "mqtt_version": "3.1.1",
        "qos": 1,
        "security": "aes-128-gcm",
        "payload_size": 66,
        "message_count": COUNT,
        "interval_ms": 0,
        "measurement": "ack",
        "timeout_ms": 2000,
        "broker_url": broker.url,
        "topic": f"iotsecbench/data/{uuid.uuid4()}/{DEVICE}",
        **overrides,
    }


def coap_spec(**overrides: Any) -> dict[str, Any]:
    return {
        "protocol": "coap",
        "measurement": "ack",
        "security": "aes-128-gcm",
        "payload_size": 66,
        "message_count": COUNT,
        "interval_ms": 0,
        "timeout_ms": 2000,
        **overrides,
    }


def run(job_spec: dict[str, Any]) -> list[Record]:
    records: list[Record] = []
    context = RunContext(
        run_id=str(uuid.uuid4()),
        device_id=DEVICE,
        clock=RunClock(),
        emit=records.append,
        stop=threading.Event(),
    )
    runner_for("messaging", job_spec)(job_spec, context).execute()
    return records


def fastest_ns(records: list[Record]) -> int:
    """The fastest message: the least disturbed by other load on a shared machine (medians
    of two runs a second apart differ by more than an unsecure on a busy 2-CPU host)."""
    return min(r.t_recv_ns - r.t_send_ns for r in records if r.t_recv_ns)


def assert_complete_acks(records: list[Record]) -> None:
    assert [r.seq for r in records] == list(range(COUNT))
    assert {r.outcome for r in records} == {OK}
    assert all(r.t_recv_ns is not None and r.t_recv_ns > r.t_send_ns for r in records)
    # The payload was secured (aes-128-gcm), and nothing came back to unsecure.
    assert all(r.secure_ns is not None and r.secure_ns > 0 for r in records)
    assert all(r.floor_secure_ns is not None for r in records)
    assert {r.unsecure_ns for r in records} == {None}
    assert {r.floor_unsecure_ns for r in records} == {None}
    assert {r.app_bytes for r in records} == {66}


@pytest.mark.parametrize("qos", [1, 2])
def test_mqtt_ack_times_each_publish_until_its_ack_below_the_round_trip(
    broker: Broker, qos: int
) -> None:
    ack_spec = mqtt_spec(broker, qos=qos)
    # The round trip first (it warms the broker, the mechanism and paho for both). No
    # observer here: its paho thread in this process would compete for the GIL.
    round_trips = run({**ack_spec, "measurement": "round_trip"})
    acks = run(ack_spec)

    assert_complete_acks(acks)
    # wire_bytes is the PUBLISH that carried the secured payload (aes-128-gcm: + 28).
    assert {r.wire_bytes for r in acks} == {
        publish_packet_size(topic=ack_spec["topic"], payload_size=66 + 28, qos=qos)
    }
    assert {r.outcome for r in round_trips} == {OK}
    # The ack ends at the broker; the round trip goes on to the forwarded copy.
    assert fastest_ns(acks) < fastest_ns(round_trips)


def test_mqtt_ack_publishes_the_secured_payload(broker: Broker) -> None:
    ack_spec = mqtt_spec(broker, message_count=5)
    observer = Observer(broker, ack_spec["topic"])
    try:
        run(ack_spec)
        observer.wait_for(lambda o: len(o.messages) == 5, what="5 publishes")
    finally:
        observer.close()

    # aes-128-gcm: 12-byte nonce + 66 bytes + 16-byte tag reached the broker, not plaintext.
    payloads = [payload for _topic, payload, _retained in observer.messages]
    assert {len(p) for p in payloads} == {66 + 28}
    assert not any(seq.to_bytes(8, "big") in p for seq, p in enumerate(payloads))


def test_mqtt_ack_refuses_qos_0_naming_the_field(broker: Broker) -> None:
    with pytest.raises(UnsupportedJob, match=r"spec\.qos 0 has no acknowledgement"):
        MqttAckRunner.validate_spec(mqtt_spec(broker, qos=0))


def test_mqtt5_ack_with_a_refusal_reason_fails_the_run(broker: Broker) -> None:
    # The test broker's ACL denies publishing under blackhole/: MQTT 5 says so in PUBACK.
    job_spec = mqtt_spec(
        broker, mqtt_version="5", topic=f"{BLACKHOLE_PREFIX}{uuid.uuid4()}", message_count=3
    )
    with pytest.raises(DataPlaneError, match="the broker refused publish 0"):
        run(job_spec)


def test_coap_ack_times_each_con_until_its_piggybacked_ack() -> None:
    acks = run(coap_spec())

    assert_complete_acks(acks)
    # One CON and its piggybacked ACK per message: the request's bytes only.
    assert len({r.wire_bytes for r in acks}) == 1


class SeparateResponsePeer:
    """A CoAP server from RFC 7252 §5.2.2: an empty ACK at once, then the response
    (echoing the body) in its own CON ``delay_s`` later."""

    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.05)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"coap://127.0.0.1:{self.sock.getsockname()[1]}/echo"

    def _serve(self) -> None:
        mid = 0x5000
        while not self._stop.is_set():
            try:
                raw, address = self.sock.recvfrom(65535)
            except socket.timeout:
                continue
            if (raw[0] >> 4) & 0x3 != CON or raw[1] == 0:
                continue  # the client's ACK of our response
            tkl = raw[0] & 0x0F
            token = raw[4 : 4 + tkl]
            body = raw[raw.index(0xFF, 4 + tkl) + 1 :] if 0xFF in raw[4 + tkl :] else b""
            self.sock.sendto(bytes([0x60, 0x00]) + raw[2:4], address)  # empty ACK
            time.sleep(self.delay_s)
            mid += 1
            head = bytes([0x40 | tkl, 0x44]) + mid.to_bytes(2, "big")  # CON 2.04 Changed
            self.sock.sendto(head + token + b"\xff" + body, address)

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sock.close()


def test_coap_ack_of_a_separate_response_is_the_empty_ack_well_before_the_round_trip() -> None:
    peer = SeparateResponsePeer(delay_s=0.05)
    try:
        job = coap_spec(coap_url=peer.url, message_count=20)
        round_trips = run({**job, "measurement": "round_trip"})
        acks = run(job)
    finally:
        peer.close()

    assert {r.outcome for r in round_trips} == {OK}
    assert all(r.t_recv_ns - r.t_send_ns >= 50_000_000 for r in round_trips if r.t_recv_ns)
    assert [r.seq for r in acks] == list(range(20))
    assert {r.outcome for r in acks} == {OK}
    # The empty ACK came at once, the response 50 ms later: the ack times the former (the
    # median: one message may wait on a busy machine's scheduler).
    ack_ns = sorted(r.t_recv_ns - r.t_send_ns for r in acks if r.t_recv_ns)
    assert ack_ns[len(ack_ns) // 2] < 50_000_000 <= fastest_ns(round_trips)


def test_coap_ack_records_lost_when_no_ack_comes() -> None:
    peer = RawCoapPeer(answer=None)
    try:
        records = run(
            coap_spec(
                coap_url=peer.url,
                message_count=1,
                timeout_ms=300,
                coap_ack_timeout_ms=50,
                security="none",
            )
        )
    finally:
        peer.close()

    assert [(r.outcome, r.t_recv_ns) for r in records] == [(LOST, None)]
    # The CON and its retransmissions went out, all counted in the lost message's bytes.
    assert len(peer.received) >= 2
    assert {d.type for d in peer.received} == {CON}
    assert records[0].wire_bytes == sum(len(d.raw) for d in peer.received)


def test_coap_ack_refuses_non_confirmable_requests() -> None:
    with pytest.raises(UnsupportedJob, match="coap_type 'non'") as caught:
        run(coap_spec(coap_type="non"))
    assert str(caught.value) == NON_HAS_NO_ACK


def test_coap_ack_refuses_a_body_over_one_block() -> None:
    with pytest.raises(UnsupportedJob, match="use at most 36 bytes"):
        run(coap_spec(block_size=64, payload_size=60))
