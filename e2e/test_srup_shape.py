"""The SRUP paper's figure shape on a reduced run (issue #20): SRUP (RSA-2048 signatures,
MQTT on TLS 1.2) against plain MQTT, one way, under two emulated network conditions, two
repeats, through the whole product; then the experiment's results as the paper presents
them: one cell per protocol x condition, each over its two runs with a hierarchical
interval, and the results page's figure (saved to e2e/artifacts/srup-shape.png)."""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import expect, sync_playwright

from e2e.conftest import ARTIFACTS, Product
from e2e.test_browser import CHROMIUM, CHROMIUM_ARGS, sign_in
from e2e.test_full_path import wait_run_finished

# Two of the paper's conditions in small: a LAN-like link and a slower one.
CONDITIONS = {"e2e lan 1 ms": 1, "e2e cellular 40 ms": 40}
MESSAGES = 15
REPEATS = 2


def _design(device_id: str, profile_ids: list[str]) -> dict[str, Any]:
    return {
        "name": "e2e SRUP vs MQTT shape",
        "protocol": "srup",
        "transport": "tls1.2",
        "srup_signature": "rsa-2048",
        "qos": 1,
        "measurement": "one_way",
        "payload_size": 16,
        "message_count": MESSAGES,
        "interval_ms": 20,
        "interval_distribution": "uniform",
        "device_ids": [device_id],
        "axes": [
            {
                "name": "protocol",
                "values": [
                    {"protocol": "srup", "transport": "tls1.2"},
                    {"protocol": "mqtt", "transport": "tcp"},
                ],
            },
            {"parameter": "network_profile", "values": profile_ids},
        ],
        "repeats": REPEATS,
    }


def test_srup_against_mqtt_per_condition_gives_four_cells_over_two_runs_each(
    product: Product,
) -> None:
    device = product.wait_devices_online()[0]
    profiles = {
        name: product.api(
            "POST",
            "/api/network-profiles/",
            {"name": name, "spec": {"ingress": {"delay_ms": delay}}},
        )["id"]
        for name, delay in CONDITIONS.items()
    }
    design = _design(device["id"], [*profiles.values()])
    experiment = product.api("POST", "/api/experiments/", design)
    product.api("POST", f"/api/experiments/{experiment['id']}/runs/")
    runs = product.api("GET", f"/api/experiments/{experiment['id']}/")["runs"]
    assert len(runs) == 2 * len(CONDITIONS) * REPEATS
    finished = [wait_run_finished(product, r["id"]) for r in runs]
    assert [r["status"] for r in finished] == ["done"] * len(runs), [r["error"] for r in finished]

    results = product.api("GET", f"/api/experiments/{experiment['id']}/results/")
    cells = results["cells"]
    assert len(cells) == 4
    by_key = {(c["parameters"]["protocol"], c["parameters"]["network_profile"]): c for c in cells}
    assert set(by_key) == {(p, name) for p in ("srup", "mqtt") for name in CONDITIONS}
    for cell in cells:
        assert len(cell["runs"]) == REPEATS
        assert cell["interval_level"] == "runs"
        assert cell["messages"] == REPEATS * MESSAGES
        lo, hi = cell["median_ci_ms"]
        assert lo <= cell["median_ms"] <= hi
    # The slower condition's one-way delay carries its 40 ms, for both protocols.
    slow, fast = "e2e cellular 40 ms", "e2e lan 1 ms"
    for protocol in ("srup", "mqtt"):
        assert by_key[(protocol, slow)]["median_ms"] >= 40
        assert by_key[(protocol, slow)]["median_ms"] > by_key[(protocol, fast)]["median_ms"]

    ARTIFACTS.mkdir(exist_ok=True)
    table = [
        {
            "protocol": protocol,
            "condition": name,
            "median_ms": cell["median_ms"],
            "median_ci_ms": cell["median_ci_ms"],
            "mean_ms": cell["mean_ms"],
            "mean_ci_ms": cell["mean_ci_ms"],
            "runs": len(cell["runs"]),
            "messages": cell["messages"],
        }
        for (protocol, name), cell in sorted(by_key.items())
    ]
    (ARTIFACTS / "srup-shape.json").write_text(json.dumps(table, indent=2))

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        page = browser.new_page(viewport={"width": 1440, "height": 1100})
        try:
            sign_in(page, product)
            page.goto(f"{product.url}/experiments/{experiment['id']}/results")
            table_el = page.get_by_role("table", name="Cells of this experiment")
            expect(table_el).to_be_visible()
            expect(table_el.get_by_role("row")).to_have_count(1 + 4)
            # Plotly is its own chunk: on a loaded machine it can take a while to arrive.
            expect(page.locator(".js-plotly-plot").first).to_be_visible(timeout=60_000)
            page.screenshot(path=str(ARTIFACTS / "srup-shape.png"), full_page=True)
        finally:
            browser.close()
