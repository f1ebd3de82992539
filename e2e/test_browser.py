"""The same path in headless Chromium (Debian's), driven by Playwright."""

from __future__ import annotations

import os
import shutil
import time

from playwright.sync_api import ConsoleMessage, Page, expect, sync_playwright

from e2e.conftest import AGENTS, Product
from scripts.stack import REPO_DIR

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-dev-shm-usage",
]
# The test always saves the page to e2e/artifacts/; with UPDATE_DOCS_SCREENSHOT=1 (make
# screenshot) it also refreshes the README's picture, so `make test` leaves the tree clean.
SCREENSHOT = REPO_DIR / "e2e" / "artifacts" / "run-page.png"
DOCS_SCREENSHOT = REPO_DIR / "docs" / "img" / "run-page.png"
# 100 messages at 40 ms intervals take ~4 s: long enough to watch progress live.
INTERVAL_MS = "40"
RUN_TIMEOUT_MS = 90_000


# The page's own policy (backend/config/settings/csp.py); the tests fail on any violation.
CSP_VIOLATION_LISTENER = """
window.addEventListener('securitypolicyviolation', (event) => console.error(
  `CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || 'inline'} ` +
  `at ${event.sourceFile}:${event.lineNumber}:${event.columnNumber}`));
"""


def watch_csp(page: Page) -> list[str]:
    """Collect every Content-Security-Policy violation of the page, from its
    `securitypolicyviolation` events and from Chromium's console messages about them."""
    violations: list[str] = []
    page.add_init_script(CSP_VIOLATION_LISTENER)

    def on_console(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text or message.text.startswith("CSP violation"):
            violations.append(message.text)

    page.on("console", on_console)
    return violations


def sign_in(page: Page, product: Product) -> None:
    response = page.goto(f"{product.url}/login")
    assert response is not None
    policy = response.headers.get("content-security-policy", "")
    # django-csp writes the directives in no fixed order: compare them as a mapping.
    directives: dict[str, str] = {}
    for directive in policy.split(";"):
        name, _, sources = directive.strip().partition(" ")
        directives[name] = sources.strip()
    assert directives.get("script-src") == "'self'", f"no strict script-src on the SPA: {policy!r}"
    page.get_by_label("Username").fill(product.username)
    page.get_by_label("Password").fill(product.password)
    page.get_by_role("button", name="Sign in").click()
    # The landing page (issue #21): devices' status and recent runs, or the first-run guide.
    expect(page.get_by_role("heading", name="Home", exact=True)).to_be_visible()


def watch_progress(page: Page) -> set[int]:
    """Sample the per-device progress bars until the run finishes; return the values seen."""
    seen: set[int] = set()
    deadline = time.monotonic() + RUN_TIMEOUT_MS / 1000
    status = page.get_by_text("Status:", exact=False).first
    while time.monotonic() < deadline:
        text = status.inner_text()
        if any(word in text for word in ("done", "failed", "cancelled")):
            break
        # One atomic read of every bar: they vanish when the run completes, and a locator
        # taken before that would wait for a bar that is gone (a CI failure).
        values = page.eval_on_selector_all(
            "[role=progressbar]", "bars => bars.map(b => b.getAttribute('aria-valuenow'))"
        )
        seen.update(int(float(v)) for v in values if v is not None)
        time.sleep(0.1)
    return seen


def test_run_page_shows_live_progress_then_histogram_boxplot_and_summary(product: Product) -> None:
    product.wait_devices_online()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        page = browser.new_page(viewport={"width": 1280, "height": 1600})
        csp_violations = watch_csp(page)
        try:
            sign_in(page, product)
            page.get_by_role("link", name="New experiment").first.click()
            expect(page.get_by_role("heading", name="New experiment")).to_be_visible()
            page.get_by_label("Name").fill("e2e browser run")
            expect(page.get_by_label("QoS", exact=True)).to_have_value("1")
            expect(page.get_by_label("Payload size (bytes)", exact=True)).to_have_value("66")
            expect(page.get_by_label("Messages per device", exact=True)).to_have_value("100")
            page.get_by_label("Interval between messages (ms)", exact=True).fill(INTERVAL_MS)
            for name in AGENTS:
                page.get_by_role("checkbox", name=name).check()
            page.get_by_role("button", name="Create and run").click()
            page.wait_for_url("**/runs/**")
            page.evaluate("window.__noReload = true")

            seen = watch_progress(page)
            assert any(0 < value < 100 for value in seen), f"no live progress seen: {seen}"
            expect(page.get_by_text("Status: done")).to_be_visible()
            assert page.evaluate("window.__noReload === true"), "the page reloaded"

            histogram = page.get_by_label("Round-trip time histogram")
            boxplot = page.get_by_label("Round-trip time boxplot")
            expect(histogram.locator(".js-plotly-plot")).to_be_visible()
            expect(boxplot.locator(".js-plotly-plot")).to_be_visible()
            # One trace per device in each plot.
            assert histogram.locator("g.trace").count() >= len(AGENTS) or histogram.locator(
                ".bars"
            ).count() >= len(AGENTS)
            summary = page.get_by_role("table", name="Summary")
            expect(summary).to_be_visible()
            body_rows = summary.locator("tbody tr")
            expect(body_rows).to_have_count(len(AGENTS) + 1)
            for name in (*AGENTS, "All devices"):
                expect(summary.get_by_role("row", name=name)).to_be_visible()
            SCREENSHOT.parent.mkdir(exist_ok=True)
            page.screenshot(path=str(SCREENSHOT), full_page=True)
            # The SPA and its Plotly charts work under the Content-Security-Policy.
            assert csp_violations == [], csp_violations
            if os.environ.get("UPDATE_DOCS_SCREENSHOT") == "1":
                shutil.copyfile(SCREENSHOT, DOCS_SCREENSHOT)
        finally:
            browser.close()


POWER_FIXTURE = REPO_DIR / "fixtures" / "power-traces" / "um25c-pyummeter.csv"
POWER_SCREENSHOT = REPO_DIR / "e2e" / "artifacts" / "power-trace.png"
PARSE_TIMEOUT_MS = 60_000


def test_power_trace_is_uploaded_confirmed_parsed_and_measured_in_the_browser(
    product: Product,
) -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        page = browser.new_page(viewport={"width": 1280, "height": 1800})
        csp_violations = watch_csp(page)
        try:
            sign_in(page, product)
            page.get_by_role("link", name="Power").first.click()
            expect(page.get_by_role("heading", name="Power traces")).to_be_visible()
            upload = page.get_by_role("region", name="Upload a trace")
            upload.locator("input[type=file]").set_input_files(str(POWER_FIXTURE))
            upload.get_by_role("textbox", name="Name (optional)", exact=True).fill("e2e um25c")
            upload.get_by_role("button", name="Upload").click()

            expect(page.get_by_role("heading", name="Power trace: e2e um25c")).to_be_visible()
            expect(
                page.get_by_role(
                    "heading", name="Detected: RDTech UM24C/UM25C/UM34C export — high confidence"
                )
            ).to_be_visible()
            form = page.get_by_role("form", name="Column mapping")
            expect(form.get_by_role("combobox", name="Power column")).to_have_value("3")
            form.get_by_role("button", name="Parse").click()

            # The real worker parses it; the page polls until it is parsed.
            expect(page.get_by_role("status").first).to_contain_text(
                "Status: parsed", timeout=PARSE_TIMEOUT_MS
            )
            figures = page.get_by_role("table", name="Figures")
            expect(figures).to_be_visible(timeout=PARSE_TIMEOUT_MS)
            # Mean power = energy / duration: the trapezoid over the six samples' power
            # column, 3.2876 J over 5.000113 s = 0.658 W; their plain average, 3.868 W / 6,
            # is shown as the sample mean.
            expect(
                figures.get_by_role(
                    "row", name="Mean power (W), energy / duration 0.658", exact=True
                )
            ).to_be_visible()
            expect(
                figures.get_by_role(
                    "row", name="Sample mean (W), plain average of the samples 0.645", exact=True
                )
            ).to_be_visible()
            expect(page.locator(".js-plotly-plot").first).to_be_visible()
            POWER_SCREENSHOT.parent.mkdir(exist_ok=True)
            page.screenshot(path=str(POWER_SCREENSHOT), full_page=True)
            assert csp_violations == [], csp_violations
        finally:
            browser.close()
