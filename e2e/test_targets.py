"""What a run talks to (issue #19 point 3, docs/experiment-design.md "Topics and targets"),
through the whole product against servers nobody here wrote: libcoap's ``coap-server`` as an
external CoAP server at a non-default resource path, and the machine's own Mosquitto on
127.0.0.1:1883 (which the product does not start) as an external MQTT broker with the SRUP
paper's literal topic ``test/d1``, each run's ``/sizes/`` agreeing with a tshark capture of
its messages (the checks of test_wire_capture.py); and the second agent as the MQTT-SN
gateway of the first (``target_device``), and that gateway's port blocked while its agent
stays online (the client ends the run naming it)."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from e2e.conftest import ARTIFACTS, Product
from e2e.test_full_path import wait_run_finished
from e2e.test_wire_capture import (
    COAP_REQUEST_CODES,
    MESSAGES,
    Packet,
    _assert_capture_agrees,
    _mqtt_publishes,
    _run,
    captured,
)
from scripts.stack import free_port

# Debian's libcoap3-bin names its binaries per TLS library (Makefile: make coap-client).
SERVER_NAMES = ("coap-server", "coap-server-notls", "coap-server-openssl", "coap-server-gnutls")
MACHINE_BROKER = ("127.0.0.1", 1883)
COAP_PATH = "bench/temperature-sensor"


@pytest.fixture
def coap_server() -> Iterator[int]:
    """libcoap's example server on 127.0.0.1: ``-e`` answers a PUT with its body, ``-d``
    creates the resource a PUT names (so any path is an echo resource)."""
    binary = next((found for n in SERVER_NAMES if (found := shutil.which(n))), None)
    if binary is None:
        pytest.fail("coap-server not found: apt-get install libcoap3-bin (make coap-client)")
    port = free_port()
    process = subprocess.Popen(
        [binary, "-A", "127.0.0.1", "-p", str(port), "-e", "-d", "10"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        time.sleep(0.3)
        assert process.poll() is None, "coap-server exited at start"
        yield port
    finally:
        process.terminate()
        process.wait(10)


def _coap_requests(packets: list[Packet], port: int) -> list[Packet]:
    return [
        p
        for p in packets
        if p.transport == "udp"
        and p.dst_port == port
        and len(p.payload) >= 4
        and p.payload[0] >> 6 == 1
        and p.payload[1] in COAP_REQUEST_CODES
    ]


def test_a_coap_run_to_libcoaps_server_at_a_chosen_path_agrees_with_the_capture(
    product: Product, coap_server: int
) -> None:
    with captured(f"udp port {coap_server}") as packets:
        run, sizes = _run(
            product,
            {
                "name": "e2e coap-server",
                "protocol": "coap",
                "coap_type": "con",
                "coap_method": "put",
                "security": "aes-128-cbc",
                "coap_url": f"coap://127.0.0.1:{coap_server}",
                "coap_path": COAP_PATH,
            },
        )
    requests = _coap_requests(packets(), coap_server)
    _assert_capture_agrees(sizes, requests)
    assert run["spec"]["coap_path"] == COAP_PATH
    # Uri-Path "bench" (1 + 5) and "temperature-sensor" (1 + 1 extended length + 18).
    options = {c["key"]: c["bytes"] for c in sizes["components"]}["coap_options"]
    assert options == 26
    assert b"temperature-sensor" in requests[0].payload


def _machine_broker_listening() -> bool:
    try:
        with socket.create_connection(MACHINE_BROKER, timeout=2):
            return True
    except OSError:
        return False


def test_an_mqtt_run_to_the_machines_broker_on_test_d1_sends_the_papers_80_byte_frame(
    product: Product,
) -> None:
    assert _machine_broker_listening(), "no Mosquitto on 127.0.0.1:1883 (the machine's own)"
    with captured(f"tcp port {MACHINE_BROKER[1]}") as packets:
        run, sizes = _run(
            product,
            {
                "name": "e2e external broker",
                "protocol": "mqtt",
                "qos": 1,
                "security": "none",
                "payload_size": 1,
                "topic": "test/d1",
                "broker_url": f"mqtt://{MACHINE_BROKER[0]}:{MACHINE_BROKER[1]}",
            },
        )
    assert run["spec"]["broker_external"] is True
    # Others may use test/d1 on the machine's broker too: ours is the one connection that
    # sent this run's PUBLISHes.
    publishes = _mqtt_publishes(packets(), MACHINE_BROKER[1], b"test/d1")
    ports = Counter(p.src_port for p in publishes)
    ours = [p for p in publishes if p.src_port == _ours(ports)]
    _assert_capture_agrees(sizes, ours)
    # The SRUP paper's plain frame: 14 bytes of TCP payload, 80 on the wire.
    assert (len(ours[0].payload), ours[0].frame_len) == (14, 80)
    assert sizes["frame_bytes"] == 80


def _ours(ports: Counter[int]) -> Any:
    candidates = [port for port, n in ports.items() if n == MESSAGES]
    assert len(candidates) == 1, ports
    return candidates[0]


def test_an_mqttsn_run_through_a_second_agent_as_its_gateway_completes(product: Product) -> None:
    """The MQTT-SN paper's two-Pi topology on one machine: agent 1 is the client, agent 2
    the gateway (target_device) in front of the platform's broker."""
    client, gateway = product.wait_devices_online()[:2]
    experiment = product.api(
        "POST",
        "/api/experiments/",
        {
            "name": "e2e two pis",
            "protocol": "mqttsn",
            "qos": 1,
            "topic_id_type": "normal",
            "security": "present-80-cbc",
            "payload_size": 66,
            "message_count": MESSAGES,
            "device_ids": [client["id"]],
            "target_device": gateway["id"],
        },
    )
    assert experiment["target_device"] == gateway["id"]
    run = product.api("POST", f"/api/experiments/{experiment['id']}/runs/")
    run = wait_run_finished(product, run["id"])
    assert run["status"] == "done", run["error"]

    rows = product.sql(
        "SELECT rd.device_id, count(*), count(*) FILTER (WHERE r.outcome = 'ok'),"
        " min(r.wire_bytes) FROM experiments_rundevice rd JOIN"
        " measurements_messagerecord r ON r.run_device_id = rd.id WHERE rd.run_id = %s"
        " GROUP BY rd.device_id",
        run["id"],
    )
    assert [(str(d), n, ok) for d, n, ok, _ in rows] == [(client["id"], MESSAGES, MESSAGES)]
    # PUBLISH header 7 + PRESENT's 8-byte IV + 66 B padded to 72.
    assert rows[0][3] == 7 + 8 + 72
    target = _target(product, run["id"])
    assert target["device_id"] == gateway["id"]
    assert target["address"].startswith("127.0.0.1:")  # agent 2's route to the broker
    assert target["status"] == "released"  # told to stop serving once the run ended


