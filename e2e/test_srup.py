"""A SRUP experiment designed through the API runs on a real agent over MQTT + TLS 1.3."""

from __future__ import annotations

from e2e.conftest import Product
from e2e.test_full_path import DESIGN, wait_run_finished

ED25519_SIGNATURE = 64
TLS13_RECORD = 22
# version, type, sequence and sender IDs, then the token and signature with their lengths.
SRUP_FIXED = 18 + 2 + 36 + 2


def test_srup_run_signs_and_verifies_every_message_over_tls(product: Product) -> None:
    device = product.wait_devices_online()[0]
    experiment = product.api(
        "POST",
        "/api/experiments/",
        {
            **DESIGN,
            "name": "e2e srup",
            "protocol": "srup",
            "srup_signature": "ed25519",
            "transport": "tls1.3",
            "message_count": 30,
            "device_ids": [device["id"]],
        },
    )
    run = product.api("POST", f"/api/experiments/{experiment['id']}/runs/")
    run = wait_run_finished(product, run["id"])
    assert run["status"] == "done", run["error"]
    rows = product.sql(
        "SELECT count(*) FILTER (WHERE outcome = 'ok'), min(wire_bytes), max(wire_bytes),"
        " min(secure_ns), min(unsecure_ns), min(app_bytes)"
        " FROM measurements_messagerecord r JOIN experiments_rundevice rd"
        " ON rd.id = r.run_device_id WHERE rd.run_id = %s",
        run["id"],
    )
    ok, min_wire, max_wire, min_sign, min_verify, app = rows[0][:6]
    assert ok == 30
    assert app == DESIGN["payload_size"]
    # Each PUBLISH carries a signed SRUP message inside a TLS record: at least the payload,
    # the SRUP header, token and signature, and the TLS 1.3 record overhead.
    assert min_wire == max_wire
    assert min_wire > app + SRUP_FIXED + ED25519_SIGNATURE + TLS13_RECORD
    assert min_sign > 0
    assert min_verify > 0
