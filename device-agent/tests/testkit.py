"""Test doubles and real-peer helpers: signed jobs, a fake control plane, a fake platform
HTTP server (the true seam the agent talks to), a real Mosquitto, and an MQTT observer."""

from __future__ import annotations

import base64
import contextlib
import functools
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

from iotsecbench_agent.platform.controlplane import MessageHandler
from iotsecbench_agent.runtime.config import AgentState

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
    # Answers an enrollment request with an mqtt_identity (None: an anonymous broker).
    sign_csr: Callable[[dict[str, Any]], dict[str, Any]] | None = None
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
                if self.sign_csr is not None:  # the platform's broker identity for the CSR
                    return 201, {**self.enroll_answer, "mqtt_identity": self.sign_csr(req.json())}
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
# The one client allowed to publish there (it connects with this user name): a test's
# stand-in for a late or stray echo arriving while the agent's own never comes back.
INJECTOR_USER = "isb-injector"
# What the test broker's ACL allows anonymous clients (the agent): our own topics, SRUP's
# fixed SRUP/<device id>, and reading blackhole/; the injector may write blackhole/.
ACL = (
    "topic readwrite iotsecbench/#\ntopic readwrite SRUP/#\ntopic read blackhole/#\n"
    f"user {INJECTOR_USER}\ntopic readwrite blackhole/#\n"
)


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


def run_mosquitto(binary: str, extra_conf: Callable[[Path], str] | None = None) -> Iterator[Broker]:
    """A Mosquitto on a free port; ``extra_conf(tmpdir)`` adds config (more listeners)."""
    with tempfile.TemporaryDirectory() as tmp:
        # Started as root, mosquitto drops to its own user before reading the ACL file.
        Path(tmp).chmod(0o755)
        port = free_port()
        acl = Path(tmp, "acl")
        acl.write_text(ACL)
        conf = Path(tmp, "mosquitto.conf")
        conf.write_text(
            f"listener {port} 127.0.0.1\n"
            "allow_anonymous true\n"
            "set_tcp_nodelay true\n"
            "persistence false\n"
            f"acl_file {acl}\n" + (extra_conf(Path(tmp)) if extra_conf else "")
        )
        process = subprocess.Popen(
            [binary, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        try:
            wait_for_listener(process, "127.0.0.1", port)
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


def wait_for_listener(process: subprocess.Popen[bytes], host: str, port: int) -> None:
    """Until mosquitto accepts connections on ``host:port`` (it opens its listeners one by
    one, the TLS ones after loading their certificates); RuntimeError if it exits."""
    deadline = time.monotonic() + WAIT_S
    while True:
        try:
            socket.create_connection((host, port), timeout=0.2).close()
            return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                stderr = process.stderr.read() if process.stderr else b""
                raise RuntimeError(f"mosquitto did not start: {stderr!r}") from None
            time.sleep(0.02)


class Observer:
    """A plain paho client in the test that records what the agent publishes."""

    def __init__(self, broker: Broker, topic: str, *, username: str | None = None) -> None:
        self.messages: list[tuple[str, bytes, bool]] = []
        self._changed = threading.Condition()
        self._client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"obs-{uuid.uuid4()}")
        if username is not None:
            self._client.username_pw_set(username)
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


# -- TLS material and packet capture -------------------------------------------------------


@dataclass
class Pki:
    """A test CA and certificates made with the openssl CLI (PEM files in ``directory``)."""

    directory: Path

    def pem(self, name: str) -> str:
        return Path(self.directory, name).read_text()

    def path(self, name: str) -> str:
        return str(Path(self.directory, name))


def _openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)


def make_pki(directory: Path) -> Pki:
    """ca.crt/ca.key, a server certificate for 127.0.0.1/localhost signed by it, a client
    certificate signed by it, and an unrelated CA (other-ca.crt) for the wrong-CA case."""
    d = str(directory)
    for ca in ("ca", "other-ca"):
        _openssl(
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", f"{d}/{ca}.key", "-out", f"{d}/{ca}.crt", "-days", "2",
            "-subj", f"/CN=IoTSecBench test {ca}",
        )  # fmt: skip
    extensions = {
        "server": "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n",
        "client": "extendedKeyUsage=clientAuth\n",
    }
    for name, ext in extensions.items():
        Path(d, f"{name}.ext").write_text(ext)
        _openssl(
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", f"{d}/{name}.key", "-out", f"{d}/{name}.csr", "-subj", f"/CN={name}",
        )  # fmt: skip
        _openssl(
            "x509", "-req", "-in", f"{d}/{name}.csr", "-CA", f"{d}/ca.crt",
            "-CAkey", f"{d}/ca.key", "-CAcreateserial", "-days", "2",
            "-out", f"{d}/{name}.crt", "-extfile", f"{d}/{name}.ext",
        )  # fmt: skip
    for path in directory.iterdir():
        path.chmod(0o644)  # mosquitto drops to its own user before reading them
    return Pki(directory)


