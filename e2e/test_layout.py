"""Every page of the app at a desktop (1440x900) and a phone (390x844) width, with realistic
data: no page wider than the window, the navigation reachable, no serious or critical axe-core
violation, and the new-experiment form usable by keyboard alone (issue #21, points 1, 8, 10).

With UPDATE_DOCS_SCREENSHOTS=1 (`make screenshot`) the main pages' screenshots in docs/img/
are refreshed; without it they go to e2e/artifacts/ only, so `make test` leaves the tree clean.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from e2e.conftest import ARTIFACTS, Product
from e2e.test_browser import CHROMIUM, CHROMIUM_ARGS, sign_in
from e2e.test_full_path import DESIGN, wait_run_finished
from scripts.stack import REPO_DIR

AXE_JS = REPO_DIR / "frontend" / "node_modules" / "axe-core" / "axe.min.js"
AXE_COUNTS = ARTIFACTS / "axe-counts.txt"
DOCS_IMG = REPO_DIR / "docs" / "img"
# The README and the user guide show these pages (name in the file, path key below).
SCREENSHOT_PAGES = ("home", "experiments", "experiment", "run", "devices", "compare", "results")
# docs/img stays light enough for the README to load quickly on a phone.
SCREENSHOT_MAX_BYTES = 300_000
WIDTHS = {1440: 900, 390: 844}
# The realistic data: ten devices with long names, a long experiment name.
EXTRA_DEVICES = 8
LONG_DEVICE_NAME = "raspberry-pi-4-model-b-lab-bench-{n:02d}-building-west-room-2.17"
LONG_EXPERIMENT_NAME = (
    "SRUP-paper replication: AES-128-CBC securing cost on the west-lab bench, "
    "QoS 0 and 1 over the whole building network"
)
# The nav items that must stay reachable at every width (issue #21: "Devic", no Sign out).
NAV_LINKS = ("Home", "Experiments", "Compare", "Devices", "Power", "Network", "Team", "Account")
# Serious and critical violations fail the test; the others are counted for the issue note.
BLOCKING_IMPACTS = ("serious", "critical")
# Seventeen pages with axe-core per width, after seeding two runs: past the default 120 s
# when the machine is shared (the first test also pays for starting the product).
pytestmark = pytest.mark.timeout(900)

SEED_DEVICES = """
import hashlib, secrets
from django.utils import timezone
from devices.models import Device
template = Device.objects.order_by("enrolled_at").first()
facts = dict(template.facts)
facts["hardware_model"] = "Raspberry Pi 4 Model B Rev 1.5 (4 GiB) with PoE+ HAT and case fan"
for n in range({count}):
    Device.objects.create(
        workspace=template.workspace,
        name="{name}".format(n=n + 3),
        token_hash=hashlib.sha256(secrets.token_bytes(16)).hexdigest(),
        facts=facts,
        health=template.health,
        last_seen_at=timezone.now(),
    )
