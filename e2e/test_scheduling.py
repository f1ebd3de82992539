"""Queued runs are rows, not worker memory: they survive a restart of the worker, beat and
the web server, and then run one after another."""

from __future__ import annotations

import itertools
import time
from typing import Any
from urllib.parse import urlsplit

from e2e.conftest import Product
from e2e.test_full_path import wait_run_finished


def _runs(product: Product, experiment_id: str) -> list[dict[str, Any]]:
    runs = product.api("GET", f"/api/experiments/{experiment_id}/")["runs"]
    return sorted(runs, key=lambda r: r["position"])


def test_queued_runs_survive_a_restart_of_the_worker_and_the_backend_then_run_in_order(
    product: Product,
) -> None:
    device = product.wait_devices_online()[0]
    stack = product.stack
    stack.stop_process("beat")
    stack.stop_process("worker")
    experiment = product.api(
        "POST",
        "/api/experiments/",
        {
            "name": "e2e restart",
            "protocol": "mqtt",
            "payload_size": 32,
            "message_count": 20,
            "interval_ms": 5,
            "device_ids": [device["id"]],
            "axes": [{"parameter": "qos", "values": [0, 1, 2]}],
        },
    )
    product.api("POST", f"/api/experiments/{experiment['id']}/runs/")
    time.sleep(2)
    assert [r["status"] for r in _runs(product, experiment["id"])] == ["queued"] * 3

    # The backend restarts too, then the worker and beat come back.
    stack.stop_process("web")
    stack.start_web(urlsplit(product.url).port or 80)
    stack.start_worker()
    stack.start_beat()

    finished = [wait_run_finished(product, r["id"]) for r in _runs(product, experiment["id"])]
    assert [r["status"] for r in finished] == ["done"] * 3, [r["error"] for r in finished]
    for earlier, later in itertools.pairwise(finished):
        assert later["started_at"] >= earlier["finished_at"]
