"""The broker knows who is who (docs/architecture.md, "Security"): tried as an attacker on
the LAN would, with real MQTT clients against the e2e stack's Mosquitto.

Device A is e2e-agent-1, with the identity its agent made at enrollment (its own key, the
certificate the platform signed, its data-plane password); device B is e2e-agent-2.
"""

from __future__ import annotations

import base64
import json
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.reasoncodes import ReasonCode

from e2e.conftest import AGENTS, Product
from e2e.test_full_path import wait_run_finished

NOT_AUTHORIZED = 0x87
ACCEPTED = (0x00, 0x10)  # success; no matching subscribers
WAIT_S = 5.0


@dataclass
class Probe:
    """A paho MQTT 5 client that records what the broker answers."""

    client: mqtt.Client
    connack: ReasonCode | None = None
    subacks: list[list[int]] = field(default_factory=list)
    pubacks: dict[int, int] = field(default_factory=dict)
    messages: list[tuple[str, bytes]] = field(default_factory=list)
    answered: threading.Event = field(default_factory=threading.Event)

    def subscribe(self, topic: str) -> int:
        count = len(self.subacks)
        self.client.subscribe(topic, qos=1)
        _wait(lambda: len(self.subacks) > count)
        return self.subacks[-1][0]

    def publish(self, topic: str, payload: bytes) -> int:
        info = self.client.publish(topic, payload, qos=1)
        _wait(lambda: info.mid in self.pubacks)
        return self.pubacks[info.mid]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def _wait(check: Any, timeout: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.02)
    raise AssertionError("the broker did not answer")


def _connect(
    url: str,
    *,
    user: tuple[str, str] | None = None,
    tls: tuple[Path, Path | None, Path | None] | None = None,
) -> Probe:
    parts = urlsplit(url)
    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    probe = Probe(client)

    def on_connect(c: Any, u: Any, flags: Any, reason: ReasonCode, props: Any) -> None:
        probe.connack = reason
        probe.answered.set()

    client.on_connect = on_connect
    client.on_subscribe = lambda c, u, mid, codes, props: probe.subacks.append(
        [code.value for code in codes]
    )
    client.on_publish = lambda c, u, mid, reason, props: probe.pubacks.__setitem__(
        mid, reason.value
    )
    client.on_message = lambda c, u, m: probe.messages.append((m.topic, bytes(m.payload)))
    if user is not None:
        client.username_pw_set(*user)
    if tls is not None:
        ca, cert, key = tls
        client.tls_set(
            ca_certs=str(ca),
            certfile=str(cert) if cert else None,
            keyfile=str(key) if key else None,
        )
    client.connect(parts.hostname or "127.0.0.1", parts.port or 1883)
    client.loop_start()
    probe.answered.wait(WAIT_S)
    return probe


# MQTT 3.1.1 CONNECT, no user, empty client id, clean session, keep-alive 60 s.
ANONYMOUS_CONNECT = b"\x10\x0c\x00\x04MQTT\x04\x02\x00\x3c\x00\x00"


def tls_connack_without_certificate(host: str, port: int, ca_file: str | None = None) -> bytes:
    """What a TLS listener answers an anonymous CONNECT from a client without a certificate:
    b"" when it closes the connection (TLS 1.3: after the handshake, with a 'certificate
    required' alert). Without `ca_file` the server's certificate is not checked (what the
    server checks is the point)."""
    context = ssl.create_default_context(cafile=ca_file)
    if ca_file is None:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    with socket.create_connection((host, port), timeout=WAIT_S) as raw:
        try:
            with context.wrap_socket(raw, server_hostname=host) as tls:
                tls.sendall(ANONYMOUS_CONNECT)
                return tls.recv(4)
        except (ssl.SSLError, ConnectionError):
            return b""


@dataclass(frozen=True)
class Device:
    id: str
    state_dir: Path

    @property
    def data_user(self) -> tuple[str, str]:
        data = json.loads((self.state_dir / "mqtt-data.json").read_text())
        return data["username"], data["password"]

    def tls(self) -> tuple[Path, Path, Path]:
        d = self.state_dir
        return d / "mqtt-ca.crt", d / "mqtt-client.crt", d / "mqtt-client.key"


@pytest.fixture
def devices(product: Product) -> tuple[Device, Device]:
    online = {d["name"]: d["id"] for d in product.wait_devices_online()}
    a, b = (Device(online[name], product.stack.state_dir / "agents" / name) for name in AGENTS)
    return a, b


@pytest.fixture
def probes() -> Iterator[list[Probe]]:
    made: list[Probe] = []
    yield made
    for probe in made:
        probe.close()


def test_no_listener_accepts_an_anonymous_client(product: Product, probes: list[Probe]) -> None:
    env = product.stack.env
    plain = _connect(env["MQTT_DATA_URL"])
    probes.append(plain)
    assert plain.connack is not None
    assert plain.connack.is_failure  # "Not authorized"
    # The TLS listener wants a client certificate before MQTT starts: no CONNACK.
    tls = urlsplit(env["MQTT_URL"])
    answer = tls_connack_without_certificate(
        tls.hostname or "", tls.port or 8883, env["MQTT_TLS_CA_FILE"]
    )
    assert answer == b""
    # A data-plane password is refused where it is wrong.
    wrong = _connect(env["MQTT_DATA_URL"], user=("iotsecbench-platform-data", "guess"))
    probes.append(wrong)
    assert wrong.connack is not None
    assert wrong.connack.is_failure


