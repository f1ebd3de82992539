"""A 3 x 2 x 2 matrix (three mechanisms, two payload sizes, two repeats) run for real through
the worker and the agents, then its results page and the compare view in headless Chromium
(issue #20, point 7)."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from playwright.sync_api import ViewportSize, expect, sync_playwright

from e2e.conftest import Product
from e2e.test_browser import CHROMIUM, CHROMIUM_ARGS, sign_in, watch_csp
from e2e.test_full_path import DESIGN, wait_run_finished

MECHANISMS = ["none", "null", "aes-128-cbc"]
PAYLOADS = [16, 1024]
REPEATS = 2
CELLS = len(MECHANISMS) * len(PAYLOADS)
# Small runs: 12 of them finish in well under two minutes on an idle machine.
MESSAGES = 20
# A laptop screen: the compare view's overhead column must be in view without scrolling.
LAPTOP: ViewportSize = {"width": 1440, "height": 900}
PAGE_TIMEOUT_MS = 60_000


def _run_matrix(product: Product) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    device = product.wait_devices_online()[0]
    experiment = product.api(
        "POST",
        "/api/experiments/",
        {
            **DESIGN,
            "name": "e2e results matrix",
            "message_count": MESSAGES,
            "interval_ms": 0,
            "device_ids": [device["id"]],
            "axes": [
                {"parameter": "security", "values": MECHANISMS},
                {"parameter": "payload_size", "values": PAYLOADS},
            ],
            "repeats": REPEATS,
        },
    )
    product.api("POST", f"/api/experiments/{experiment['id']}/runs/")
    listed = product.api("GET", f"/api/experiments/{experiment['id']}/")["runs"]
    assert len(listed) == CELLS * REPEATS
    runs = [
        wait_run_finished(product, r["id"]) for r in sorted(listed, key=lambda r: r["position"])
    ]
    assert [r["status"] for r in runs] == ["done"] * len(runs), [r["error"] for r in runs]
    return experiment, runs


def _the_run(runs: list[dict[str, Any]], security: str, payload: int, repeat: int) -> str:
    (run,) = [
        r
        for r in runs
        if r["spec"]["security"] == security
        and r["spec"]["payload_size"] == payload
        and r["repeat"] == repeat
    ]
    return str(run["id"])


def test_a_three_by_two_by_two_matrix_shows_its_cells_figure_table_and_one_compare_pair(
    product: Product, tmp_path: Path
) -> None:
    experiment, runs = _run_matrix(product)
    # Every run is named by what tells it apart: its cell and its repeat.
    assert all(r["label"].endswith(f" · repeat {r['repeat']}") for r in runs), runs
    assert len({r["label"] for r in runs}) == len(runs)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        page = browser.new_context(viewport=LAPTOP, accept_downloads=True).new_page()
        page.set_default_timeout(PAGE_TIMEOUT_MS)
        csp_violations = watch_csp(page)
        try:
            sign_in(page, product)
            page.goto(f"{product.url}/experiments/{experiment['id']}/results")

            # Six cells, each over its two runs, each with an interval.
            table = page.get_by_role("table", name="Cells of this experiment")
            rows = table.locator("tbody tr")
            expect(rows).to_have_count(CELLS)
            for n in range(CELLS):
                expect(rows.nth(n).locator("td").nth(1)).to_have_text(str(REPEATS))
                expect(rows.nth(n)).to_contain_text("over runs")
                expect(rows.nth(n)).to_contain_text("[")  # "value ms [low, high]"

            # The figure: one bar per cell, each with its error bar.
            figure = page.get_by_role("region", name="Results figure")
            expect(figure.locator(".js-plotly-plot")).to_be_visible()
            expect(figure.locator("g.trace.bars g.point")).to_have_count(CELLS)
            expect(figure.locator("g.errorbar path.yerror")).to_have_count(CELLS)
            expect(figure.locator(".gtitle")).to_contain_text("e2e results matrix")

            # The table as CSV: a header and one row per cell.
            with page.expect_download() as download_info:
                page.get_by_role("link", name="CSV", exact=True).click()
            saved = tmp_path / "results.csv"
            download_info.value.save_as(saved)
            table_rows = list(csv.DictReader(io.StringIO(saved.read_text())))
            assert len(table_rows) == CELLS, table_rows

            # Two runs that differ only in the mechanism: one pair, aes against none.
            none = _the_run(runs, "none", 1024, 1)
            aes = _the_run(runs, "aes-128-cbc", 1024, 1)
            page.goto(f"{product.url}/compare?run={aes}&run={none}")
            pairs = page.get_by_role("table", name="Paired comparisons")
            pair_rows = pairs.locator("tbody tr")
            expect(pair_rows).to_have_count(1)
            row_header = pair_rows.first.get_by_role("rowheader")
            expect(row_header).to_contain_text("security: none → aes-128-cbc")
            expect(row_header).to_contain_text("repeat 1")
            expect(pairs).not_to_contain_text("p-value")
            expect(pairs).not_to_contain_text(aes[:8])  # named by parameters, not by a hash
            # The overhead column lies inside the 1440 px viewport, no sideways scrolling.
            header = pairs.get_by_role("columnheader", name="Overhead (ms) [95% CI]")
            expect(header).to_be_visible()
            box = header.bounding_box()
            assert box is not None
            assert box["x"] >= 0
            assert box["x"] + box["width"] <= LAPTOP["width"], box
            overhead = pair_rows.first.locator("td").first
            cell_box = overhead.bounding_box()
            assert cell_box is not None
            assert cell_box["x"] + cell_box["width"] <= LAPTOP["width"], cell_box
            assert csp_violations == [], csp_violations
        finally:
            browser.close()
