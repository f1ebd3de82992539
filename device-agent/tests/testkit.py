"""Test doubles and real-peer helpers: signed jobs, a fake control plane, a fake platform
HTTP server (the true seam the agent talks to), a real Mosquitto, and an MQTT observer."""

from __future__ import annotations

import base64
import json
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

import paho.mqtt.client as mqtt
from Crypto.PublicKey import ECC
from Crypto.PublicKey.ECC import EccKey
from Crypto.Signature import eddsa
from paho.mqtt.enums import CallbackAPIVersion

from iotsecbench_agent.config import AgentState
from iotsecbench_agent.controlplane import MessageHandler

WAIT_S = 10.0
TOKEN = "device-secret-token-123"


# -- jobs ----------------------------------------------------------------------------


def new_key() -> EccKey:
    return ECC.generate(curve="Ed25519")


def public_key_b64(key: EccKey) -> str:
    return base64.b64encode(key.public_key().export_key(format="raw")).decode("ascii")


def sign_envelope(key: EccKey, job: dict[str, Any]) -> bytes:
    payload = json.dumps(job).encode("utf-8")
    signature = eddsa.new(key, "rfc8032").sign(payload)
    return json.dumps(
        {
            "alg": "ed25519",
            "payload": base64.b64encode(payload).decode("ascii"),
            "sig": base64.b64encode(signature).decode("ascii"),
        }
    ).encode("utf-8")


def make_job(
    *,
    device_id: str,
    seq: int,
    broker_url: str = "mqtt://127.0.0.1:1883",
    upload_url: str = "http://127.0.0.1:8000/api/agent/runs/x/records/",
    run_id: str | None = None,
    expires_in_s: float = 300.0,
    chunk_records: int = 5000,
    **spec: Any,
) -> dict[str, Any]:
    run_id = run_id or str(uuid.uuid4())
    now = time.time()
    return {
        "v": 1,
        "device_id": device_id,
        "seq": seq,
        "issued_at": now,
        "expires_at": now + expires_in_s,
        "job_id": str(uuid.uuid4()),
        "run_id": run_id,
        "kind": "messaging",
        "spec": {
            "protocol": "mqtt",
            "mqtt_version": "3.1.1",
            "qos": 1,
            "security": "none",
            "payload_size": 66,
            "message_count": 10,
            "interval_ms": 0,
            "measurement": "round_trip",
            "timeout_ms": 2000,
            "broker_url": broker_url,
            "topic": f"iotsecbench/data/{run_id}/{device_id}",
            **spec,
        },
        "upload": {"url": upload_url, "chunk_records": chunk_records},
    }


def make_state(
    *,
    key: EccKey,
    device_id: str | None = None,
    server_url: str = "http://127.0.0.1:9",
    mqtt_url: str = "mqtt://127.0.0.1:1883",
    api_token: str = TOKEN,
) -> AgentState:
    device_id = device_id or str(uuid.uuid4())
    return AgentState(
        server_url=server_url,
        device_id=device_id,
        api_token=api_token,
        mqtt_url=mqtt_url,
        job_public_key=public_key_b64(key),
        topic_prefix=f"iotsecbench/agents/{device_id}",
        name="test-device",
    )


# -- fake control plane ---------------------------------------------------------------


@dataclass
class Published:
    topic: str
    payload: bytes
    qos: int
    retain: bool

    def json(self) -> dict[str, Any]:
        data = json.loads(self.payload)
        assert isinstance(data, dict)
        return data


class FakeControlPlane:
    """Implements controlplane.ControlPlane in memory; records every publish."""

    def __init__(self, options: object = None) -> None:
        self.options = options
        self.published: list[Published] = []
        self.handlers: dict[str, MessageHandler] = {}
        self.connected = False

    def connect(self) -> None:
        self.connected = True

    def subscribe(self, topic: str, *, qos: int, handler: MessageHandler) -> None:
        self.handlers[topic] = handler

    def publish(
        self, topic: str, payload: bytes, *, qos: int, retain: bool = False, wait_s: float = 0.0
    ) -> bool:
        self.published.append(Published(topic, payload, qos, retain))
        return True

    def disconnect(self) -> None:
        self.connected = False

    def on(self, suffix: str) -> list[dict[str, Any]]:
        return [p.json() for p in self.published if p.topic.endswith(suffix)]


# -- fake platform ----------------------------------------------------------------------


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> dict[str, Any]:
        data = json.loads(self.body)
        assert isinstance(data, dict)
        return data


