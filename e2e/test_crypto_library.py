"""A cipher bench with crypto library openssl-cli through the whole product: the design API,
a real agent running openssl enc, the samples stored in PostgreSQL and the methods text."""

from __future__ import annotations

from e2e.conftest import Product
from e2e.test_full_path import wait_run_finished


def test_openssl_cli_cipher_bench_stores_the_openssl_processes_samples(product: Product) -> None:
    devices = product.wait_devices_online()
    experiment = product.api(
        "POST",
        "/api/experiments/",
        {
            "name": "e2e openssl-cli",
            "kind": "cipher_bench",
            "mechanisms": ["aes-128-cbc", "des-cbc"],
            "data_sizes": [4096],
            "repetitions": 3,
            "crypto_library": "openssl-cli",
            "device_ids": [devices[0]["id"]],
        },
    )
    run = product.api("POST", f"/api/experiments/{experiment['id']}/runs/")
    run = wait_run_finished(product, run["id"])
    assert run["status"] == "done", run["error"]
    rows = product.sql(
        "SELECT s.mechanism, s.operation, s.repetition, s.wall_ns, s.peak_rss_kb, s.calls"
        " FROM measurements_benchsample s JOIN experiments_rundevice rd"
        " ON rd.id = s.run_device_id WHERE rd.run_id = %s"
        " ORDER BY s.mechanism, s.repetition, s.operation",
        run["id"],
    )
    assert [(m, op, rep) for m, op, rep, *_ in rows] == [
        (m, op, rep)
        for m in ("aes-128-cbc", "des-cbc")
        for rep in range(3)
        for op in ("decrypt", "encrypt")
    ]
    # One openssl process per sample: one call, its own few MB, not the agent's interpreter.
    assert all(calls == 1 and wall > 0 and 500 < rss < 16_000 for *_, wall, rss, calls in rows)
    methods = product.api("GET", f"/api/runs/{run['id']}/methods/")["text"]
    assert "Each device ran openssl enc with AES-128-CBC and DES-CBC" in methods
    assert "the OpenSSL command (openssl enc), one process per operation (OpenSSL " in methods
