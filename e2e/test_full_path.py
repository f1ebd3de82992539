"""One experiment travels the whole product: REST API and browser, real everything."""

from __future__ import annotations

import time
from typing import Any

from e2e.conftest import AGENTS, Product

DESIGN = {
    "protocol": "mqtt",
    "qos": 1,
    "security": "none",
    "payload_size": 66,
    "message_count": 100,
    "measurement": "round_trip",
}
RUN_TIMEOUT_S = 90
TOPIC_LEN = len("iotsecbench/data/") + 36 + 1 + 36


def mqtt_publish_size(topic_len: int, payload: int, qos: int) -> int:
    """MQTT 3.1.1 PUBLISH: 1 type byte + remaining-length varint + topic (2+n) + id + payload."""
    remaining = 2 + topic_len + (2 if qos else 0) + payload
    varint = 1 if remaining < 128 else 2 if remaining < 16_384 else 3
    return 1 + varint + remaining


def wait_run_finished(product: Product, run_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + RUN_TIMEOUT_S
    run: dict[str, Any] = {}
    while time.monotonic() < deadline:
        product.stack.check_alive()
        run = product.api("GET", f"/api/runs/{run_id}/")
        if run["status"] in ("done", "failed"):
            return run
        time.sleep(0.2)
    raise AssertionError(f"run not finished after {RUN_TIMEOUT_S} s: {run}")


def test_experiment_created_through_the_api_runs_on_two_agents_and_lands_in_postgres(
    product: Product,
) -> None:
    devices = product.wait_devices_online()
    experiment = product.api(
        "POST",
        "/api/experiments/",
        {**DESIGN, "name": "e2e api", "device_ids": [d["id"] for d in devices]},
    )
    run = product.api("POST", f"/api/experiments/{experiment['id']}/runs/")
    run = wait_run_finished(product, run["id"])
    assert run["status"] == "done", run["error"]

    # Every device measured and uploaded 100 records, each stored once.
    assert sorted(d["name"] for d in run["devices"]) == sorted(AGENTS)
    for part in run["devices"]:
        assert (part["status"], part["records_ingested"], part["total"]) == ("done", 100, 100)
        facts = part["facts"]
        for key in (
            "hostname",
            "cpu_model",
            "cpu_cores",
            "ram_bytes",
            "kernel",
            "os",
            "python_version",
        ):
            assert facts.get(key), f"fact {key} missing: {facts}"
        assert set(facts["libraries"]) >= {"paho-mqtt", "pycryptodome"}

    rows = product.sql(
        "SELECT count(*), count(*) FILTER (WHERE r.outcome = 'ok'), min(r.t_recv_ns - r.t_send_ns),"
        " min(r.app_bytes), max(r.app_bytes), min(r.wire_bytes), max(r.wire_bytes),"
        " count(DISTINCT (r.run_device_id, r.seq))"
        " FROM measurements_messagerecord r JOIN experiments_rundevice rd"
        " ON rd.id = r.run_device_id WHERE rd.run_id = %s",
        run["id"],
    )
    count, ok, min_rtt, min_app, max_app, min_wire, max_wire, distinct = rows[0]
    assert (count, ok, distinct) == (200, 200, 200)
    assert min_rtt > 0
    assert (min_app, max_app) == (66, 66)
    expected_wire = mqtt_publish_size(TOPIC_LEN, 66, qos=1)  # 163 bytes
    assert (min_wire, max_wire) == (expected_wire, expected_wire)

    # The summary: one row per device and one over both.
    summary = {row["device_name"]: row for row in run["summary"]}
    assert set(summary) == {*AGENTS, "All devices"}
    for row in summary.values():
        assert row["lost"] == 0
        assert row["min_ms"] <= row["median_ms"] <= row["p95_ms"] <= row["p99_ms"] <= row["max_ms"]
        assert row["std_ms"] is not None
    assert summary["All devices"]["n"] == 200

    # The results pages' aggregated data: every delivered message counted, none shipped raw.
    stats = product.api("GET", f"/api/runs/{run['id']}/statistics/")
    assert sorted(d["n"] for d in stats["devices"]) == [100, 100]
    dist = product.api("GET", f"/api/runs/{run['id']}/distribution/?bins=50")
    assert sorted(sum(d["counts"]) for d in dist["devices"]) == [100, 100]


def test_secured_messaging_run_records_securing_costs_and_larger_wire_bytes(
    product: Product,
) -> None:
    devices = product.wait_devices_online()
    experiment = product.api(
        "POST",
        "/api/experiments/",
        {
            **DESIGN,
            "name": "e2e aes-128-cbc",
            "security": "aes-128-cbc",
            "message_count": 50,
            "device_ids": [d["id"] for d in devices],
        },
    )
    run = product.api("POST", f"/api/experiments/{experiment['id']}/runs/")
    run = wait_run_finished(product, run["id"])
    assert run["status"] == "done", run["error"]
    rows = product.sql(
        "SELECT count(*), min(r.secure_ns), min(r.unsecure_ns), min(r.wire_bytes),"
        " max(r.wire_bytes), min(r.app_bytes), min(r.floor_secure_ns),"
        " min(r.floor_unsecure_ns) FROM measurements_messagerecord r"
        " JOIN experiments_rundevice rd ON rd.id = r.run_device_id"
        " WHERE rd.run_id = %s AND r.outcome = 'ok'",
        run["id"],
    )
    count, min_secure, min_unsecure, min_wire, max_wire, app, floor_secure, floor_unsecure = rows[0]
    assert count == 100
    assert min_secure > 0
    assert min_unsecure > 0
    # Every message carries its harness floor (the null mechanism, timed beside it).
    assert floor_secure > 0
    assert floor_unsecure > 0
    assert app == 66
    # AES-CBC adds a 16-byte IV and pads 66 bytes to 80: 30 bytes more than plain.
    plain = mqtt_publish_size(TOPIC_LEN, 66, qos=1)
    assert min_wire == max_wire == plain + 30
    for row in run["summary"]:
        assert row["secure_mean_us"] > 0
        assert row["unsecure_mean_us"] > 0
        assert row["floor_secure_mean_us"] > 0
        assert row["floor_unsecure_mean_us"] > 0
        net = row["secure_mean_us"] - row["floor_secure_mean_us"]
        assert abs(row["net_secure_mean_us"] - net) < 1e-9
    # The medians of the raw times and of each message's net time, as PostgreSQL gives them.
    medians = product.sql(
        "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY r.secure_ns),"
        " percentile_cont(0.5) WITHIN GROUP (ORDER BY r.secure_ns - r.floor_secure_ns)"
        " FROM measurements_messagerecord r"
        " JOIN experiments_rundevice rd ON rd.id = r.run_device_id WHERE rd.run_id = %s",
        run["id"],
    )
    (total,) = [row for row in run["summary"] if row["device_id"] is None]
    assert abs(total["secure_median_us"] - medians[0][0] / 1000) < 1e-6
    assert abs(total["net_secure_median_us"] - medians[0][1] / 1000) < 1e-6
    assert 0 < total["net_secure_median_us"] < total["secure_median_us"]


def test_cipher_bench_runs_on_the_agents_and_reports_per_size_statistics(
    product: Product,
) -> None:
    devices = product.wait_devices_online()
    mechanisms = ["aes-128-cbc", "ed25519"]
    sizes = [16, 8192]
    experiment = product.api(
        "POST",
        "/api/experiments/",
        {
            "name": "e2e cipher bench",
            "kind": "cipher_bench",
            "mechanisms": mechanisms,
            "data_sizes": sizes,
            "repetitions": 20,
            "device_ids": [devices[0]["id"]],
        },
    )
    run = product.api("POST", f"/api/experiments/{experiment['id']}/runs/")
    run = wait_run_finished(product, run["id"])
    assert run["status"] == "done", run["error"]
    rows = {(r["mechanism"], r["operation"], r["data_bytes"]): r for r in run["bench_summary"]}
    expected = {
        (m, op, size)
        for m, ops in (("aes-128-cbc", ("encrypt", "decrypt")), ("ed25519", ("sign", "verify")))
        for op in ops
        for size in sizes
    }
    assert set(rows) == expected
    for row in rows.values():
        assert row["n"] == 20
        assert row["mean_us"] > 0
        assert row["std_us"] is not None
        assert row["peak_rss_kb"] > 0
    # Calls of a few µs are timed in groups, so a repetition lasts about 1 ms.
    assert rows[("aes-128-cbc", "encrypt", 16)]["calls_per_repetition"] > 1
    stored = product.sql(
        "SELECT count(*) FROM measurements_benchsample s JOIN experiments_rundevice rd"
        " ON rd.id = s.run_device_id WHERE rd.run_id = %s",
        run["id"],
    )
    assert stored[0][0] == len(expected) * 20


def test_throughput_run_counts_secured_packets_per_window_against_no_security(
    product: Product,
) -> None:
    devices = product.wait_devices_online()
    experiment = product.api(
        "POST",
        "/api/experiments/",
        {
            "name": "e2e throughput",
            "kind": "throughput",
            "mechanisms": ["none", "present-80-cbc"],
            "data_sizes": [1, 1280],
            "repetitions": 2,
            "window_ms": 100,
            "device_ids": [devices[0]["id"]],
        },
    )
    run = product.api("POST", f"/api/experiments/{experiment['id']}/runs/")
    run = wait_run_finished(product, run["id"])
    assert run["status"] == "done", run["error"]
    rows = {(r["mechanism"], r["operation"], r["data_bytes"]): r for r in run["bench_summary"]}
    assert set(rows) == {
        (m, op, size)
        for m in ("none", "present-80-cbc")
        for op in ("secure", "send")
        for size in (1, 1280)
    }
    for (mechanism, _, _), row in rows.items():
        assert row["n"] == 2
        assert row["packets_per_s_mean"] > 0
        if mechanism == "none":
            assert row["relative_cost"] == 1.0
    # Securing 1280 bytes with a software block cipher costs far more than sending as is.
    assert rows[("present-80-cbc", "secure", 1280)]["relative_cost"] > 2
    windows = product.sql(
        "SELECT min(s.wall_ns), max(s.wall_ns), min(s.packets) FROM measurements_benchsample s"
        " JOIN experiments_rundevice rd ON rd.id = s.run_device_id WHERE rd.run_id = %s",
        run["id"],
    )
    shortest, longest, fewest = windows[0]
    assert 100_000_000 <= shortest <= longest < 200_000_000
    assert fewest > 0


def test_run_over_tls_verifies_the_broker_and_counts_tls_records_as_wire_bytes(
    product: Product,
) -> None:
    devices = product.wait_devices_online()
    overhead = {"tls1.3": 22, "tls1.2": 29}  # record header + GCM tag (+ 1.2's explicit nonce)
    for transport, extra in overhead.items():
        experiment = product.api(
            "POST",
            "/api/experiments/",
            {
                **DESIGN,
                "name": f"e2e {transport}",
                "transport": transport,
                "message_count": 30,
                "device_ids": [d["id"] for d in devices],
            },
        )
        run = product.api("POST", f"/api/experiments/{experiment['id']}/runs/")
        run = wait_run_finished(product, run["id"])
        assert run["status"] == "done", run["error"]
        assert run["spec"]["broker_url"].startswith("mqtts://")
        rows = product.sql(
            "SELECT count(*), min(r.wire_bytes), max(r.wire_bytes)"
            " FROM measurements_messagerecord r"
            " JOIN experiments_rundevice rd ON rd.id = r.run_device_id"
            " WHERE rd.run_id = %s AND r.outcome = 'ok'",
            run["id"],
        )
        count, min_wire, max_wire = rows[0]
        assert count == 60
        assert min_wire == max_wire == mqtt_publish_size(TOPIC_LEN, 66, qos=1) + extra