@dataclass
class FakePlatform:
    """The platform's agent API on a real local HTTP server.

    ``script`` maps a path prefix to statuses to answer first (e.g. [503, 503]); after that
    the endpoint behaves like the contract: records are stored once per Idempotency-Key.
    """

    server: ThreadingHTTPServer
    requests: list[Request] = field(default_factory=list)
    script: dict[str, list[int]] = field(default_factory=dict)
    chunks: dict[str, Request] = field(default_factory=dict)
    enroll_answer: dict[str, Any] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    changed: threading.Condition = field(init=False)

    def __post_init__(self) -> None:
        self.changed = threading.Condition(self.lock)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}"

    def records_url(self, run_id: str) -> str:
        return f"{self.url}/api/agent/runs/{run_id}/records/"

    def to(self, prefix: str) -> list[Request]:
        with self.lock:
            return [r for r in self.requests if r.path.startswith(prefix)]

    def wait_for(self, predicate: Callable[[], bool], timeout: float = WAIT_S) -> None:
        with self.changed:
            if not self.changed.wait_for(predicate, timeout):
                raise AssertionError("fake platform: condition not met in time")

    def handle(self, req: Request) -> tuple[int, dict[str, Any]]:
        with self.changed:
            self.requests.append(req)
            self.changed.notify_all()
            for prefix, statuses in self.script.items():
                if req.path.startswith(prefix) and statuses:
                    status = statuses.pop(0)
                    return status, {
                        "message": f"scripted {status}",
                        "code": "scripted",
                        "extra": {},
                    }
            if req.path == "/api/agent/enroll/":
                if req.json().get("token") != "good-token":
                    return 400, {
                        "message": "Invalid enrollment token.",
                        "code": "enrollment_token_invalid",
                        "extra": {},
                    }
                return 201, self.enroll_answer
            if req.headers.get("authorization") != f"Device {TOKEN}":
                return 401, {"message": "bad token", "code": "not_authenticated", "extra": {}}
            if req.path.endswith("/records/"):
                key = req.headers["idempotency-key"]
                index = int(req.headers["x-chunk-index"])
                records = max(0, req.body.decode().count("\n") - 1)
                duplicate = key in self.chunks
                if not duplicate:
                    self.chunks[key] = req
                status = 200 if duplicate else 201
                return status, {"chunk": index, "records": records, "duplicate": duplicate}
            return 200, {"ok": True}


def start_platform() -> FakePlatform:
    platform_ref: list[FakePlatform] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            req = Request(
                method="POST",
                path=self.path,
                headers={k.lower(): v for k, v in self.headers.items()},
                body=self.rfile.read(length),
            )
            status, body = platform_ref[0].handle(req)
            raw = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    platform = FakePlatform(server=server)
    platform_ref.append(platform)
    threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
    return platform


# -- a real mosquitto -------------------------------------------------------------------

# Publishing under this prefix is denied by the test broker's ACL (subscribing is allowed),
# so a round trip there never comes back: the way to make real messages "lost".
BLACKHOLE_PREFIX = "blackhole/"


def mosquitto_binary() -> str | None:
    found = shutil.which("mosquitto")
    if found:
        return found
    return "/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Broker:
    port: int
    process: subprocess.Popen[bytes]

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"


def run_mosquitto(binary: str) -> Iterator[Broker]:
    with tempfile.TemporaryDirectory() as tmp:
        # Started as root, mosquitto drops to its own user before reading the ACL file.
        Path(tmp).chmod(0o755)
        port = free_port()
        acl = Path(tmp, "acl")
        acl.write_text("topic readwrite iotsecbench/#\ntopic read blackhole/#\n")
        conf = Path(tmp, "mosquitto.conf")
        conf.write_text(
            f"listener {port} 127.0.0.1\n"
            "allow_anonymous true\n"
            "set_tcp_nodelay true\n"
            "persistence false\n"
            f"acl_file {acl}\n"
        )
        process = subprocess.Popen(
            [binary, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        try:
            deadline = time.monotonic() + WAIT_S
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    if process.poll() is not None or time.monotonic() > deadline:
                        stderr = process.stderr.read() if process.stderr else b""
                        raise RuntimeError(f"mosquitto did not start: {stderr!r}") from None
                    time.sleep(0.02)
            yield Broker(port=port, process=process)
        finally:
            process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            if process.stderr:
                process.stderr.close()


class Observer:
    """A plain paho client in the test that records what the agent publishes."""

    def __init__(self, broker: Broker, topic: str) -> None:
        self.messages: list[tuple[str, bytes, bool]] = []
        self._changed = threading.Condition()
        self._client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"obs-{uuid.uuid4()}")
        self._client.on_message = self._on_message
        subscribed = threading.Event()
        self._client.on_subscribe = lambda *args: subscribed.set()
        self._client.connect("127.0.0.1", broker.port)
        self._client.loop_start()
        self._client.subscribe(topic, qos=1)
        assert subscribed.wait(WAIT_S)

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        with self._changed:
            self.messages.append((msg.topic, bytes(msg.payload), bool(msg.retain)))
            self._changed.notify_all()

    def json_on(self, suffix: str) -> list[dict[str, Any]]:
        with self._changed:
            return [json.loads(p) for t, p, _r in self.messages if t.endswith(suffix)]

    def wait_for(
        self, predicate: Callable[[Observer], bool], timeout: float = WAIT_S, what: str = ""
    ) -> None:
        with self._changed:
            if not self._changed.wait_for(lambda: predicate(self), timeout):
                raise AssertionError(f"observer: timed out waiting for {what}: {self.messages}")

    def publish(self, topic: str, payload: bytes, qos: int = 1) -> None:
        self._client.publish(topic, payload, qos=qos).wait_for_publish(WAIT_S)

    def close(self) -> None:
        self._client.disconnect()
        self._client.loop_stop()
