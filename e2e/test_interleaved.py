"""An interleaved run through the whole product (issue #20 point 3): designed over the API,
measured by a real agent alternating none / null / AES-128-CBC on one MQTT connection through
the real broker, ingested by the worker, and split per mechanism by the results endpoint."""

from __future__ import annotations

from e2e.conftest import Product
from e2e.test_full_path import wait_run_finished

ROTATION = ["none", "null", "aes-128-cbc"]
MESSAGES = 30


def test_an_interleaved_run_gives_one_cell_per_mechanism_with_its_messages(
    product: Product,
) -> None:
    devices = product.wait_devices_online()
    experiment = product.api(
        "POST",
        "/api/experiments/",
        {
            "name": "e2e interleaved",
            "protocol": "mqtt",
            "qos": 1,
            "security": "none",
            "interleave_mechanisms": ROTATION,
            "payload_size": 1024,
            "message_count": MESSAGES,
            "device_ids": [devices[0]["id"]],
        },
    )
    started = product.api("POST", f"/api/experiments/{experiment['id']}/runs/")
    run = wait_run_finished(product, started["id"])
    assert run["status"] == "done", run["error"]

    # Every record stored names the mechanism of its place in the rotation.
    rows = product.sql(
        "SELECT r.seq, r.mechanism, r.outcome FROM measurements_messagerecord r"
        " JOIN experiments_rundevice rd ON rd.id = r.run_device_id"
        " WHERE rd.run_id = %s ORDER BY r.seq",
        run["id"],
    )
    assert [(seq, mechanism) for seq, mechanism, _ in rows] == [
        (seq, ROTATION[seq % 3]) for seq in range(MESSAGES)
    ]
    assert {outcome for _, _, outcome in rows} == {"ok"}

    results = product.api("GET", f"/api/experiments/{experiment['id']}/results/")
    cells = {cell["label"]: cell for cell in results["cells"]}
    assert list(cells) == ROTATION
    assert [cells[n]["messages"] for n in ROTATION] == [MESSAGES // 3] * 3
    assert [cells[n]["lost"] for n in ROTATION] == [0, 0, 0]
    overheads = {o["label"]: o for o in results["overheads"]}
    assert set(overheads) == {"null", "aes-128-cbc"}
    assert all(o["paired"] and o["baseline_label"] == "none" for o in overheads.values())