def test_a_device_cannot_read_another_devices_jobs_nor_speak_for_it(
    product: Product, devices: tuple[Device, Device], probes: list[Probe]
) -> None:
    a, b = devices
    env = product.stack.env
    probe = _connect(env["MQTT_URL"], tls=a.tls())
    probes.append(probe)
    assert probe.connack is not None
    assert not probe.connack.is_failure

    assert probe.subscribe(f"iotsecbench/agents/{b.id}/jobs") == NOT_AUTHORIZED
    assert probe.subscribe("iotsecbench/agents/+/jobs") == NOT_AUTHORIZED
    assert probe.subscribe("#") == NOT_AUTHORIZED
    assert probe.subscribe(f"iotsecbench/agents/{a.id}/jobs") == 1  # its own: granted QoS 1

    far_future = json.dumps({"state": "offline", "ts": 32503680000}).encode()
    assert probe.publish(f"iotsecbench/agents/{b.id}/status", far_future) == NOT_AUTHORIZED
    heartbeat = json.dumps({"run_id": None, "sent": 1}).encode()
    assert probe.publish(f"iotsecbench/agents/{b.id}/heartbeat", heartbeat) == NOT_AUTHORIZED
    forged = json.dumps({"event": "job_failed", "job_id": "x", "message": "forged"}).encode()
    assert probe.publish(f"iotsecbench/agents/{b.id}/events", forged) == NOT_AUTHORIZED
    assert probe.publish(f"iotsecbench/data/any-run/{b.id}", b"x") == NOT_AUTHORIZED

    # The data-plane password (sent in clear on the plain listener) grants no control plane.
    data = _connect(env["MQTT_DATA_URL"], user=a.data_user)
    probes.append(data)
    assert data.connack is not None
    assert not data.connack.is_failure
    assert data.subscribe(f"iotsecbench/agents/{a.id}/jobs") == NOT_AUTHORIZED
    online = json.dumps({"state": "online", "ts": time.time()}).encode()
    assert data.publish(f"iotsecbench/agents/{a.id}/status", online) == NOT_AUTHORIZED
    # Its own data topic: accepted (0x10: accepted, nobody subscribed).
    assert data.publish(f"iotsecbench/data/any-run/{a.id}", b"x") in ACCEPTED

    time.sleep(0.5)  # had anything arrived at the platform, it would be applied by now
    assert {d["id"]: d["online"] for d in product.api("GET", "/api/devices/")} == {
        a.id: True,
        b.id: True,
    }


def test_a_forged_failure_cannot_fail_another_devices_run_and_no_job_holds_a_key(
    product: Product, devices: tuple[Device, Device], probes: list[Probe]
) -> None:
    """A TLS run on B while A, with its own certificate, forges B's job_failed; B's jobs as
    delivered (read with B's own identity) hold no private key."""
    a, b = devices
    env = product.stack.env
    # B's jobs as the broker delivers them, read beside B's agent with B's identity.
    watcher = _connect(env["MQTT_URL"], tls=b.tls())
    probes.append(watcher)
    assert watcher.subscribe(f"iotsecbench/agents/{b.id}/jobs") == 1
    attacker = _connect(env["MQTT_URL"], tls=a.tls())
    probes.append(attacker)

    experiment = product.api(
        "POST",
        "/api/experiments/",
        {
            "name": "e2e identities",
            "protocol": "mqtt",
            "transport": "tls1.3",
            "qos": 1,
            "security": "aes-128-cbc",
            "payload_size": 32,
            "message_count": 40,
            "interval_ms": 20,
            "device_ids": [b.id],
        },
    )
    run = product.api("POST", f"/api/experiments/{experiment['id']}/runs/")
    deadline = time.monotonic() + 30
    job_id = None
    while job_id is None and time.monotonic() < deadline:
        rows = product.sql(
            "SELECT job_id FROM experiments_rundevice WHERE run_id = %s AND job_id IS NOT NULL",
            run["id"],
        )
        job_id = str(rows[0][0]) if rows else None
        time.sleep(0.05)
    assert job_id is not None, "the run was never dispatched"
    forged = json.dumps({"event": "job_failed", "job_id": job_id, "message": "forged"})
    assert attacker.publish(f"iotsecbench/agents/{b.id}/events", forged.encode()) == (
        NOT_AUTHORIZED
    )

    finished = wait_run_finished(product, run["id"])
    assert finished["status"] == "done", finished["error"]
    stored = product.sql(
        "SELECT count(*) FROM measurements_messagerecord r JOIN experiments_rundevice rd"
        " ON rd.id = r.run_device_id WHERE rd.run_id = %s",
        run["id"],
    )
    assert stored[0][0] == 40

    envelopes = [payload for topic, payload in watcher.messages if topic.endswith("/jobs")]
    jobs = [base64.b64decode(json.loads(envelope)["payload"]) for envelope in envelopes]
    assert {json.loads(job)["kind"] for job in jobs} >= {"health_check", "messaging"}
    for job in jobs:
        assert b"PRIVATE KEY" not in job
        assert b"client_key" not in job
        assert b"password" not in job
