"""Security mechanisms applied by the MQTT round-trip runner, against a real Mosquitto.

Corruption in transit is real: a TCP proxy between the runner and the broker flips the
last byte of every PUBLISH the broker delivers, so the mechanism's own tag or signature
check has to catch it.
"""

from __future__ import annotations

import socket
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from Crypto.Cipher import AES
from Crypto.PublicKey.ECC import EccKey

from iotsecbench_agent.errors import UnsupportedJob
from iotsecbench_agent.jobkinds import runner_for
from iotsecbench_agent.links.mqtt_wire import publish_packet_size
from iotsecbench_agent.platform.api import PlatformApi, RetryPolicy
from iotsecbench_agent.platform.controlplane import Topics
from iotsecbench_agent.platform.events import EventPublisher
from iotsecbench_agent.platform.jobs import JobVerifier, SeqStore
from iotsecbench_agent.platform.progress import Progress
from iotsecbench_agent.platform.uploader import Uploader
from iotsecbench_agent.runners import RunClock, RunContext
from iotsecbench_agent.runners.timing import HarnessFloor
from iotsecbench_agent.runtime.executor import JobExecutor
from iotsecbench_agent.security import registry
from iotsecbench_agent.storage.recordlog import (
    DECRYPT_ERROR,
    HEADER,
    LOST,
    OK,
    REJECTED_SIGNATURE,
    Record,
)
from testkit import (
    BLACKHOLE_PREFIX,
    TOKEN,
    Broker,
    FakeControlPlane,
    FakePlatform,
    Observer,
    make_job,
    sign_envelope,
)

pytestmark = pytest.mark.integration

DEVICE = "6f1c1a52-3c1e-4a8e-9a57-1d0c2b7e9f10"
PAYLOAD = 66  # the MQTT/CoAP paper's payload size


