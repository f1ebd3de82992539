"""Teams and the not-found page in headless Chromium (issue #21 points 4 and 9): an owner's
invitation link, accepted by a second user who then sees the workspace's experiments; one
not-found page inside the app shell for a random id, a malformed id and an unknown route."""

from __future__ import annotations

import uuid

from playwright.sync_api import Browser, Page, expect, sync_playwright

from e2e.conftest import Product
from e2e.test_browser import CHROMIUM, CHROMIUM_ARGS, sign_in

NEWCOMER_PASSWORD = "a long enough passphrase"


def _browser(playwright: object) -> Browser:
    return playwright.chromium.launch(  # type: ignore[attr-defined,no-any-return]
        executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
    )


def _experiment(product: Product, name: str) -> dict[str, object]:
    device = product.wait_devices_online()[0]
    return product.api(  # type: ignore[no-any-return]
        "POST",
        "/api/experiments/",
        {
            "name": name,
            "protocol": "mqtt",
            "payload_size": 32,
            "message_count": 5,
            "interval_ms": 5,
            "device_ids": [device["id"]],
        },
    )


def test_invitation_link_accepted_by_a_second_user_shows_the_workspace_experiments(
    product: Product,
) -> None:
    experiment = _experiment(product, f"Team study {uuid.uuid4().hex[:6]}")
    newcomer = f"newcomer-{uuid.uuid4().hex[:6]}"
    with sync_playwright() as playwright:
        browser = _browser(playwright)
        owner = browser.new_page(viewport={"width": 1280, "height": 900})
        sign_in(owner, product)
        owner.get_by_role("navigation", name="Main").get_by_role("link", name="Team").click()
        expect(owner.get_by_role("heading", name="Team", exact=True)).to_be_visible()
        invite = owner.get_by_role("form", name="Invite a colleague")
        invite.get_by_role("button", name="Create invitation link").click()
        issued = owner.get_by_role("region", name="New invitation link")
        link = issued.locator("code").inner_text()
        assert link.startswith(f"{product.url}/invite/"), link

        # A second person, in a browser of their own (no session), opens the link.
        guest: Page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        guest.goto(link)
        expect(guest.get_by_text("invites you to the workspace")).to_contain_text(
            f"{product.username} invites you"
        )
        form = guest.get_by_role("form", name="Create your account")
        form.get_by_label("Username").fill(newcomer)
        form.get_by_label("Password").fill(NEWCOMER_PASSWORD)
        form.get_by_role("button", name="Create account and join").click()

        expect(guest.get_by_role("heading", name="Experiments")).to_be_visible()
        expect(guest.get_by_text(f"Signed in as {newcomer}")).to_be_visible()
        expect(guest.get_by_role("link", name=str(experiment["name"])).first).to_be_visible()

        # The link was single use: opening it again says so, and the owner sees the member.
        guest.goto(link)
        expect(guest.get_by_role("alert")).to_contain_text("already been used")
        owner.reload()
        members = owner.get_by_role("table", name="Members")
        expect(members.get_by_role("row", name=newcomer)).to_be_visible()
        browser.close()

    rows = product.sql(
        "SELECT m.role FROM accounts_membership m JOIN auth_user u ON u.id = m.user_id "
        "WHERE u.username = %s",
        newcomer,
    )
    assert rows == [("member",)]


def test_unknown_ids_and_routes_show_one_not_found_page_inside_the_shell(
    product: Product,
) -> None:
    with sync_playwright() as playwright:
        browser = _browser(playwright)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        sign_in(page, product)
        for path in (f"/runs/{uuid.uuid4()}", "/runs/not-a-run-id", "/no/such/page"):
            page.goto(f"{product.url}{path}")
            expect(page.get_by_role("heading", name="Page not found")).to_be_visible()
            expect(page.get_by_role("navigation", name="Main")).to_be_visible()
            expect(page.get_by_text("unexpected error")).to_have_count(0)
            expect(page.get_by_role("alert")).to_have_count(0)
        page.get_by_role("link", name="Go to the experiments").click()
        expect(page.get_by_role("heading", name="Experiments")).to_be_visible()
        browser.close()