"""
REMOVE_SEEDED_DEVICES = """
from devices.models import Device
Device.objects.filter(name__startswith="raspberry-pi-4-model-b-lab-bench-").delete()
"""


@dataclass(frozen=True)
class Seeded:
    """Ids of the data every page shows."""

    experiment_id: str
    matrix_experiment_id: str
    run_id: str
    other_run_id: str
    share_path: str
    network_profile_id: str

    def pages(self) -> dict[str, str]:
        """Every page of frontend/src/app/router.tsx, by name: its path."""
        return {
            "home": "/",
            "experiments": "/experiments",
            "new-experiment": "/experiments/new",
            "experiment": f"/experiments/{self.matrix_experiment_id}",
            "results": f"/experiments/{self.matrix_experiment_id}/results",
            "run": f"/runs/{self.run_id}",
            "compare": f"/compare?run={self.run_id}&run={self.other_run_id}",
            "devices": "/devices",
            "power": "/power",
            "network-profiles": "/network-profiles",
            "network-profile": f"/network-profiles/{self.network_profile_id}",
            "new-network-profile": "/network-profiles/new",
            "account": "/account",
            "team": "/team",
            "shared": self.share_path,
            "not-found": "/no/such/page",
            "not-found-run": "/runs/00000000-0000-4000-8000-000000000000",
            "sign-in": "/login",
        }


# Pages without the app's navigation (public, or before sign-in).
NO_NAV = frozenset({"shared", "sign-in"})
SIGNED_OUT = frozenset({"sign-in"})


def _health_checked(product: Product) -> None:
    """Ask every real agent for a health check and wait for the answers (the Devices page's
    widest state in the issue)."""
    devices = product.wait_devices_online()
    for device in devices:
        product.api("POST", f"/api/devices/{device['id']}/health-check/")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        checked = [d for d in product.api("GET", "/api/devices/") if d.get("health")]
        if len(checked) >= len(devices):
            return
        time.sleep(0.5)
    raise AssertionError("no health check answered within 60 s")


@pytest.fixture(scope="module")
def seeded(product: Product) -> Iterator[Seeded]:
    agents = product.wait_devices_online()
    _health_checked(product)
    product.stack.manage(
        "shell", "-c", SEED_DEVICES.format(count=EXTRA_DEVICES, name=LONG_DEVICE_NAME)
    )
    device_ids = [d["id"] for d in agents]
    design = {**DESIGN, "message_count": 20, "interval_ms": 5, "device_ids": device_ids}
    matrix = product.api(
        "POST",
        "/api/experiments/",
        {
            **design,
            "name": LONG_EXPERIMENT_NAME,
            "security": "aes-128-cbc",
            "axes": [{"parameter": "qos", "values": [0, 1]}],
        },
    )
    # Starting a matrix queues one run per cell; the experiment lists them.
    product.api("POST", f"/api/experiments/{matrix['id']}/runs/")
    run_ids = [r["id"] for r in product.api("GET", f"/api/experiments/{matrix['id']}/")["runs"]]
    runs = [wait_run_finished(product, run_id) for run_id in run_ids]
    if len(runs) < 2:
        plain = product.api("POST", "/api/experiments/", {**design, "name": "Plain MQTT baseline"})
        runs.append(
            wait_run_finished(
                product, product.api("POST", f"/api/experiments/{plain['id']}/runs/")["id"]
            )
        )
    assert [r["status"] for r in runs] == ["done"] * len(runs), [r["error"] for r in runs]
    share = product.api("POST", "/api/shares/", {"kind": "run", "run": runs[0]["id"]})
    profiles = product.api("GET", "/api/network-profiles/")
    yield Seeded(
        experiment_id=matrix["id"],
        matrix_experiment_id=matrix["id"],
        run_id=runs[0]["id"],
        other_run_id=runs[1]["id"],
        share_path=share["path"],
        network_profile_id=profiles[0]["id"],
    )
    # The other tests of the session expect only their two agents.
    product.stack.manage("shell", "-c", REMOVE_SEEDED_DEVICES)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


def _open(page: Page, url: str) -> None:
    """Load a page and let its data and charts settle (the widths are measured after)."""
    page.goto(url)
    page.wait_for_load_state("networkidle")
    expect(page.locator("h1").first).to_be_visible()
    page.wait_for_timeout(300)  # Plotly's resize after the last fetch


# The elements past the right edge, minus those a narrower scrolling box (a table's) clips:
# an absolutely positioned one escapes a box that is not its containing block, so it stays.
WIDEST_ELEMENTS = """() => {
  const past = (el) => el.getBoundingClientRect().right > window.innerWidth + 1;
  const clipped = (el) => {
    if (['absolute', 'fixed'].includes(getComputedStyle(el).position)) return false;
    for (let box = el.parentElement; box && box !== document.body; box = box.parentElement) {
      if (getComputedStyle(box).overflowX !== 'visible' && !past(box)) return true;
    }
    return false;
  };
  return Array.from(document.querySelectorAll('body *'))
    .filter((el) => past(el) && !clipped(el))
    .slice(0, 6)
    .map((el) => `${el.tagName.toLowerCase()}.${el.className}:`
      + Math.round(el.getBoundingClientRect().right));
}"""


def _overflow(page: Page) -> tuple[int, int]:
    width: list[int] = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    return width[0], width[1]


def _assert_nav_reachable(page: Page, width: int) -> None:
    menu = page.get_by_role("button", name="Menu")
    nav = page.get_by_role("navigation", name="Main")
    if width < 760:
        expect(nav).to_be_hidden()
        menu.click()
        expect(menu).to_have_attribute("aria-expanded", "true")
    else:
        expect(menu).to_be_hidden()
    for name in NAV_LINKS:
        expect(nav.get_by_role("link", name=name, exact=True)).to_be_visible()
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()
    if width < 760:
        menu.click()


def _axe(page: Page) -> list[dict[str, Any]]:
    page.add_script_tag(path=str(AXE_JS))
    violations: list[dict[str, Any]] = page.evaluate(
        """async () => (await axe.run(document, { resultTypes: ['violations'] })).violations
            .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length,
                           targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }))"""
    )
    return violations


def _screenshot(page: Page, name: str, width: int) -> None:
    if name not in SCREENSHOT_PAGES:
        return
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / f"{name}-{width}.png"
    page.screenshot(path=str(shot), full_page=False)
    if os.environ.get("UPDATE_DOCS_SCREENSHOTS") == "1":
        size = shot.stat().st_size
        assert size < SCREENSHOT_MAX_BYTES, f"{shot.name} is {size} bytes"
        shutil.copyfile(shot, DOCS_IMG / shot.name)


@pytest.mark.parametrize("width", sorted(WIDTHS, reverse=True))
def test_every_page_fits_the_window_keeps_its_nav_and_has_no_serious_axe_violation(
    product: Product, seeded: Seeded, browser: Browser, width: int
) -> None:
    # bypass_csp: axe-core is injected as an inline script, which the SPA's own policy
    # (script-src 'self') rightly blocks; the CSP itself is tested in test_browser.py.
    context = browser.new_context(
        viewport={"width": width, "height": WIDTHS[width]}, bypass_csp=True
    )
    page = context.new_page()
    overflowing: dict[str, tuple[int, list[str]]] = {}
    blocking: dict[str, list[dict[str, Any]]] = {}
    counts: dict[str, dict[str, int]] = {}
    try:
        sign_in(page, product)
        for name, path in seeded.pages().items():
            if name in SIGNED_OUT:
                context.clear_cookies()
            _open(page, f"{product.url}{path}")
            scroll_width, inner_width = _overflow(page)
            if scroll_width > inner_width:
                overflowing[name] = (scroll_width, page.evaluate(WIDEST_ELEMENTS))
            if name not in NO_NAV:
                _assert_nav_reachable(page, width)
            _screenshot(page, name, width)
            violations = _axe(page)
            counts[name] = {}
            for violation in violations:
                impact = violation["impact"] or "minor"
                counts[name][impact] = counts[name].get(impact, 0) + 1
            serious = [v for v in violations if v["impact"] in BLOCKING_IMPACTS]
            if serious:
                blocking[name] = serious
    finally:
        context.close()
        _record_axe_counts(width, counts)
    assert blocking == {}, json.dumps(blocking, indent=1)
    message = f"pages wider than the window (scrollWidth, elements past the edge): {overflowing}"
    assert overflowing == {}, message


def _record_axe_counts(width: int, counts: dict[str, dict[str, int]]) -> None:
    """Append a dated block of per-page violation counts for the issue note."""
    ARTIFACTS.mkdir(exist_ok=True)
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [f"# axe-core violations per page at {width} px, {stamp} (rules violated, by impact)"]
    for name, by_impact in counts.items():
        total = sum(by_impact.values())
        detail = ", ".join(f"{impact} {n}" for impact, n in sorted(by_impact.items()))
        lines.append(f"{name:<22} {total}" + (f"  ({detail})" if detail else ""))
    with AXE_COUNTS.open("a") as out:
        out.write("\n".join(lines) + "\n\n")


def _tab_to(page: Page, label: str, limit: int = 250) -> None:
    """Press Tab until the focused element's accessible label is `label` (a keyboard user's
    path through the page); fail if it is never reached."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        focused: str = page.evaluate(
            """() => { const el = document.activeElement; if (!el) return '';
                 const byLabel = el.labels && el.labels.length ? el.labels[0].textContent : '';
                 const name = el.getAttribute('aria-label') || byLabel || el.textContent || '';
                 return name.trim(); }"""
        )
        if focused == label:
            return
    raise AssertionError(f"{label!r} not reached in {limit} presses of Tab")


