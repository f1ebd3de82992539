"""The network-profile catalogue in the browser, against the real backend: the SRUP paper's
conditions and the measured tables are listed, a table's delay histogram is drawn, and a
copy becomes the user's own editable profile (headless Chromium)."""

from __future__ import annotations

import json

from playwright.sync_api import expect, sync_playwright

from e2e.conftest import Product
from e2e.test_browser import CHROMIUM, CHROMIUM_ARGS, sign_in

TABLE = "TIM.bad.3G.no_roaming"


def test_catalogue_is_browsed_and_a_copied_profile_is_edited(product: Product) -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        page = browser.new_page(viewport={"width": 1280, "height": 1600})
        try:
            sign_in(page, product)
            page.get_by_role("navigation", name="Main").get_by_role("link", name="Network").click()
            table = page.get_by_role("table", name="Network profiles")
            expect(table).to_be_visible()
            page.get_by_label("Kind").select_option("builtin_condition")
            # The ten conditions of the SRUP paper's Table A1, as loaded by the migration.
            expect(table.locator("tbody tr")).to_have_count(10)
            expect(table.get_by_role("link", name="SRUP 10: 2G GPRS + 10% loss")).to_be_visible()

            page.get_by_label("Kind").select_option("measured_table")
            expect(table.locator("tbody tr")).to_have_count(51)
            table.get_by_role("link", name=TABLE).click()
            expect(page.get_by_role("heading", name=f"Network profile: {TABLE}")).to_be_visible()
            histogram = page.get_by_role("region", name="Delay histogram", exact=False).first
            expect(histogram.locator(".js-plotly-plot")).to_be_visible()
            # Built-ins are read-only: no edit form, no delete.
            expect(page.get_by_role("button", name="Delete profile")).to_have_count(0)

            page.get_by_role("button", name="Copy to my workspace").click()
            expect(
                page.get_by_role("heading", name=f"Network profile: {TABLE} (copy)")
            ).to_be_visible()
            form = page.get_by_role("form", name="Change the profile")
            form.get_by_role("textbox", name="Name").fill("My 3G uplink")
            form.get_by_role("button", name="Save changes").click()
            expect(
                page.get_by_role("heading", name="Network profile: My 3G uplink")
            ).to_be_visible()
        finally:
            browser.close()

    (row,) = product.sql(
        "SELECT kind, workspace_id IS NOT NULL, spec FROM netprofiles_networkprofile"
        " WHERE name = %s",
        "My 3G uplink",
    )
    kind, owned, spec = row
    assert (kind, owned) == ("user", True)
    spec = spec if isinstance(spec, dict) else json.loads(spec)
    assert TABLE in json.dumps(spec)
