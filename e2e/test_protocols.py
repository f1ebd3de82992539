"""CoAP and MQTT-SN runs through the whole product, and a matrix of them: designed over the
API, health-checked, scheduled one after another, measured by real agents, stored."""

from __future__ import annotations

import os
import socket
import ssl
import time
from typing import Any

import pytest

from e2e.conftest import Product
from e2e.test_full_path import wait_run_finished

COAP_HEADER_MIN = 4 + 1  # header + the payload marker; token and options come on top


def _records(product: Product, run_id: str) -> tuple[Any, ...]:
    rows = product.sql(
        "SELECT count(*), count(*) FILTER (WHERE r.outcome = 'ok'), min(r.wire_bytes),"
        " max(r.wire_bytes), min(r.app_bytes), min(r.unsecure_ns)"
        " FROM measurements_messagerecord r JOIN experiments_rundevice rd"
        " ON rd.id = r.run_device_id WHERE rd.run_id = %s",
        run_id,
    )
    return tuple(rows[0])


def test_a_coap_matrix_of_con_and_non_runs_one_after_another_and_blockwise_payloads_land(
    product: Product,
) -> None:
    devices = product.wait_devices_online()
    experiment = product.api(
        "POST",
        "/api/experiments/",
        {
            "name": "e2e coap",
            "protocol": "coap",
            "coap_method": "put",
            "security": "aes-128-cbc",
            "payload_size": 1700,
            "message_count": 20,
            "device_ids": [devices[0]["id"]],
            "axes": [{"parameter": "coap_type", "values": ["con", "non"]}],
        },
    )
    first = product.api("POST", f"/api/experiments/{experiment['id']}/runs/")
    assert first["status"] == "queued"
    runs = product.api("GET", f"/api/experiments/{experiment['id']}/")["runs"]
    assert sorted(r["cell_label"] for r in runs) == ["CoAP CON", "CoAP NON"]

    finished = [
        wait_run_finished(product, r["id"]) for r in sorted(runs, key=lambda r: r["position"])
    ]

    for run in finished:
        assert run["status"] == "done", run["error"]
        statuses = [t["status"] for t in run["transitions"]]
        assert statuses[:2] == ["queued", "preparing"]
        assert statuses[-2:] == ["ingesting", "done"]
        count, ok, min_wire, _, app, unsecure = _records(product, run["id"])
        assert (count, ok, app) == (20, 20, 1700)
        # 1700 B + 16 B IV + padding to 1728 B of ciphertext: two 1024-byte blocks each way.
        assert min_wire > 1728 + 2 * COAP_HEADER_MIN
        assert unsecure > 0
    # One run at a time: the second started after the first finished.
    first_done = finished[0]["finished_at"]
    second_started = finished[1]["started_at"]
    assert second_started >= first_done


def test_an_mqttsn_run_with_short_topic_ids_and_present_goes_through_the_gateway(
    product: Product,
) -> None:
    devices = product.wait_devices_online()
    experiment = product.api(
        "POST",
        "/api/experiments/",
        {
            "name": "e2e mqtt-sn",
            "protocol": "mqttsn",
            "qos": 1,
            "topic_id_type": "short",
            "security": "present-80-cbc",
            "payload_size": 66,
            "message_count": 30,
            "device_ids": [d["id"] for d in devices],
        },
    )
    run = product.api("POST", f"/api/experiments/{experiment['id']}/runs/")
    run = wait_run_finished(product, run["id"])
    assert run["status"] == "done", run["error"]
    count, ok, min_wire, max_wire, app, _ = _records(product, run["id"])
    assert (count, ok, app) == (30 * len(devices), 30 * len(devices), 66)
    # PUBLISH: length 1 + type 1 + flags 1 + topic id 2 + msg id 2 = 7 bytes, then an 8-byte
    # IV and 66 B padded to 72 B of PRESENT-CBC ciphertext.
    assert (min_wire, max_wire) == (7 + 8 + 72, 7 + 8 + 72)
    # What the run cost each agent (X-Run-Resources on its final chunk): its client sent
    # its PUBLISHes and a 7-byte PUBACK per echo, and received the echoes and the
    # gateway's PUBACKs.
    for part in run["devices"]:
        resources = part["resources"]
        assert resources is not None, part["name"]
        assert resources["bytes_sent"] == resources["bytes_received"] == 30 * (87 + 7)
        assert (
            0
            < resources["cpu_user_ns"] + resources["cpu_system_ns"]
            <= (resources["window_ns"] * (os.cpu_count() or 1))
        )
        assert resources["peak_rss_kb"] > 10 * 1024


