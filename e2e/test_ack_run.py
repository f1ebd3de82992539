"""Acknowledgement-time runs (measurement ``ack``, issue #19 point 4) through the whole
product: designed over the API, dispatched by the worker, measured by a real agent against
the real broker (MQTT publish → PUBACK, MQTT-SN PUBLISH → PUBACK through the agent's
gateway) or the agent's CoAP server (CON → ACK), stored, summarised and described."""

from __future__ import annotations

import csv
import io
import urllib.request
from typing import Any

import pytest

from e2e.conftest import Product
from e2e.test_full_path import wait_run_finished

MESSAGES = 40


def _ack_times(product: Product, run_id: str) -> list[tuple[str, int | None, int | None]]:
    return product.sql(
        "SELECT r.outcome, r.t_recv_ns - r.t_send_ns, r.unsecure_ns"
        " FROM measurements_messagerecord r JOIN experiments_rundevice rd"
        " ON rd.id = r.run_device_id WHERE rd.run_id = %s",
        run_id,
    )


def _summary_csv(product: Product, run_id: str) -> list[dict[str, str]]:
    request = urllib.request.Request(
        f"{product.url}/api/runs/{run_id}/export/summary.csv",
        headers={"Authorization": f"Token {product.api_token}"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return list(csv.DictReader(io.StringIO(response.read().decode())))


@pytest.mark.parametrize(
    ("design", "exchange", "acknowledged_by"),
    [
        (
            {"protocol": "mqtt", "qos": 1, "security": "aes-128-gcm"},
            "(publish → PUBACK)",
            "the broker's PUBACK (QoS 1)",
        ),
        (
            {"protocol": "coap", "coap_type": "con", "coap_method": "put", "security": "tea-cbc"},
            "(CON → ACK)",
            "read the ACK carrying the request's Message ID",
        ),
        (
            {"protocol": "mqttsn", "qos": 1, "topic_id_type": "normal", "security": "none"},
            "(publish → PUBACK;",
            "the gateway's PUBACK carrying the PUBLISH's MsgId",
        ),
    ],
    ids=["mqtt-qos1", "coap-con", "mqttsn-qos1"],
)
def test_an_ack_run_times_each_message_to_its_acknowledgement_end_to_end(
    product: Product, design: dict[str, Any], exchange: str, acknowledged_by: str
) -> None:
    device = product.wait_devices_online()[0]
    experiment = product.api(
        "POST",
        "/api/experiments/",
        {
            "name": f"e2e ack {design['protocol']}",
            "payload_size": 66,
            "message_count": MESSAGES,
            "measurement": "ack",
            "device_ids": [device["id"]],
            **design,
        },
    )
    assert experiment["measurement"] == "ack"
    run = product.api("POST", f"/api/experiments/{experiment['id']}/runs/")
    run = wait_run_finished(product, run["id"])
    assert run["status"] == "done", run["error"]

    records = _ack_times(product, run["id"])
    assert len(records) == MESSAGES
    assert {outcome for outcome, _, _ in records} == {"ok"}
    assert all(ack_ns is not None and ack_ns > 0 for _, ack_ns, _ in records)
    # Nothing came back to unsecure: only an acknowledgement.
    assert {unsecure for _, _, unsecure in records} == {None}

    stats = product.api("GET", f"/api/runs/{run['id']}/statistics/")
    assert stats["measurement"] == "ack"
    assert stats["quantity"].startswith("acknowledgement time (")
    total = stats["all_devices"]
    assert total["n"] == MESSAGES
    assert total["mean_ms"] > 0
    assert total["median_ms"] > 0

    methods = product.api("GET", f"/api/runs/{run['id']}/methods/")["text"]
    assert "Acknowledgement times were measured" in methods
    assert exchange in methods
    assert acknowledged_by in methods
    assert "The mean acknowledgement time was" in methods
    assert "round trip" not in methods

    # The exported summary names the measured quantity in its measurement column.
    rows = _summary_csv(product, run["id"])
    assert rows
    assert {row["measurement"] for row in rows} == {"ack"}
