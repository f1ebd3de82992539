"""Designing an experiment in the browser (issue #6): a preset's run count, a matrix made in
the form, its runs queued and started on the local agents, one cancelled, and the field
errors of a design that cannot run. Headless Chromium (Debian's), driven by Playwright."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

from playwright.sync_api import Locator, Page, expect, sync_playwright

from e2e.conftest import AGENTS, Product
from e2e.test_browser import CHROMIUM, CHROMIUM_ARGS, sign_in

RUNS_TIMEOUT_MS = 120_000


@contextmanager
def new_experiment_page(product: Product) -> Iterator[Page]:
    """A signed-in page on the new-experiment form, in headless Chromium."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        page = browser.new_page(viewport={"width": 1280, "height": 1800})
        try:
            sign_in(page, product)
            page.get_by_role("link", name="New experiment").first.click()
            expect(page.get_by_role("heading", name="New experiment")).to_be_visible()
            yield page
        finally:
            browser.close()


def plan_summary(page: Page) -> Locator:
    return page.get_by_role("region", name="Plan").locator(".plan-summary")


def test_preset_fills_the_form_and_shows_its_run_count_before_anything_is_created(
    product: Product,
) -> None:
    before = len(product.api("GET", "/api/experiments/"))
    with new_experiment_page(product) as page:
        presets = page.get_by_role("region", name="Start from a preset")
        expect(presets).to_be_visible()
        presets.get_by_role("button", name=re.compile(r"^Use the preset")).first.click()
        expect(page).to_have_url(re.compile(r"\?preset="))
        for name in AGENTS:
            page.get_by_role("checkbox", name=name, exact=True).check()
        expect(plan_summary(page)).to_contain_text(re.compile(r"\d+ runs?: "))
        expect(plan_summary(page)).to_contain_text("about")
        expect(page.get_by_role("list", name="Axes")).to_be_visible()
    assert len(product.api("GET", "/api/experiments/")) == before, "the plan created something"


def test_matrix_made_in_the_form_runs_on_the_agents_and_a_queued_run_is_cancelled(
    product: Product,
) -> None:
    product.wait_devices_online()
    with new_experiment_page(product) as page:
        page.get_by_label("Name", exact=True).fill("e2e matrix")
        page.get_by_label("Messages per device", exact=True).fill("30")
        page.get_by_label("Interval between messages (ms)", exact=True).fill("20")
        for name in AGENTS:
            page.get_by_role("checkbox", name=name, exact=True).check()
        # QoS becomes an axis with three values: three runs, one after another.
        page.get_by_role("checkbox", name="Vary QoS").check()
        qos = page.get_by_role("group", name="QoS")
        qos.get_by_role("checkbox", name="0").check()
        qos.get_by_role("checkbox", name="2").check()
        expect(plan_summary(page)).to_contain_text("3 runs: 3 combinations")
        page.get_by_role("list", name="Axes").wait_for()
        assert product.api("GET", "/api/experiments/?q=e2e%20matrix") == []

        page.get_by_role("button", name="Create and run").click()
        page.wait_for_url("**/experiments/*")
        expect(page.get_by_role("heading", name="e2e matrix")).to_be_visible()
        runs = page.get_by_role("table", name="Runs of this experiment")
        expect(runs.locator("tbody tr")).to_have_count(3)
        # The last run waits its turn: cancel it while it is queued.
        last = runs.locator("tbody tr").nth(2)
        expect(last.get_by_text("queued", exact=True)).to_be_visible()
        last.get_by_role("button", name="Cancel run 3").click()
        expect(last.get_by_text("cancelled", exact=True)).to_be_visible()
        expect(last.get_by_role("button", name="Retry run 3")).to_be_visible()

        # The other two run on the agents; the page follows them without reloading.
        page.evaluate("window.__noReload = true")
        first = runs.locator("tbody tr").nth(0)
        second = runs.locator("tbody tr").nth(1)
        expect(first.get_by_text("done", exact=True)).to_be_visible(timeout=RUNS_TIMEOUT_MS)
        expect(second.get_by_text("done", exact=True)).to_be_visible(timeout=RUNS_TIMEOUT_MS)
        assert page.evaluate("window.__noReload === true"), "the page reloaded"

        # A run's page: its status changes, timestamped.
        first.get_by_role("link").first.click()
        expect(page.get_by_role("status")).to_have_text("Status: done")
        timeline = page.get_by_role("region", name="Status changes")
        for status in ("queued", "running", "done"):
            expect(timeline.get_by_text(status, exact=True).first).to_be_visible()
    experiment = product.api("GET", "/api/experiments/?q=e2e%20matrix")[0]
    statuses = sorted(run["status"] for run in experiment["runs"])
    assert statuses == ["cancelled", "done", "done"], statuses