def tls_listener_conf(
    pki: Pki, port: int, version: str, require_cert: bool, address: str = "127.0.0.1"
) -> str:
    return (
        f"listener {port} {address}\n"
        f"cafile {pki.path('ca.crt')}\n"
        f"certfile {pki.path('server.crt')}\n"
        f"keyfile {pki.path('server.key')}\n"
        f"tls_version tlsv{version}\n"
        f"require_certificate {'true' if require_cert else 'false'}\n"
    )


@dataclass
class TlsBroker:
    """A Mosquitto with TLS listeners on a test CA (see ``tls_broker`` in conftest.py)."""

    broker: Broker
    pki: Pki
    ports: dict[str, int]  # listener name (e.g. "1.3-client-cert") -> port

    def url(self, listener: str) -> str:
        return f"mqtts://127.0.0.1:{self.ports[listener]}"


def run_tls_mosquitto(binary: str) -> Iterator[TlsBroker]:
    """TLS 1.2 and 1.3 listeners, with and without a required client certificate, and one
    on 127.0.0.2, a name the server certificate does not carry."""
    ports = {
        "1.2": free_port(),
        "1.3": free_port(),
        "1.2-client-cert": free_port(),
        "1.3-client-cert": free_port(),
        "1.3-wrong-host": free_port(),
    }
    made: list[Pki] = []

    def listeners(tmp: Path) -> str:
        directory = tmp / "pki"
        directory.mkdir(mode=0o755)
        pki = make_pki(directory)
        made.append(pki)
        return (
            tls_listener_conf(pki, ports["1.2"], "1.2", require_cert=False)
            + tls_listener_conf(pki, ports["1.3"], "1.3", require_cert=False)
            + tls_listener_conf(pki, ports["1.2-client-cert"], "1.2", require_cert=True)
            + tls_listener_conf(pki, ports["1.3-client-cert"], "1.3", require_cert=True)
            + tls_listener_conf(
                pki, ports["1.3-wrong-host"], "1.3", require_cert=False, address="127.0.0.2"
            )
        )

    for broker in run_mosquitto(binary, listeners):
        for name, port in ports.items():
            host = "127.0.0.2" if name == "1.3-wrong-host" else "127.0.0.1"
            wait_for_listener(broker.process, host, port)
        yield TlsBroker(broker=broker, pki=made[0], ports=ports)


def tshark_binary() -> str | None:
    return shutil.which("tshark")


class Capture:
    """``tshark -i lo`` on one TCP port, from before the traffic to after it.

    "Capturing on" on stderr comes before the capture really sees packets, so start and
    stop both wait for a probe connection to the port to show up in tshark's live output
    (``-P``): everything between the two probes is then in the file.
    """

    def __init__(self, port: int, directory: Path, *, capture_filter: str | None = None) -> None:
        """`capture_filter`: tshark's capture filter, "tcp port <port>" unless given."""
        binary = tshark_binary()
        assert binary is not None, "tshark not found: apt-get install tshark (make tshark)"
        self.binary = binary
        self.port = port
        self.file = Path(directory, f"capture-{port}.pcapng")
        self.file.touch()
        self.file.chmod(0o666)  # dumpcap may write as another user
        self._log = Path(directory, f"capture-{port}.log")
        self._lines = 0
        self._seen = threading.Condition()
        with self._log.open("wb") as log:
            self.process = subprocess.Popen(
                [
                    binary,
                    "-i",
                    "lo",
                    "-f",
                    capture_filter or f"tcp port {port}",
                    "-w",
                    str(self.file),
                    "-P",
                    "-l",
                ],
                stdout=subprocess.PIPE,
                stderr=log,
            )
        self._reader = threading.Thread(target=self._read_output, daemon=True)
        self._reader.start()
        try:
            self._probe()
        except AssertionError:
            self._terminate()
            raise

    def _more_than(self, lines: int) -> bool:
        return self._lines > lines

    def _read_output(self) -> None:
        assert self.process.stdout is not None
        for _line in self.process.stdout:
            with self._seen:
                self._lines += 1
                self._seen.notify_all()

    def _probe(self) -> None:
        deadline = time.monotonic() + 30
        while True:
            with self._seen:
                before = self._lines
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
            with self._seen:
                if self._seen.wait_for(functools.partial(self._more_than, before), timeout=0.5):
                    return
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"tshark is not capturing: {self._log.read_text()}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self._probe()  # the traffic before this probe has been captured
            self._terminate()

    def _terminate(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._reader.join(10)
        if self.process.stdout:
            self.process.stdout.close()

    def fields(
        self, *fields: str, display_filter: str = "", decode_as: str = ""
    ) -> list[list[str]]:
        """One row per frame: the values of ``fields`` (several values joined by ",").
        ``decode_as`` is tshark's ``-d`` (e.g. ``tcp.port==1234,mqtt``)."""
        args = [self.binary, "-r", str(self.file), "-T", "fields", "-E", "separator=\t"]
        if decode_as:
            args += ["-d", decode_as]
        if display_filter:
            args += ["-Y", display_filter]
        for name in fields:
            args += ["-e", name]
        out = subprocess.run(args, check=True, capture_output=True, text=True, timeout=60)
        return [line.split("\t") for line in out.stdout.splitlines()]
