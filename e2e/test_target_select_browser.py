"""The design form's Target device select in Chromium (issue #19 point 3): an MQTT-SN design
whose gateway is the second enrolled agent, chosen in the "Addressing and target" group,
stored as the experiment's ``target_device``, and run through that agent."""

from __future__ import annotations

import re

from playwright.sync_api import expect, sync_playwright

from e2e.conftest import Product
from e2e.test_browser import CHROMIUM, CHROMIUM_ARGS, sign_in, watch_csp
from e2e.test_full_path import wait_run_finished

# Few messages: the run is here to show the target in use, not to measure it.
MESSAGES = 10


def test_a_gateway_chosen_in_the_target_select_is_stored_and_serves_the_run(
    product: Product,
) -> None:
    client, gateway = product.wait_devices_online()[:2]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        page = browser.new_page(viewport={"width": 1280, "height": 1600})
        csp_violations = watch_csp(page)
        try:
            sign_in(page, product)
            page.goto(f"{product.url}/experiments/new")
            expect(page.get_by_role("heading", name="New experiment")).to_be_visible()
            page.get_by_label("Name").fill("e2e target select")
            page.get_by_label("Protocol", exact=True).select_option("mqttsn")
            page.get_by_label("Messages per device", exact=True).fill(str(MESSAGES))
            # Online devices start checked: the gateway serves the run, it is not one of its own.
            devices = page.get_by_role("group", name="Devices")
            devices.get_by_role("checkbox", name=client["name"]).check()
            devices.get_by_role("checkbox", name=gateway["name"]).uncheck()

            addressing = page.get_by_role("group", name="Addressing and target")
            target_host = addressing.get_by_label("Target host")
            expect(target_host).to_have_count(0)
            select = addressing.get_by_label("Target device")
            option_labels = select.locator("option").all_inner_texts()
            assert gateway["name"] in option_labels, option_labels
            assert client["name"] not in option_labels, option_labels
            select.select_option(label=gateway["name"])
            expect(target_host).to_be_visible()

            page.get_by_role("button", name="Create", exact=True).click()
            expect(page.get_by_role("heading", name="e2e target select")).to_be_visible()
            experiment_id = page.url.rstrip("/").rsplit("/", 1)[-1]
            stored = product.api("GET", f"/api/experiments/{experiment_id}/")
            assert (stored["protocol"], stored["target_device"]) == ("mqttsn", gateway["id"])
            assert stored["device_ids"] == [client["id"]]

            page.get_by_role("button", name="Start run").click()
            page.wait_for_url("**/runs/**")
            run_id = page.url.rstrip("/").rsplit("/", 1)[-1]
            run = wait_run_finished(product, run_id)
            assert run["status"] == "done", run["error"]
            expect(
                page.get_by_text(re.compile(rf"^Gateway: {re.escape(gateway['name'])} at "))
            ).to_be_visible()
            assert csp_violations == [], csp_violations
        finally:
            browser.close()

    rows = product.sql(
        "SELECT rd.device_id, count(*), count(*) FILTER (WHERE r.outcome = 'ok') FROM"
        " experiments_rundevice rd JOIN measurements_messagerecord r"
        " ON r.run_device_id = rd.id WHERE rd.run_id = %s GROUP BY rd.device_id",
        run_id,
    )
    assert [(str(d), n, ok) for d, n, ok in rows] == [(client["id"], MESSAGES, MESSAGES)]