def test_invalid_design_shows_the_servers_field_errors_in_the_form(product: Product) -> None:
    with new_experiment_page(product) as page:
        page.get_by_label("Name", exact=True).fill("e2e invalid design")
        page.get_by_label("Payload security", exact=True).select_option(label="AES-128-CBC")
        # SRUP signs its messages itself: SRUP with payload security cannot run.
        page.get_by_role("checkbox", name="Vary Protocol").check()
        protocols = page.get_by_role("group", name="Protocol")
        protocols.get_by_role("checkbox", name="SRUP (signed MQTT)").check()
        plan = page.get_by_role("region", name="Plan")
        expect(plan).to_contain_text("This design cannot run as it is")
        expect(plan).to_contain_text("SRUP signs every message itself")

        page.get_by_role("button", name="Create", exact=True).click()
        errors = page.get_by_role("group", name="Matrix").get_by_role("alert")
        expect(errors).to_contain_text("SRUP signs every message itself")
        expect(errors).to_contain_text("add these combinations to the exclusions")
        expect(page).to_have_url(re.compile(r"/experiments/new"))
    assert product.api("GET", "/api/experiments/?q=e2e%20invalid") == []


def test_a_preset_started_on_a_local_agent_shows_its_progress_then_its_results(
    product: Product,
) -> None:
    """The MQTT-SN paper's preset, shortened (1 repetition, 300 ms windows): started from
    the form on a local agent, followed live on its run page until done."""
    product.wait_devices_online()
    with new_experiment_page(product) as page:
        presets = page.get_by_role("region", name="Start from a preset")
        presets.get_by_role("button", name=re.compile(r"^Use the preset MQTT-SN paper")).click()
        expect(page).to_have_url(re.compile(r"\?preset=mqtt-sn-paper"))
        page.get_by_label("Name", exact=True).fill("e2e MQTT-SN preset")
        page.get_by_label("Repetitions", exact=True).fill("1")
        page.get_by_label("Window (ms)", exact=True).fill("300")
        page.get_by_role("checkbox", name=AGENTS[0], exact=True).check()
        expect(plan_summary(page)).to_contain_text("1 run")

        page.get_by_role("button", name="Create and run").click()
        page.wait_for_url("**/runs/*")
        seen_progress = False
        status = page.get_by_role("status")
        for _ in range(600):
            if page.locator("[role=progressbar]").count():
                seen_progress = True
            if "done" in status.inner_text() or "failed" in status.inner_text():
                break
            page.wait_for_timeout(100)
        expect(status).to_have_text("Status: done", timeout=RUNS_TIMEOUT_MS)
        assert seen_progress, "no live progress was shown while the run went"
    experiment = product.api("GET", "/api/experiments/?q=e2e%20MQTT-SN%20preset")[0]
    assert experiment["preset"] == "mqtt-sn-paper"
    (run,) = experiment["runs"]
    summary = product.api("GET", f"/api/runs/{run['id']}/")["bench_summary"]
    mechanisms = {row["mechanism"] for row in summary}
    assert mechanisms == {"lblock-cbc", "present-80-cbc", "klein-64-cbc", "aes-128-cbc", "none"}
    assert all(row["packets_per_s_mean"] > 0 for row in summary)