def test_new_experiment_form_is_filled_and_submitted_with_the_keyboard_alone(
    product: Product, seeded: Seeded, browser: Browser
) -> None:
    agents = [d for d in product.api("GET", "/api/devices/") if d["online"]]
    page = browser.new_page(viewport={"width": 390, "height": 844})
    name = f"Keyboard-only design {time.time_ns()}"
    try:
        sign_in(page, product)
        _open(page, f"{product.url}/experiments/new")
        _tab_to(page, "Name")
        page.keyboard.type(name)
        _tab_to(page, "Messages per device")
        page.keyboard.press("Control+A")
        page.keyboard.type("7")
        _tab_to(page, agents[0]["name"])
        device = page.get_by_role("checkbox", name=agents[0]["name"], exact=True)
        if not device.is_checked():  # the form may preselect the online devices
            page.keyboard.press("Space")
        expect(device).to_be_checked()
        _tab_to(page, "Create")
        page.keyboard.press("Enter")
        page.wait_for_url("**/experiments/*")
        expect(page.get_by_role("heading", name=name)).to_be_visible()
    finally:
        page.close()
    (created,) = product.api("GET", f"/api/experiments/?q={name.replace(' ', '%20')}")
    assert created["message_count"] == 7
    assert agents[0]["id"] in created["device_ids"]
    assert created["runs"] == []
