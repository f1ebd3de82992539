"""An interleaved run through the whole product (issue #20 point 3): designed over the API,
measured by a real agent alternating none / null / AES-128-CBC on one MQTT connection through
the real broker, ingested by the worker, and split per mechanism by the results endpoint and
by the run page's endpoints (statistics, stored summary, message sizes)."""

from __future__ import annotations

import statistics as pystats

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

    # The run page: its statistics per mechanism, each over that mechanism's own messages as
    # stored (computed here from the records), paired against none where it has none.
    rtts = product.sql(
        "SELECT r.mechanism, (r.t_recv_ns - r.t_send_ns) / 1e6 FROM measurements_messagerecord r"
        " JOIN experiments_rundevice rd ON rd.id = r.run_device_id"
        " WHERE rd.run_id = %s AND r.outcome = 'ok'",
        run["id"],
    )
    by_mechanism = {name: [float(v) for m, v in rtts if m == name] for name in ROTATION}
    stats = product.api("GET", f"/api/runs/{run['id']}/statistics/")
    parts = {part["mechanism"]: part for part in stats["mechanisms"]}
    assert list(parts) == ROTATION
    for name, part in parts.items():
        assert part["all_devices"]["n"] == MESSAGES // 3
        assert abs(part["all_devices"]["mean_ms"] - pystats.fmean(by_mechanism[name])) < 1e-6
        assert abs(part["all_devices"]["median_ms"] - pystats.median(by_mechanism[name])) < 1e-6
    assert parts["none"]["overhead"] is None
    assert all(parts[n]["overhead"]["pairs"] == MESSAGES // 3 for n in ROTATION[1:])
    stored = product.sql(
        "SELECT mechanism, n FROM measurements_runstatistic"
        " WHERE run_id = %s AND run_device_id IS NULL AND mechanism IS NOT NULL ORDER BY mechanism",
        run["id"],
    )
    assert [tuple(row) for row in stored] == [(n, MESSAGES // 3) for n in sorted(ROTATION)]

    # Its message sizes per mechanism: each one's measured wire bytes explained by the model
    # with that mechanism and the 1-byte index, nothing unexplained.
    sizes = product.api("GET", f"/api/runs/{run['id']}/sizes/")
    breakdowns = {b["mechanism"]: b for b in sizes["mechanisms"]}
    assert list(breakdowns) == ROTATION
    wire = dict(
        product.sql(
            "SELECT r.mechanism, min(r.wire_bytes) FROM measurements_messagerecord r"
            " JOIN experiments_rundevice rd ON rd.id = r.run_device_id"
            " WHERE rd.run_id = %s AND r.outcome = 'ok' GROUP BY r.mechanism",
            run["id"],
        )
    )
    for name, breakdown in breakdowns.items():
        components = {c["key"]: c["bytes"] for c in breakdown["components"]}
        assert breakdown["model_agrees"], breakdown["warning"]
        assert breakdown["wire_bytes_median"] == wire[name] == breakdown["plaintext_bytes"]
        assert components["index"] == 1
        assert components["unexplained"] == 0
    # AES-CBC pads 1024 bytes to 1040 and adds a 16-byte IV: 32 bytes more than none.
    assert wire["aes-128-cbc"] - wire["none"] == 32
