"""Messaging: the device agent's MQTT round-trip runner against a bare paho-mqtt loop, and
its round trips by QoS, MQTT version, payload security and TLS.

    make bench                         # bench/ingest.py, bench/ciphers.py, then this
    .venv/bin/python bench/messaging.py [--quick]

Starts its own Mosquitto (/usr/sbin/mosquitto) on free loopback ports (``set_tcp_nodelay
true``, ``persistence false``; a TLS 1.3 listener too if device-agent/tests/testkit.py's
``make_pki`` can make certificates) and stops it at the end, also on errors. Then, in one
run so the figures are comparable on a shared, noisy machine:
  1. harness overhead: ``MqttRoundTripRunner`` driven directly (setup/run/cleanup, as the
     agent's executor does) for a QoS 1 round trip of 66-byte payloads, against a bare
     paho-mqtt 2 loop doing the same on the same broker: one client, TCP_NODELAY on its
     socket, subscribed to its own topic; per message ``perf_counter_ns``, ``publish``, then
     ``select`` + ``loop_read``/``loop_write`` in the same thread until ``on_message`` sets
     a ``threading.Event`` for its own seq. The agent's topic has the bare loop's shape and
     length (``iotsecbench/<4 letters>/<uuid>``, 53 bytes). Several rounds, the order
     alternating; the median round's p50/p95/p99 are reported, and the p50 ratio agent / bare.
  2. the agent's round trips for QoS 0/1/2, MQTT 5 QoS 1, QoS 1 with AES-128-CBC and
     Ed25519 payload security, QoS 1 over TLS 1.3 and SRUP (RSA-2048 and Ed25519 signed
     messages through the agent's SRUP runner with its local device peer; RSA-2048 over TLS
     1.3 too), and CoAP (the agent's CoAP runner, PUT to its own echo server on loopback,
     confirmable and non-confirmable, plain and AES-128-CBC), interleaved the same way;
     with the per-phase split (mean ``secure_ns``, ``unsecure_ns`` from the records,
     network = RTT - secure - unsecure; for SRUP the network part also holds the device
     peer's verifying and signing of the reply, for CoAP the echo server's handling).
Prints Markdown tables for docs/benchmarks.md. About 85 s; ``--quick`` about 7 s.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import gc
import importlib
import os
import platform
import select
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import paho.mqtt
import paho.mqtt.client as mqtt
from iotsecbench_agent.jobkinds import runner_for
from iotsecbench_agent.runners import RunClock, RunContext
from iotsecbench_agent.storage.recordlog import OK, Record
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode

REPO_DIR = Path(__file__).resolve().parent.parent
TESTS_DIR = REPO_DIR / "device-agent" / "tests"
MOSQUITTO = "/usr/sbin/mosquitto"
PAYLOAD_BYTES = 66
SEQ_BYTES = 8
DEVICE = "6f1c1a52-3c1e-4a8e-9a57-1d0c2b7e9f10"
WAIT_S = 10.0


@dataclass(frozen=True)
class Settings:
    rounds: int
    overhead_messages: int  # part 1, per way and round
    case_messages: int  # part 2, per case and round (Ed25519: a quarter)


FULL = Settings(rounds=9, overhead_messages=5000, case_messages=4000)
QUICK = Settings(rounds=3, overhead_messages=1000, case_messages=1000)


# -- the broker ------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass(frozen=True)
class Broker:
    port: int
    tls_port: int | None
    ca_cert: str | None
    tls_note: str

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    @property
    def tls_url(self) -> str:
        return f"mqtts://127.0.0.1:{self.tls_port}"


def tls_listener(directory: Path) -> tuple[str, int, str] | str:
    """(listener config, port, CA PEM) from the agent's test helpers, or why not."""
    sys.path.insert(0, str(TESTS_DIR))
    try:
        testkit: Any = importlib.import_module("testkit")
        pki_dir = directory / "pki"
        pki_dir.mkdir(mode=0o755)
        pki = testkit.make_pki(pki_dir)
        port = free_port()
        conf: str = testkit.tls_listener_conf(pki, port, "1.3", require_cert=False)
        ca: str = pki.pem("ca.crt")
        return conf, port, ca
    except Exception as exc:  # any failure only drops the TLS case
        return f"TLS case left out: {type(exc).__name__}: {exc}"
    finally:
        sys.path.remove(str(TESTS_DIR))