def spec(broker_url: str, **overrides: Any) -> dict[str, Any]:
    run_id = str(uuid.uuid4())
    return {
        "protocol": "mqtt",
        "mqtt_version": "3.1.1",
        "qos": 1,
        "security": "none",
        "payload_size": PAYLOAD,
        "message_count": 20,
        "interval_ms": 0,
        "measurement": "round_trip",
        "timeout_ms": 2000,
        "broker_url": broker_url,
        "topic": f"iotsecbench/data/{run_id}/{DEVICE}",
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


@pytest.mark.parametrize("mechanism", ["aes-128-cbc", "ed25519", "null", "none"])
def test_roundtrip_records_security_times_and_overhead_when_mechanism_is_applied(
    broker: Broker, mechanism: str
) -> None:
    job_spec = spec(broker.url, security=mechanism)
    records = run(job_spec)

    overhead = registry.describe(mechanism).overhead(PAYLOAD)
    assert [r.seq for r in records] == list(range(20))
    assert {r.outcome for r in records} == {OK}
    assert {r.app_bytes for r in records} == {PAYLOAD}
    assert {r.wire_bytes for r in records} == {
        publish_packet_size(topic=job_spec["topic"], payload_size=PAYLOAD + overhead, qos=1)
    }
    for r in records:
        assert r.secure_ns is not None
        assert r.unsecure_ns is not None
        assert r.secure_ns > 0
        assert r.unsecure_ns > 0
        assert r.t_recv_ns is not None
        # t_send before securing, t_recv after unsecuring: the RTT contains both.
        assert r.t_recv_ns - r.t_send_ns > r.secure_ns + r.unsecure_ns


@pytest.mark.parametrize("mechanism", ["aes-128-cbc", "null"])
def test_roundtrip_records_the_harness_floor_of_every_message_after_its_round_trip(
    broker: Broker, mechanism: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # When the floor is measured, on the runner's own clock: after each message's t_recv.
    measured_at: list[int] = []
    measure = HarnessFloor.measure

    def spy(floor: HarnessFloor, payload: bytes, *, echoed: bool) -> tuple[int, int | None]:
        measured_at.append(time.perf_counter_ns())
        return measure(floor, payload, echoed=echoed)

    monkeypatch.setattr(HarnessFloor, "measure", spy)
    records: list[Record] = []
    clock = RunClock()
    job_spec = spec(broker.url, security=mechanism)
    context = RunContext(
        run_id=str(uuid.uuid4()),
        device_id=DEVICE,
        clock=clock,
        emit=records.append,
        stop=threading.Event(),
    )
    runner_for("messaging", job_spec)(job_spec, context).execute()

    assert {r.outcome for r in records} == {OK}
    assert len(measured_at) == len(records) == 20
    for r, at in zip(records, measured_at):
        assert r.floor_secure_ns is not None
        assert r.floor_unsecure_ns is not None
        assert r.floor_secure_ns > 0
        assert r.floor_unsecure_ns > 0
        assert r.t_recv_ns is not None
        assert clock.wall_ns(at) > r.t_recv_ns  # outside the timed round trip


def test_roundtrip_leaves_the_floor_empty_when_the_run_has_no_mechanism(broker: Broker) -> None:
    records = run(spec(broker.url, security="none", message_count=5))

    assert {r.outcome for r in records} == {OK}
    assert {(r.floor_secure_ns, r.floor_unsecure_ns) for r in records} == {(None, None)}


def test_roundtrip_floors_only_securing_when_the_echo_is_lost(broker: Broker) -> None:
    # The test broker's ACL lets us subscribe under blackhole/ but drops our publishes.
    topic = f"{BLACKHOLE_PREFIX}{uuid.uuid4()}"
    records = run(spec(broker.url, security="null", message_count=3, timeout_ms=50, topic=topic))

    assert {r.outcome for r in records} == {LOST}
    for r in records:
        # As unsecure_ns: nothing came back to unsecure, so no floor for it either.
        assert (r.unsecure_ns, r.floor_unsecure_ns) == (None, None)
        assert r.floor_secure_ns is not None
        assert r.floor_secure_ns > 0


def test_roundtrip_encrypts_with_job_key_when_security_key_is_given(broker: Broker) -> None:
    key = bytes(range(16))
    job_spec = spec(broker.url, security="aes-128-gcm", security_key=key.hex(), message_count=5)
    observer = Observer(broker, job_spec["topic"])
    try:
        records = run(job_spec)
        observer.wait_for(lambda o: len(o.messages) >= 5, what="5 published frames")
    finally:
        observer.close()

    assert {r.outcome for r in records} == {OK}
    for seq, (_topic, wire, _retained) in enumerate(observer.messages[:5]):
        nonce, body, tag = wire[:12], wire[12:-16], wire[-16:]
        plain = AES.new(key, AES.MODE_GCM, nonce=nonce).decrypt_and_verify(body, tag)
        assert int.from_bytes(plain[:8], "big") == seq
        assert len(plain) == PAYLOAD


class TamperProxy:
    """TCP proxy to the broker that flips the last byte of each PUBLISH it delivers."""

    def __init__(self, broker: Broker) -> None:
        self._upstream = ("127.0.0.1", broker.port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self.tampered = 0
        self._sockets: list[socket.socket] = [self._listener]
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            server = socket.create_connection(self._upstream)
            for sock in (client, server):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self._sockets.append(sock)
            threading.Thread(target=self._forward, args=(client, server), daemon=True).start()
            threading.Thread(target=self._tamper, args=(server, client), daemon=True).start()

    @staticmethod
    def _forward(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass

    def _tamper(self, src: socket.socket, dst: socket.socket) -> None:
        buf = bytearray()
        try:
            while data := src.recv(65536):
                buf += data
                while (size := _complete_packet_size(buf)) is not None:
                    packet = bytearray(buf[:size])
                    del buf[:size]
                    if packet[0] >> 4 == 3:  # PUBLISH: corrupt the payload's last byte
                        packet[-1] ^= 0x01
                        self.tampered += 1
                    dst.sendall(packet)
        except OSError:
            pass

    def close(self) -> None:
        for sock in self._sockets:
            sock.close()


def _complete_packet_size(buf: bytearray) -> int | None:
    remaining, shift = 0, 0
    for i in range(1, 5):
        if i >= len(buf):
            return None
        remaining |= (buf[i] & 0x7F) << shift
        shift += 7
        if not buf[i] & 0x80:
            size = 1 + i + remaining
            return size if len(buf) >= size else None
    raise AssertionError("malformed remaining length")


@pytest.fixture
def tamper(broker: Broker) -> Iterator[TamperProxy]:
    proxy = TamperProxy(broker)
    yield proxy
    proxy.close()


@pytest.mark.parametrize(
    ("mechanism", "outcome"),
    [("aes-128-gcm", DECRYPT_ERROR), ("ed25519", REJECTED_SIGNATURE)],
)
def test_roundtrip_counts_corrupted_echo_as_refused_when_tampered_in_transit(
    tamper: TamperProxy, mechanism: str, outcome: str
) -> None:
    records = run(spec(tamper.url, security=mechanism, message_count=10, qos=0))

    assert tamper.tampered >= 10
    assert [(r.seq, r.outcome) for r in records] == [(seq, outcome) for seq in range(10)]
    for r in records:
        assert r.t_recv_ns is not None
        assert r.t_recv_ns > r.t_send_ns
        assert r.unsecure_ns is not None
        assert r.unsecure_ns > 0
        # A refused echo was still unsecured: its floor is measured too.
        assert r.floor_unsecure_ns is not None
        assert r.floor_unsecure_ns > 0


def test_roundtrip_fails_setup_as_unsupported_when_key_length_is_wrong(broker: Broker) -> None:
    with pytest.raises(UnsupportedJob, match="needs a 16-byte key"):
        run(spec(broker.url, security="aes-128-cbc", security_key="00" * 15))


def test_executor_reports_job_failed_when_security_is_unknown(
    platform: FakePlatform, tmp_path: Path, key: EccKey, broker: Broker
) -> None:
    transport = FakeControlPlane()
    executor, job = _executor_and_job(platform, tmp_path, key, transport, broker, "rot13")
    executor.execute(job)

    (event,) = transport.on("/events")
    assert event["event"] == "job_failed"
    assert "security 'rot13' is not supported" in event["message"]


def test_executor_uploads_security_columns_when_run_is_secured(
    platform: FakePlatform, tmp_path: Path, key: EccKey, broker: Broker
) -> None:
    transport = FakeControlPlane()
    executor, job = _executor_and_job(platform, tmp_path, key, transport, broker, "aes-128-cbc")
    executor.execute(job)

    (chunk,) = platform.to(f"/api/agent/runs/{job.run_id}/records/")
    header, *lines = chunk.body.decode().splitlines()
    assert header == HEADER
    assert len(lines) == 5
    for line in lines:
        fields = line.split(",")
        assert fields[5] == OK
        assert int(fields[6]) > 0
        assert int(fields[7]) > 0
        # floor_secure_ns, floor_unsecure_ns: the null mechanism beside each message
        assert int(fields[8]) > 0
        assert int(fields[9]) > 0


def _executor_and_job(
    platform: FakePlatform,
    state_dir: Path,
    key: EccKey,
    transport: FakeControlPlane,
    broker: Broker,
    security: str,
) -> tuple[JobExecutor, Any]:
    fast = RetryPolicy(attempts=2, base_delay_s=0.01)
    api = PlatformApi(server_url=platform.url, api_token=TOKEN, retry=fast)
    executor = JobExecutor(
        state_dir=state_dir,
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
        message_count=5,
        security=security,
    )
    verifier = JobVerifier(
        public_key=key.public_key().export_key(format="raw"),
        device_id=DEVICE,
        seq_store=SeqStore(state_dir),
    )
    return executor, verifier.accept(sign_envelope(key, raw))
