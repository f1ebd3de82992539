"""A run under a network profile through the whole product: designed with a profile, the
agent (root here) shapes its data plane through an emulated link, verifies it before the
first message, and the platform keeps its proof of enforcement."""

from __future__ import annotations

import statistics
import time

from e2e.conftest import Product
from e2e.test_full_path import DESIGN, wait_run_finished

DELAY_MS = 15  # each way: a 30 ms round trip on top of loopback's fraction of a millisecond


def test_a_run_under_a_profile_is_shaped_verified_and_proven(product: Product) -> None:
    device = product.wait_devices_online()[0]
    profile = product.api(
        "POST",
        "/api/network-profiles/",
        {"name": "e2e 15 ms each way", "spec": {"both": {"delay_ms": DELAY_MS}}},
    )
    experiment = product.api(
        "POST",
        "/api/experiments/",
        {
            **DESIGN,
            "name": "e2e shaped",
            "message_count": 30,
            "device_ids": [device["id"]],
            "network_profile": profile["id"],
        },
    )
    assert experiment["network_profile_name"] == "e2e 15 ms each way"
    run = product.api("POST", f"/api/experiments/{experiment['id']}/runs/")
    run = wait_run_finished(product, run["id"])
    assert run["status"] == "done", run["error"]

    rtts_ms = [
        (t_recv - t_send) / 1e6
        for t_send, t_recv in product.sql(
            "SELECT t_send_ns, t_recv_ns FROM measurements_messagerecord r"
            " JOIN experiments_rundevice rd ON rd.id = r.run_device_id"
            " WHERE rd.run_id = %s AND r.outcome = 'ok'",
            run["id"],
        )
    ]
    assert len(rtts_ms) == 30
    median = statistics.median(rtts_ms)
    assert 2 * DELAY_MS <= median < 2 * DELAY_MS + 25, median

    # The proof arrives as an event once the link is down: allow it a moment.
    proof = None
    for _ in range(50):
        (part,) = product.api("GET", f"/api/runs/{run['id']}/")["devices"]
        proof = part["network"]
        if proof:
            break
        product.stack.check_alive()
        time.sleep(0.2)
    assert proof is not None, "no network_enforced proof stored"
    # `auto` takes netem where the agent's start-up probe found it working (a kernel with
    # sch_netem), else the userspace emulator (this project's CI kernels have no netem).
    netem = device["facts"]["network_emulation"]["netem"]["available"]
    assert proof["backend"] == ("netem" if netem else "userspace")
    verification = proof["verification"]
    assert verification["ok"] is True
    assert verification["expected_median_ms"] >= 2 * DELAY_MS
    assert verification["received"] > 0


def test_a_one_way_srup_run_under_a_profile_takes_the_links_delay_platform_to_device(
    product: Product,
) -> None:
    """The SRUP paper's experiment in small: the platform signs SRUP data messages (Ed25519)
    and sends them over MQTT+TLS 1.3 (client certificates) through the device's emulated
    link, delayed 20 ms towards the device; the device verifies them and corrects its
    receive times by its clock offset, measured outside the link."""
    device = product.wait_devices_online()[0]
    profile = product.api(
        "POST",
        "/api/network-profiles/",
        {"name": "e2e 20 ms down", "spec": {"ingress": {"delay_ms": 20}}},
    )
    experiment = product.api(
        "POST",
        "/api/experiments/",
        {
            "name": "e2e one-way SRUP shaped",
            "protocol": "srup",
            "srup_signature": "ed25519",
            "transport": "tls1.3",
            "measurement": "one_way",
            "payload_size": 16,
            "message_count": 20,
            "interval_ms": 20,
            "interval_distribution": "uniform",
            "device_ids": [device["id"]],
            "network_profile": profile["id"],
        },
    )
    run = product.api("POST", f"/api/experiments/{experiment['id']}/runs/")
    run = wait_run_finished(product, run["id"])
    assert run["status"] == "done", run["error"]

    delays_ms = [
        (t_recv - t_send) / 1e6
        for t_send, t_recv in product.sql(
            "SELECT t_send_ns, t_recv_ns FROM measurements_messagerecord r"
            " JOIN experiments_rundevice rd ON rd.id = r.run_device_id"
            " WHERE rd.run_id = %s AND r.outcome = 'ok'",
            run["id"],
        )
    ]
    assert len(delays_ms) == 20
    median = statistics.median(delays_ms)
    assert 20 - 5 <= median < 20 + 30, median
    clock = None
    for _ in range(50):  # the clock_offset event may land just after the last record
        (part,) = product.api("GET", f"/api/runs/{run['id']}/")["devices"]
        clock = part["clock"]
        if clock:
            break
        time.sleep(0.2)
    assert clock is not None
    assert abs(clock["before"]["offset_ms"]) < 5  # one machine, one clock
