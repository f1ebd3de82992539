"""The SRUP round-trip runner against a real Mosquitto over TLS with client certificates
(integration): round trips, wire bytes, and what a receiver does with a replayed message
and with a message of which one bit was flipped.

The attackers are real MQTT clients of the same broker, holding the test client
certificate: TLS keeps outsiders off the broker, and SRUP's signatures and sequence IDs
are what stops an insider (or a faulty device) whose messages reach the receiver. A
scripted device (``srup_peer: external``) makes the order deterministic: it answers chosen
requests with a captured reply or a reply with a flipped bit, instead of a genuine one.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from Crypto.PublicKey.ECC import EccKey
from iotsecbench_contract.errors import JobSpecError
from paho.mqtt.enums import CallbackAPIVersion

from iotsecbench_agent.jobkinds import runner_for
from iotsecbench_agent.links.mqtt_wire import publish_packet_size
from iotsecbench_agent.platform.api import PlatformApi, RetryPolicy
from iotsecbench_agent.platform.controlplane import Topics
from iotsecbench_agent.platform.events import EventPublisher
from iotsecbench_agent.platform.jobs import JobVerifier, SeqStore
from iotsecbench_agent.platform.progress import Progress
from iotsecbench_agent.platform.uploader import Uploader
from iotsecbench_agent.runners import RunClock, RunContext
from iotsecbench_agent.runners.srup_roundtrip import SrupRoundTripRunner
from iotsecbench_agent.runtime.executor import JobExecutor
from iotsecbench_agent.srup import (
    Receiver,
    decode,
    encode_data,
    sender_of,
)
from iotsecbench_agent.srup.codec import TYPE_ACTION, TYPE_DATA
from iotsecbench_agent.srup.keys import SIGNATURE_BYTES
from iotsecbench_agent.storage.recordlog import (
    HEADER,
    OK,
    REJECTED_REPLAY,
    REJECTED_SIGNATURE,
    Record,
)
from srup_golden import CONTROLLER_ID, DEVICE_ID, KEYS
from test_srup_keys import Keys
from testkit import (
    TOKEN,
    WAIT_S,
    Broker,
    FakeControlPlane,
    FakePlatform,
    TlsBroker,
    make_job,
    sign_envelope,
)

pytestmark = pytest.mark.integration

DEVICE = "6f1c1a52-3c1e-4a8e-9a57-1d0c2b7e9f10"  # SRUP device ID: its first 64 bits
TOPIC = f"SRUP/{DEVICE_ID:016x}"
PAYLOAD = 66
# TLS record overhead with the AES-GCM suites OpenSSL picks here (see test_mqtt_tls.py).
RECORD_OVERHEAD = {"1.3": 5 + 1 + 16, "1.2": 5 + 8 + 16}


def srup_message_size(signature: str, *, data: int) -> int:
    """A data request's size by the format: header 18, token 2 + 36, signature 2 + S,
    data ID 2 + 4 ("data"), data 2 + L."""
    return 18 + 2 + 36 + 2 + SIGNATURE_BYTES[signature] + 2 + 4 + 2 + data


def key_hex(party: str, signature: str) -> str:
    return (KEYS / f"{party}-{signature}.pem").read_bytes().hex()


def srup_spec(
    tls: TlsBroker, signature: str = "rsa-2048", listener: str = "1.3-client-cert", **overrides: Any
) -> dict[str, Any]:
    return {
        "protocol": "srup",
        "measurement": "round_trip",
        "mqtt_version": "3.1.1",
        "qos": 1,
        "payload_size": PAYLOAD,
        "message_count": 5,
        "interval_ms": 0,
        "timeout_ms": 2000,
        "broker_url": tls.url(listener),
        "tls_version": listener[:3],
        "ca_cert": tls.pki.pem("ca.crt"),
        "client_cert": tls.pki.pem("client.crt"),
        "client_key": tls.pki.pem("client.key"),
        "srup_signature": signature,
        "srup_controller_id": f"{CONTROLLER_ID:016x}",
        "srup_controller_key": key_hex("controller", signature),
        "srup_device_key": key_hex("device", signature),
        **overrides,
    }


def run(spec: dict[str, Any]) -> tuple[SrupRoundTripRunner, list[Record]]:
    records: list[Record] = []
    context = RunContext(
        run_id=str(uuid.uuid4()),
        device_id=DEVICE,
        clock=RunClock(),
        emit=records.append,
        stop=threading.Event(),
    )
    runner = runner_for("messaging", spec)(spec, context)
    assert isinstance(runner, SrupRoundTripRunner)
    runner.execute()
    return runner, records


class TlsClient:
    """A paho client of the test broker over TLS with the test client certificate,
    subscribed to the SRUP topic; ``handle`` gets every message's bytes (paho's thread)."""

    def __init__(self, tls: TlsBroker, handle: Callable[[bytes], None]) -> None:
        self.errors: list[BaseException] = []
        self._handle = handle
        self._client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"t-{uuid.uuid4()}")
        pki = tls.pki
        self._client.tls_set(
            ca_certs=pki.path("ca.crt"),
            certfile=pki.path("client.crt"),
            keyfile=pki.path("client.key"),
        )
        self._client.on_message = self._on_message
        subscribed = threading.Event()
        self._client.on_subscribe = lambda *args: subscribed.set()
        self._client.connect("127.0.0.1", tls.ports["1.3-client-cert"])
        self._client.loop_start()
        self._client.subscribe(TOPIC, qos=1)
        assert subscribed.wait(WAIT_S)

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            self._handle(bytes(msg.payload))
        except Exception as exc:  # noqa: BLE001 (paho's thread would end unseen; close() reports it)
            self.errors.append(exc)

    def publish(self, payload: bytes) -> None:
        self._client.publish(TOPIC, payload, qos=1)  # no wait: we may be in paho's thread

    def close(self) -> None:
        self._client.disconnect()
        self._client.loop_stop()
        assert not self.errors, self.errors


def check_round_trips(records: list[Record], count: int, app_bytes: int) -> None:
    assert [r.seq for r in records] == list(range(count))
    assert {r.outcome for r in records} == {OK}
    assert {r.app_bytes for r in records} == {app_bytes}
    for r in records:
        assert r.t_recv_ns is not None
        assert r.secure_ns is not None
        assert r.unsecure_ns is not None
        assert r.secure_ns > 0
        assert r.unsecure_ns > 0
        # t_send before signing, t_recv after verifying: the round trip holds both, and
        # the peer's verification and signing besides.
        assert r.t_recv_ns - r.t_send_ns > r.secure_ns + r.unsecure_ns
        # SRUP always signs, so every round trip has its harness floor beside it.
        assert r.floor_secure_ns is not None
        assert r.floor_unsecure_ns is not None
        assert r.floor_secure_ns > 0
        assert r.floor_unsecure_ns > 0


@pytest.mark.parametrize(
    ("signature", "listener"),
    [
        ("rsa-2048", "1.3-client-cert"),
        ("rsa-4096", "1.3-client-cert"),
        ("ed25519", "1.3-client-cert"),
        ("rsa-2048", "1.2-client-cert"),
    ],
)
def test_srup_round_trips_are_ok_and_wire_bytes_are_the_tls_records_when_run_over_tls(
    tls_broker: TlsBroker, signature: str, listener: str
) -> None:
    runner, records = run(srup_spec(tls_broker, signature, listener))

    assert runner.topic == TOPIC  # SRUP/<device id>, from the agent's device UUID
    check_round_trips(records, 5, PAYLOAD)
    # SRUP message + MQTT PUBLISH header (topic, packet id) + one TLS record's overhead.
    srup = srup_message_size(signature, data=PAYLOAD)
    mqtt_publish = publish_packet_size(topic=TOPIC, payload_size=srup, qos=1)
    assert mqtt_publish == srup + 1 + 2 + 2 + len(TOPIC) + 2
    assert {r.wire_bytes for r in records} == {mqtt_publish + RECORD_OVERHEAD[listener[:3]]}
    assert runner.peer_rejections == {}


def test_srup_action_requests_carry_the_papers_on_off_byte_when_message_is_action(
    tls_broker: TlsBroker,
) -> None:
    seen: list[bytes] = []
    observer = TlsClient(tls_broker, seen.append)
    try:
        _runner, records = run(
            srup_spec(tls_broker, srup_message="action", payload_size=1, message_count=3)
        )
        # The observer's copies arrive on its own connection, possibly after the run ended
        # (a loaded machine): three requests and three replies.
        deadline = time.monotonic() + WAIT_S
        while len(seen) < 6 and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        observer.close()

    check_round_trips(records, 3, 1)
    srup = 18 + 2 + 36 + 2 + 256 + 1  # the action message: one byte of type fields
    assert {r.wire_bytes for r in records} == {
        publish_packet_size(topic=TOPIC, payload_size=srup, qos=1) + RECORD_OVERHEAD["1.3"]
    }
    messages = [decode(wire) for wire in seen]
    requests = [m for m in messages if m.sender_id == CONTROLLER_ID]
    replies = [m for m in messages if m.sender_id == DEVICE_ID]
    assert [(m.msg_type, m.sequence_id, m.action) for m in requests] == [
        (TYPE_ACTION, 1, 0xFF),
        (TYPE_ACTION, 2, 0x00),
        (TYPE_ACTION, 3, 0xFF),
    ]
    assert [(m.msg_type, m.sequence_id, m.data) for m in replies] == [
        (TYPE_DATA, 1, b"\xff"),
        (TYPE_DATA, 2, b"\x00"),
        (TYPE_DATA, 3, b"\xff"),
    ]
    assert [m.token for m in replies] == [m.token for m in requests]


class ScriptedDevice:
    """The device end, scripted: a genuine reply to each request, except for the requests
    (by record seq) in ``plan``: "replay" sends instead the first reply it sent, as the
    broker delivered it back (captured from the wire); "flip" sends a genuine reply with
    one bit flipped (in the signature)."""

    def __init__(self, tls: TlsBroker, keys: Keys, signature: str, plan: dict[int, str]) -> None:
        self._receiver = Receiver({CONTROLLER_ID: keys["controller", signature].verifier})
        self._sign = keys["device", signature].require_signer("device").sign
        self._plan = plan
        self._sequence_id = 0
        self.captured: list[bytes] = []
        self.client = TlsClient(tls, self._on_message)

    def _on_message(self, wire: bytes) -> None:
        if sender_of(wire) == DEVICE_ID:
            self.captured.append(wire)  # our own reply, back from the broker
            return
        request = self._receiver.accept(wire)
        self._sequence_id += 1
        assert request.data is not None
        reply = encode_data(
            sequence_id=self._sequence_id,
            sender_id=DEVICE_ID,
            token=request.token,
            data_id=b"echo",
            data=request.data,
            sign=self._sign,
        )
        step = self._plan.get(request.sequence_id - 1)
        if step == "replay":
            reply = self.captured[0]
        elif step == "flip":
            flipped = bytearray(reply)
            flipped[len(flipped) // 2] ^= 0x10
            reply = bytes(flipped)
        self.client.publish(reply)


@pytest.mark.parametrize("signature", ["rsa-2048", "ed25519"])
def test_captured_and_replayed_reply_is_rejected_replay_and_flipped_bit_is_rejected_signature(
    tls_broker: TlsBroker, srup_keys: Keys, signature: str
) -> None:
    device = ScriptedDevice(tls_broker, srup_keys, signature, {2: "replay", 4: "flip"})
    try:
        _runner, records = run(
            srup_spec(tls_broker, signature, srup_peer="external", message_count=6)
        )
    finally:
        device.client.close()

    assert [r.outcome for r in records] == [
        OK,
        OK,
        REJECTED_REPLAY,  # verified, but its sequence ID (1) is not above the last (2)
        OK,
        REJECTED_SIGNATURE,  # one bit flipped
        OK,
    ]
    # A refused reply still ends the round trip: it was received and checked.
    assert all(r.t_recv_ns is not None and r.unsecure_ns for r in records)


def test_local_peer_refuses_a_replayed_and_a_tampered_request_when_an_insider_sends_them(
    tls_broker: TlsBroker,
) -> None:
    sent: list[bytes] = []

    def replay_first_request(wire: bytes) -> None:
        if sender_of(wire) != CONTROLLER_ID or sent:
            return
        tampered = bytearray(wire)
        tampered[-1] ^= 0x01  # the last byte of the payload
        sent.extend([wire, bytes(tampered)])
        attacker.publish(wire)  # captured and replayed as is
        attacker.publish(bytes(tampered))

    attacker = TlsClient(tls_broker, replay_first_request)
    try:
        runner, records = run(srup_spec(tls_broker, message_count=5, interval_ms=30))
    finally:
        attacker.close()

    assert len(sent) == 2
    # The controller skips requests (its own sender ID); the peer answered only genuine ones.
    check_round_trips(records, 5, PAYLOAD)
    assert runner.peer_rejections == {REJECTED_REPLAY: 1, REJECTED_SIGNATURE: 1}


@pytest.mark.parametrize("size", [1, 7, 8])
def test_srup_round_trips_over_plain_mqtt_with_generated_keys_when_none_are_given(
    broker: Broker, size: int
) -> None:
    spec = {
        "protocol": "srup",
        "measurement": "round_trip",
        "qos": 0,
        "payload_size": size,
        "message_count": 3,
        "interval_ms": 0,
        "timeout_ms": 2000,
        "broker_url": broker.url,
        "srup_signature": "ed25519",
    }
    runner, records = run(spec)

    check_round_trips(records, 3, size)
    srup = srup_message_size("ed25519", data=size)
    assert {r.wire_bytes for r in records} == {
        publish_packet_size(topic=runner.topic, payload_size=srup, qos=0)
    }


def test_srup_signing_costs_more_than_its_harness_floor_when_messages_are_signed(
    broker: Broker,
) -> None:
    spec = {
        "protocol": "srup",
        "measurement": "round_trip",
        "qos": 0,
        "payload_size": PAYLOAD,
        "message_count": 5,
        "interval_ms": 0,
        "timeout_ms": 2000,
        "broker_url": broker.url,
        "srup_signature": "ed25519",
    }
    _runner, records = run(spec)

    check_round_trips(records, 5, PAYLOAD)
    # An Ed25519 signature (tens of µs) against a copy into a frame (well under one).
    assert all((r.secure_ns or 0) > (r.floor_secure_ns or 0) for r in records)
    assert all((r.unsecure_ns or 0) > (r.floor_unsecure_ns or 0) for r in records)


def test_executor_runs_and_uploads_a_signed_srup_job_when_the_platform_sends_one(
    platform: FakePlatform, tmp_path: Path, key: EccKey, broker: Broker
) -> None:
    transport = FakeControlPlane()
    fast = RetryPolicy(attempts=2, base_delay_s=0.01)
    api = PlatformApi(server_url=platform.url, api_token=TOKEN, retry=fast)
    executor = JobExecutor(
        state_dir=tmp_path,
        device_id=DEVICE,
        api=api,
        uploader=Uploader(api, device_id=DEVICE, retry=fast),
        events=EventPublisher(transport, Topics(f"iotsecbench/agents/{DEVICE}")),
        progress=Progress(),
        stop=threading.Event(),
    )
    run_id = str(uuid.uuid4())
    raw = make_job(
        device_id=DEVICE,
        seq=1,
        run_id=run_id,
        broker_url=broker.url,
        upload_url=platform.records_url(run_id),
        protocol="srup",
        srup_signature="ed25519",
        message_count=4,
    )
    del raw["spec"]["topic"]  # SRUP's topic is SRUP/<device id>
    verifier = JobVerifier(
        public_key=key.public_key().export_key(format="raw"),
        device_id=DEVICE,
        seq_store=SeqStore(tmp_path),
    )

    executor.execute(verifier.accept(sign_envelope(key, raw)))

    assert transport.on("/events") == []  # no job_failed
    (chunk,) = platform.to(f"/api/agent/runs/{run_id}/records/")
    header, *lines = chunk.body.decode().splitlines()
    assert header == HEADER
    assert [line.split(",")[5] for line in lines] == [OK] * 4
    srup = srup_message_size("ed25519", data=PAYLOAD)
    assert {int(line.split(",")[4]) for line in lines} == {
        publish_packet_size(topic=TOPIC, payload_size=srup, qos=1)
    }


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"srup_signature": "rsa-1024"}, "srup_signature 'rsa-1024' is not supported"),
        ({"srup_message": "action"}, "payload_size must be an integer in 1..1"),
        ({"payload_size": 0}, r"payload_size must be an integer in 1\.\.65535"),
        ({"payload_size": 65536}, r"payload_size must be an integer in 1\.\.65535"),
        ({"topic": "SRUP/x"}, "topic is not used"),
        ({"security": "aes-128-gcm"}, "security must be none"),
        ({"srup_peer": "external", "srup_device_key": None}, "srup_device_key are required"),
        ({"srup_controller_id": "12345"}, "16 hex digits"),
        ({"srup_controller_id": f"{DEVICE_ID:016x}"}, "different IDs"),
        ({"srup_device_key": "zz"}, "hex string"),
        ({"srup_device_key": key_hex("device", "rsa-4096")}, "2048-bit RSA key, got 4096"),
        ({"tls_version": "1.1"}, "tls_version"),
    ],
)
def test_srup_runner_refuses_the_job_when_a_field_is_bad(
    tls_broker: TlsBroker, overrides: dict[str, Any], message: str
) -> None:
    spec = {k: v for k, v in {**srup_spec(tls_broker), **overrides}.items() if v is not None}

    with pytest.raises(JobSpecError, match=message):
        run(spec)