def _target(product: Product, run_id: str) -> dict[str, Any]:
    target: dict[str, Any] = {}
    for _ in range(50):  # the release is sent as the run settles
        (target,) = product.sql("SELECT target FROM experiments_run WHERE id = %s", run_id)[0]
        if target.get("status") == "released":
            break
        time.sleep(0.1)
    return target


@contextlib.contextmanager
def udp_blocked(port: int) -> Iterator[None]:
    """Drop every datagram to and from 127.0.0.1:``port`` (iptables): the server behind it
    stays up, its agent online, its socket open; nothing reaches it and nothing it sends
    gets out (blocked one way only, the gateway would end the client's session at its
    keep-alive: another error, tested by the agent's MQTT-SN tests)."""
    match = ["-p", "udp", "-d", "127.0.0.1"]
    rules = [
        ["INPUT", *match, "--dport", str(port), "-j", "DROP"],
        ["INPUT", *match, "--sport", str(port), "-j", "DROP"],
    ]
    added: list[list[str]] = []
    try:
        for rule in rules:
            subprocess.run(["iptables", "-I", *rule], check=True)
            added.append(rule)
        yield
    finally:
        for rule in added:
            subprocess.run(["iptables", "-D", *rule], check=True)


def test_a_gateway_that_stops_answering_while_online_ends_the_run_naming_it(
    product: Product,
) -> None:
    """The target agent stays online and its gateway thread alive, but its port is blocked:
    the client gives up after 20 unanswered messages in a row (5 s each, the design's
    timeout) and at least 10 s, and the run ends partial saying which gateway stopped
    answering, the records measured until then stored."""
    assert shutil.which("iptables"), "iptables not found"
    client, gateway = product.wait_devices_online()[:2]
    count = 1000
    experiment = product.api(
        "POST",
        "/api/experiments/",
        {
            "name": "e2e silent gateway",
            "protocol": "mqttsn",
            "qos": 1,
            "topic_id_type": "normal",
            "security": "none",
            "payload_size": 16,
            "message_count": count,
            "interval_ms": 50,
            "device_ids": [client["id"]],
            "target_device": gateway["id"],
        },
    )
    run = product.api("POST", f"/api/experiments/{experiment['id']}/runs/")
    address = _wait_measuring(product, run["id"])
    port = int(address.rsplit(":", 1)[1])
    with udp_blocked(port):
        run = _wait_ended(product, run["id"])
    assert run["status"] == "partial", run
    assert f"MQTT-SN gateway at {address} stopped answering" in run["error"], run["error"]
    assert f"(target device {gateway['name']}, the run's MQTT-SN gateway)" in run["error"]
    rows = product.sql(
        "SELECT r.outcome, count(*) FROM experiments_rundevice rd JOIN"
        " measurements_messagerecord r ON r.run_device_id = rd.id WHERE rd.run_id = %s"
        " GROUP BY r.outcome",
        run["id"],
    )
    outcomes = dict(rows)
    assert outcomes.get("ok", 0) >= 10, outcomes  # measured before the block: stored
    assert outcomes.get("lost", 0) >= 20, outcomes  # the unanswered ones, recorded lost
    assert sum(outcomes.values()) < count
    assert _target(product, run["id"])["status"] == "released"
    online = {d["id"] for d in product.wait_devices_online()}
    assert gateway["id"] in online  # it never went offline
    ARTIFACTS.mkdir(exist_ok=True)
    with open(ARTIFACTS / "targets-figures.txt", "a") as figures:
        figures.write(f"silent gateway {address}: {outcomes}; run error: {run['error']}\n")


def _wait_ended(product: Product, run_id: str) -> dict[str, Any]:
    """The run once it ended in any state (partial too). At the design's 5 s timeout per
    message, 20 unanswered messages take about 100 s."""
    deadline = time.monotonic() + 400
    run: dict[str, Any] = {}
    while time.monotonic() < deadline:
        product.stack.check_alive()
        run = product.api("GET", f"/api/runs/{run_id}/")
        if run["status"] in ("done", "partial", "failed", "cancelled"):
            return run
        time.sleep(0.5)
    raise AssertionError(f"run not ended after 400 s: {run}")


def _wait_measuring(product: Product, run_id: str) -> str:
    """The target's address once it serves and the client has sent 10 messages."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        (target, sent) = product.sql(
            "SELECT r.target, coalesce(max(rd.sent), 0) FROM experiments_run r LEFT JOIN"
            " experiments_rundevice rd ON rd.run_id = r.id WHERE r.id = %s GROUP BY r.id",
            run_id,
        )[0]
        if target.get("status") == "serving" and sent >= 10:
            return str(target["address"])
        time.sleep(0.2)
    raise AssertionError(f"run {run_id} never measured through its target")
