"""A run shared through a public link, opened by a visitor without an account, then revoked
(headless Chromium; the real product and agents)."""

from __future__ import annotations

from uuid import UUID

from playwright.sync_api import expect, sync_playwright

from e2e.conftest import Product
from e2e.test_browser import CHROMIUM, CHROMIUM_ARGS, sign_in
from e2e.test_full_path import DESIGN, wait_run_finished


def test_a_shared_run_is_seen_without_login_and_gone_once_revoked(product: Product) -> None:
    devices = product.wait_devices_online()
    experiment = product.api(
        "POST",
        "/api/experiments/",
        {
            **DESIGN,
            "name": "e2e shared run",
            "message_count": 40,
            "device_ids": [d["id"] for d in devices],
        },
    )
    run = product.api("POST", f"/api/experiments/{experiment['id']}/runs/")
    run = wait_run_finished(product, run["id"])
    assert run["status"] == "done", run["error"]

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        owner = browser.new_context(viewport={"width": 1280, "height": 1600}).new_page()
        # A separate context: no cookies, no session — a visitor without an account.
        visitor = browser.new_context(viewport={"width": 1280, "height": 1600}).new_page()
        try:
            sign_in(owner, product)
            owner.goto(f"{product.url}/runs/{run['id']}")
            panel = owner.get_by_role("region", name="Share")
            panel.get_by_label("Title (optional)").fill("RTT for reviewers")
            panel.get_by_label("Expires").select_option("7")
            panel.get_by_role("button", name="Create link").click()
            link_box = panel.get_by_role("textbox", name="Link: RTT for reviewers")
            expect(link_box).to_be_visible()
            link = link_box.input_value()
            assert link.startswith(f"{product.url}/s/"), link
            # Other tests of the session share runs too: this run's link is the one made here.
            (stored,) = product.sql(
                "SELECT kind, run_id, expires_at IS NOT NULL, revoked_at FROM sharing_share"
                " WHERE run_id = %s",
                run["id"],
            )
            assert stored == ("run", UUID(run["id"]), True, None)

            visitor.goto(link)
            expect(
                visitor.get_by_role("heading", name="RTT for reviewers", level=1)
            ).to_be_visible()
            summary = visitor.get_by_role("table", name="Summary")
            expect(summary).to_be_visible()
            for device in devices:
                expect(summary.get_by_role("row", name=device["name"])).to_be_visible()
            histogram = visitor.get_by_label("Round-trip time histogram")
            expect(histogram.locator(".js-plotly-plot")).to_be_visible()
            expect(visitor.get_by_label("Methods paragraph text")).to_be_visible()
            # Read-only, and nothing of the workspace: no sign-out, no links back, no exports,
            # and not one real id in the page.
            expect(visitor.get_by_role("button", name="Sign out")).to_have_count(0)
            expect(visitor.get_by_role("link", name="Back to experiment")).to_have_count(0)
            expect(visitor.get_by_role("heading", name="Exports")).to_have_count(0)
            html = visitor.content()
            for real_id in (run["id"], experiment["id"], *(d["id"] for d in devices)):
                assert real_id not in html, real_id
            (views,) = product.sql("SELECT views FROM sharing_share WHERE run_id = %s", run["id"])
            assert views == (1,)

            panel.get_by_role("button", name="Revoke link: RTT for reviewers").click()
            expect(panel.get_by_text("(Revoked)")).to_be_visible()
            visitor.reload()
            expect(
                visitor.get_by_role("heading", name="This link is not valid", level=1)
            ).to_be_visible()
            expect(visitor.get_by_role("table", name="Summary")).to_have_count(0)
        finally:
            browser.close()