@contextmanager
def mosquitto() -> Iterator[Broker]:
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp).chmod(0o755)  # started as root, mosquitto drops to its own user
        port = free_port()
        tls = tls_listener(Path(tmp))
        conf = Path(tmp, "mosquitto.conf")
        conf.write_text(
            f"listener {port} 127.0.0.1\n"
            "allow_anonymous true\n"
            "set_tcp_nodelay true\n"
            "persistence false\n" + (tls[0] if isinstance(tls, tuple) else "")
        )
        process = subprocess.Popen(
            [MOSQUITTO, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        try:
            ports = [port] + ([tls[1]] if isinstance(tls, tuple) else [])
            deadline = time.monotonic() + WAIT_S
            for p in ports:
                while True:
                    try:
                        socket.create_connection(("127.0.0.1", p), timeout=0.2).close()
                        break
                    except OSError:
                        if process.poll() is not None or time.monotonic() > deadline:
                            err = process.stderr.read() if process.stderr else b""
                            raise RuntimeError(f"mosquitto did not start: {err!r}") from None
                        time.sleep(0.02)
            if isinstance(tls, tuple):
                yield Broker(port, tls[1], tls[2], "")
            else:
                yield Broker(port, None, None, tls)
        finally:
            process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            if process.stderr:
                process.stderr.close()


# -- the agent's runner ----------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """One run's round trips and per-phase means, in µs."""

    rtts_us: list[float]
    secure_us: float
    unsecure_us: float
    lost: int


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-p * len(ordered) // 100))))
    return ordered[rank - 1]


def agent_run(broker: Broker, n: int, **overrides: Any) -> Run:
    run_id = str(uuid.uuid4())
    spec: dict[str, Any] = {
        "protocol": "mqtt",
        "mqtt_version": "3.1.1",
        "qos": 1,
        "security": "none",
        "payload_size": PAYLOAD_BYTES,
        "message_count": n,
        "interval_ms": 0,
        "measurement": "round_trip",
        "timeout_ms": 2000,
        "broker_url": broker.url,
        "topic": f"iotsecbench/data/{run_id}/{DEVICE}",
        **overrides,
    }
    if spec["protocol"] == "srup":
        del spec["topic"]  # SRUP/<device id>, derived by the runner
    if spec["protocol"] == "coap":
        # No broker: the runner starts its own CoAP echo server (device-agent/docs/coap.md).
        for mqtt_only in ("mqtt_version", "qos", "broker_url", "topic"):
            del spec[mqtt_only]
    records: list[Record] = []
    context = RunContext(
        run_id=run_id,
        device_id=DEVICE,
        clock=RunClock(),
        emit=records.append,
        stop=threading.Event(),
    )
    runner_for("messaging", spec)(spec, context).execute()
    ok = [r for r in records if r.outcome == OK and r.t_recv_ns is not None]
    if not ok:
        raise RuntimeError(f"agent run {overrides}: no message came back")
    return Run(
        rtts_us=[(r.t_recv_ns - r.t_send_ns) / 1000 for r in ok if r.t_recv_ns is not None],
        secure_us=statistics.mean(r.secure_ns or 0 for r in ok) / 1000,
        unsecure_us=statistics.mean(r.unsecure_ns or 0 for r in ok) / 1000,
        lost=len(records) - len(ok),
    )


# -- the bare paho loop ----------------------------------------------------------------------


def bare_run(broker: Broker, n: int, qos: int = 1) -> Run:
    """The minimum a paho-mqtt 2 client does for the same round trips: no records, no
    security, no metering, the network loop in this thread."""
    topic = f"iotsecbench/bare/{uuid.uuid4()}"
    arrived = threading.Event()
    awaiting = [-1]
    t_recv = [0]
    connected = threading.Event()
    subscribed = threading.Event()

    def on_message(client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        t = time.perf_counter_ns()
        if int.from_bytes(message.payload[:SEQ_BYTES], "big") == awaiting[0]:
            t_recv[0] = t
            arrived.set()

    def on_socket_open(client: mqtt.Client, userdata: Any, sock: Any) -> None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"bare-{uuid.uuid4().hex[:8]}")
    client.on_socket_open = on_socket_open
    client.on_message = on_message
    client.on_connect = lambda *args: connected.set()
    client.on_subscribe = lambda *args: subscribed.set()

    def pump(until: threading.Event, deadline_ns: int) -> None:
        while not until.is_set():
            remaining_s = (deadline_ns - time.perf_counter_ns()) / 1e9
            sock = client.socket()
            if remaining_s <= 0 or sock is None:
                return
            wlist = [sock] if client.want_write() else []
            ready_r, ready_w, _ = select.select([sock], wlist, [], remaining_s)
            if ready_r:
                check(client.loop_read())
            if ready_w:
                check(client.loop_write())
            check(client.loop_misc())

    def check(rc: MQTTErrorCode) -> None:
        if rc not in (MQTTErrorCode.MQTT_ERR_SUCCESS, MQTTErrorCode.MQTT_ERR_AGAIN):
            raise RuntimeError(f"bare loop: {mqtt.error_string(rc)}")

    client.connect("127.0.0.1", broker.port, keepalive=60)
    try:
        sock = client.socket()
        if not isinstance(sock, socket.socket) or not sock.getsockopt(
            socket.IPPROTO_TCP, socket.TCP_NODELAY
        ):
            raise RuntimeError("bare loop: TCP_NODELAY is not set")
        pump(connected, time.perf_counter_ns() + int(WAIT_S * 1e9))
        client.subscribe(topic, qos=qos)
        pump(subscribed, time.perf_counter_ns() + int(WAIT_S * 1e9))
        if not subscribed.is_set():
            raise RuntimeError("bare loop: no SUBACK")
        filler = b"\xa5" * (PAYLOAD_BYTES - SEQ_BYTES)
        rtts: list[float] = []
        lost = 0
        for seq in range(n):
            payload = seq.to_bytes(SEQ_BYTES, "big") + filler
            awaiting[0] = seq
            arrived.clear()
            t_send = time.perf_counter_ns()
            client.publish(topic, payload, qos=qos)
            pump(arrived, t_send + 2_000_000_000)
            if arrived.is_set():
                rtts.append((t_recv[0] - t_send) / 1000)
            else:
                lost += 1
        return Run(rtts_us=rtts, secure_us=0.0, unsecure_us=0.0, lost=lost)
    finally:
        client.disconnect()
        sock = client.socket()
        if sock is not None:
            sock.close()


# -- the measurements ------------------------------------------------------------------------


def measured(run: Callable[[], Run]) -> Run:
    gc.collect()
    return run()


def part1(broker: Broker, s: Settings) -> dict[str, list[Run]]:
    ways: dict[str, Callable[[], Run]] = {
        "bare": lambda: bare_run(broker, s.overhead_messages),
        # The bare loop's topic shape and length (53 bytes, 3 levels), so that the broker
        # and both sockets handle the same bytes: the agent's usual 90-byte topic alone
        # adds ~2 µs (4 %) to a round trip here.
        "agent": lambda: agent_run(
            broker, s.overhead_messages, topic=f"iotsecbench/data/{uuid.uuid4()}"
        ),
    }
    results: dict[str, list[Run]] = {way: [] for way in ways}
    names = list(ways)
    for round_no in range(s.rounds):
        for way in names if round_no % 2 == 0 else names[::-1]:
            results[way].append(measured(ways[way]))
    return results


@dataclass(frozen=True)
class Case:
    label: str
    overrides: dict[str, Any]
    fraction: int = 1  # message count divided by this (slow mechanisms)


def cases(broker: Broker) -> list[Case]:
    found = [
        Case("QoS 0", {"qos": 0}),
        Case("QoS 1", {"qos": 1}),
        Case("QoS 2", {"qos": 2}),
        Case("MQTT 5, QoS 1", {"qos": 1, "mqtt_version": "5"}),
        Case("QoS 1, AES-128-CBC", {"qos": 1, "security": "aes-128-cbc"}),
        Case("QoS 1, Ed25519", {"qos": 1, "security": "ed25519"}, fraction=4),
        Case("SRUP, RSA-2048", {"protocol": "srup", "srup_signature": "rsa-2048"}, fraction=20),
        Case("SRUP, Ed25519", {"protocol": "srup", "srup_signature": "ed25519"}, fraction=4),
        # aiocoap's round trip is ~10x MQTT's here: a quarter of the messages.
        Case("CoAP CON", {"protocol": "coap", "coap_type": "con"}, fraction=4),
        Case("CoAP NON", {"protocol": "coap", "coap_type": "non"}, fraction=4),
        Case(
            "CoAP CON, AES-128-CBC",
            {"protocol": "coap", "coap_type": "con", "security": "aes-128-cbc"},
            fraction=4,
        ),
        Case(
            "CoAP NON, AES-128-CBC",
            {"protocol": "coap", "coap_type": "non", "security": "aes-128-cbc"},
            fraction=4,
        ),
    ]
    if broker.tls_port is not None:
        found.append(
            Case(
                "QoS 1, TLS 1.3",
                {
                    "qos": 1,
                    "broker_url": broker.tls_url,
                    "tls_version": "1.3",
                    "ca_cert": broker.ca_cert,
                },
            )
        )
        found.append(
            Case(
                "SRUP, RSA-2048, TLS 1.3",
                {
                    "protocol": "srup",
                    "srup_signature": "rsa-2048",
                    "broker_url": broker.tls_url,
                    "tls_version": "1.3",
                    "ca_cert": broker.ca_cert,
                },
                fraction=20,
            )
        )
    return found


def part2(broker: Broker, s: Settings) -> dict[str, list[Run]]:
    todo = cases(broker)
    results: dict[str, list[Run]] = {case.label: [] for case in todo}
    for round_no in range(s.rounds):
        for case in todo if round_no % 2 == 0 else todo[::-1]:
            n = max(50, s.case_messages // case.fraction)
            run = functools.partial(agent_run, broker, n, **case.overrides)
            results[case.label].append(measured(run))
    return results


# -- output ----------------------------------------------------------------------------------


def stats(run: Run) -> tuple[float, float, float]:
    return (percentile(run.rtts_us, 50), percentile(run.rtts_us, 95), percentile(run.rtts_us, 99))


def medians(runs: Sequence[Run]) -> tuple[float, float, float]:
    per_round = [stats(r) for r in runs]
    p50, p95, p99 = (statistics.median(col) for col in zip(*per_round, strict=True))
    return p50, p95, p99


def print_part1(results: dict[str, list[Run]], s: Settings) -> None:
    print(
        f"\n### 1. Harness overhead: QoS 1 round trip, {PAYLOAD_BYTES}-byte payload, µs "
        f"(median of {s.rounds} interleaved rounds of {s.overhead_messages} messages each)\n"
    )
    print("| way | p50 | p95 | p99 | lost |")
    print("|---|---:|---:|---:|---:|")
    labels = {
        "bare": "bare paho-mqtt 2 loop (same thread, TCP_NODELAY)",
        "agent": "agent `MqttRoundTripRunner`",
    }
    for way, runs in results.items():
        p50, p95, p99 = medians(runs)
        lost = sum(r.lost for r in runs)
        print(f"| {labels[way]} | {p50:.1f} | {p95:.1f} | {p99:.1f} | {lost} |")
    ratios = [
        percentile(a.rtts_us, 50) / percentile(b.rtts_us, 50)
        for a, b in zip(results["agent"], results["bare"], strict=True)
    ]
    verdict = "within" if statistics.median(ratios) <= 1.10 else "NOT within"
    print(
        f"\np50 agent / bare: {statistics.median(ratios):.3f} (per round "
        f"{min(ratios):.3f} … {max(ratios):.3f}); {verdict} the 10 % goal."
    )


def print_part2(results: dict[str, list[Run]], s: Settings, broker: Broker) -> None:
    print(
        f"\n### 2. The agent's round trips by QoS and security, {PAYLOAD_BYTES}-byte payload, "
        f"µs (median of {s.rounds} interleaved rounds of {s.case_messages} messages each, "
        f"Ed25519 and CoAP {max(50, s.case_messages // 4)}; per-phase split: means over the "
        "records, medians over the rounds)\n"
    )
    print("| case | p50 | p95 | p99 | mean secure | mean unsecure | mean network | lost |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for label, runs in results.items():
        p50, p95, p99 = medians(runs)
        sec = statistics.median(r.secure_us for r in runs)
        unsec = statistics.median(r.unsecure_us for r in runs)
        net = statistics.median(
            statistics.mean(r.rtts_us) - r.secure_us - r.unsecure_us for r in runs
        )
        lost = sum(r.lost for r in runs)
        print(
            f"| {label} | {p50:.1f} | {p95:.1f} | {p99:.1f} | {sec:.1f} | {unsec:.1f} "
            f"| {net:.1f} | {lost} |"
        )
    if broker.tls_note:
        print(f"\n{broker.tls_note}")


def machine_note() -> str:
    model = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.partition(":")[2].strip()
                break
    except OSError:
        pass
    try:
        version = subprocess.run(
            [MOSQUITTO, "-h"], capture_output=True, text=True, check=False
        ).stdout.splitlines()[0]
    except (OSError, IndexError):
        version = "mosquitto ?"
    return (
        f"{os.cpu_count()} CPUs ({model}), load average {os.getloadavg()[0]:.2f} at start; "
        f"Python {platform.python_version()}, paho-mqtt {paho.mqtt.__version__}, "
        f"aiocoap {metadata.version('aiocoap')}, {version}, "
        "loopback"
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer rounds and messages (~5 s)")
    args = parser.parse_args()
    s = QUICK if args.quick else FULL
    started = time.perf_counter()
    print(
        f"\n`{shlex.join(['bench/messaging.py', *sys.argv[1:]])}`, "
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; {machine_note()}"
    )
    with mosquitto() as broker:
        agent_run(broker, 200)  # warm-up: imports, first connections
        bare_run(broker, 200)
        overhead = part1(broker, s)
        by_case = part2(broker, s)
    print_part1(overhead, s)
    print_part2(by_case, s, broker)
    print(f"\n(whole run: {time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