def test_a_device_health_check_measures_the_four_checks_on_a_real_agent(
    product: Product,
) -> None:
    device = product.wait_devices_online()[0]
    answer = product.api("POST", f"/api/devices/{device['id']}/health-check/")
    assert answer["health"]["status"] == "pending"
    health: dict[str, Any] = {}
    for _ in range(100):
        health = product.api("GET", f"/api/devices/{device['id']}/")["health"]
        if health["status"] != "pending":
            break
        product.stack.check_alive()
        time.sleep(0.1)
    assert health["status"] == "passed", health
    checks = {c["name"]: c for c in health["checks"]}
    assert set(checks) == {
        "broker_round_trip",
        "clock_offset",
        "crypto_selftest",
        "network_emulation",
    }
    assert 0 < checks["broker_round_trip"]["value"] < 100  # ms, loopback
    assert abs(checks["clock_offset"]["value"]) < 50  # same machine: the same clock


# AES under the run's shared key; Ed25519 signed by the platform's per-run private key and
# verified on each agent with the public key its job carried.
@pytest.mark.parametrize("security", ["aes-128-cbc", "ed25519"])
def test_a_one_way_run_sent_by_the_platform_is_received_and_clock_corrected_on_each_agent(
    product: Product, security: str
) -> None:
    devices = product.wait_devices_online()
    experiment = product.api(
        "POST",
        "/api/experiments/",
        {
            "name": f"e2e one way {security}",
            "protocol": "mqtt",
            "measurement": "one_way",
            "security": security,
            "qos": 1,
            "payload_size": 66,
            "message_count": 25,
            "interval_ms": 10,
            "interval_distribution": "uniform",
            "device_ids": [d["id"] for d in devices],
        },
    )
    run = product.api("POST", f"/api/experiments/{experiment['id']}/runs/")
    run = wait_run_finished(product, run["id"])
    assert run["status"] == "done", run["error"]

    rows = product.sql(
        "SELECT count(*), count(*) FILTER (WHERE r.outcome = 'ok'),"
        " percentile_cont(0.5) WITHIN GROUP (ORDER BY r.t_recv_ns - r.t_send_ns),"
        " count(r.secure_ns), min(r.unsecure_ns)"
        " FROM measurements_messagerecord r JOIN experiments_rundevice rd"
        " ON rd.id = r.run_device_id WHERE rd.run_id = %s",
        run["id"],
    )
    count, ok, median_delay_ns, secured, min_unsecure = rows[0]
    assert (count, ok) == (25 * len(devices), 25 * len(devices))
    # Controller and agents share this machine's clock: the corrected one-way delay of a
    # loopback publish is well under 50 ms, and the controller's securing is not the device's.
    assert -5e6 < median_delay_ns < 50e6
    assert (secured, min_unsecure > 0) == (0, True)
    for _ in range(50):  # clock_offset events may land just after the last records
        parts = product.api("GET", f"/api/runs/{run['id']}/")["devices"]
        if all(part["clock"] for part in parts):
            break
        time.sleep(0.2)
    for part in parts:
        assert abs(part["clock"]["before"]["offset_ms"]) < 50
        assert "applied_ms" in part["clock"]


MQTT_CONNECT = bytes.fromhex("101000044d5154540402003c0004746573740000")  # client id "test"
CONNACK_ACCEPTED = bytes.fromhex("20020000")


def _connack_without_certificate(host: str, port: int, cafile: str) -> bytes:
    context = ssl.create_default_context(cafile=cafile)
    try:
        with (
            socket.create_connection((host, port), timeout=5) as raw,
            context.wrap_socket(raw, server_hostname=host) as tls,
        ):
            tls.sendall(MQTT_CONNECT)
            return tls.recv(4)  # under TLS 1.3 the refusal comes after the handshake
    except (ssl.SSLError, OSError) as exc:
        return f"refused: {exc}".encode()


def test_the_brokers_tls_listener_refuses_a_client_without_a_certificate(
    product: Product,
) -> None:
    """SRUP's transport is MQTT over TLS with client certificates: the jobs carry one per
    device (test_srup.py runs through it); a client without one is turned away."""
    env = product.stack.env
    host, port = env["MQTT_TLS_URL"].removeprefix("mqtts://").split(":")
    answer = _connack_without_certificate(host, int(port), env["MQTT_TLS_CA_FILE"])
    assert answer != CONNACK_ACCEPTED
    assert answer == b"" or answer.startswith(b"refused"), answer
