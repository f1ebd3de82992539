"""Warnings in the figures, projection and trace responses; the supply-voltage prompt."""

from __future__ import annotations

from typing import Any

import pytest

from experiments.models import Run
from power import services
from power.models import PowerTrace, TraceStatus
from power.tests.conftest import DATETIME_SPEC, parsed_trace, run_of, upload
from power.warnings import ALIGNMENT_FAR, FEW_SAMPLES, SAMPLE_PERIOD_EXCEEDS_WINDOW

pytestmark = pytest.mark.django_db


@pytest.fixture
def short_run(personas: Any) -> tuple[Run, Any]:
    """A 0.1 s run: two messages, 50 ms apart, the second answered 50 ms later."""
    return run_of(personas, messages=2, gap_ns=50_000_000, answer_ns=50_000_000)


def codes(warnings: list[dict[str, str]]) -> list[str]:
    return [w["code"] for w in warnings]


def test_a_1_hz_trace_on_a_tenth_of_a_second_run_warns(owner_client, parse, short_run) -> None:
    run, device = short_run
    rows = [(float(i), 5.0, 0.2) for i in range(30)]  # a UM25C-like 1 Hz log, 1 W
    trace_id = parsed_trace(owner_client, parse, rows, run=str(run.pk), device=str(device.pk))
    owner_client.patch(f"/api/power-traces/{trace_id}/", {"offset_s": 3.0}, format="json")
    fig = owner_client.get(f"/api/power-traces/{trace_id}/figures/").json()
    assert fig["window"]["samples"] == 1
    assert fig["energy_j"] == 0.0
    assert codes(fig["warnings"]) == [FEW_SAMPLES, SAMPLE_PERIOD_EXCEEDS_WINDOW]
    projection = owner_client.get(
        f"/api/power-traces/projection/?trace={trace_id}&capacity_wh=50&baseline_w=0.5"
    ).json()
    assert codes(projection["series"][0]["warnings"]) == codes(fig["warnings"])


def test_a_well_sampled_window_has_no_warnings(owner_client, parse) -> None:
    trace_id = parsed_trace(owner_client, parse, [(i * 0.1, 5.0, 0.2) for i in range(50)])
    fig = owner_client.get(f"/api/power-traces/{trace_id}/figures/").json()
    assert fig["warnings"] == []
    assert fig["mean_w"] == pytest.approx(1.0)
    assert fig["sample_mean_w"] == pytest.approx(1.0)


def test_figures_mean_is_energy_over_duration_on_an_uneven_trace(owner_client, parse) -> None:
    # 1 W at 1 Hz for 10 s, then 2 W at 100 Hz for 1 s (5 V, 0.2 A then 0.4 A).
    rows = [(float(i), 5.0, 0.2) for i in range(11)]
    rows += [(10.0 + k * 0.01, 5.0, 0.4) for k in range(1, 101)]
    trace_id = parsed_trace(owner_client, parse, rows)
    fig = owner_client.get(f"/api/power-traces/{trace_id}/figures/").json()
    hand_energy = 10.0 + 0.01 * 1.5 + 0.99 * 2.0  # trapezoids, by hand
    assert fig["energy_j"] == pytest.approx(hand_energy, rel=1e-5)
    assert fig["mean_w"] == pytest.approx(hand_energy / 11.0, rel=1e-5)
    assert fig["sample_mean_w"] == pytest.approx(211 / 111, rel=1e-5)


def test_a_2024_trace_on_a_2025_run_warns_and_says_how_to_align(
    owner_client, parse, run_with_messages
) -> None:
    run, device = run_with_messages
    body = b"time,voltage,current\n" + b"".join(
        b"2024-01-01 00:00:%02d,5.0,0.5\n" % s for s in range(20)
    )
    trace_id = upload(owner_client, body, run=str(run.pk), device=str(device.pk)).json()["id"]
    parse(trace_id, DATETIME_SPEC)
    detail = owner_client.get(f"/api/power-traces/{trace_id}/").json()
    assert detail["alignment"] == "absolute"
    assert codes(detail["warnings"]) == [ALIGNMENT_FAR]
    assert "days apart" in detail["warnings"][0]["message"]

    figures = owner_client.get(f"/api/power-traces/{trace_id}/figures/")
    assert figures.status_code == 400
    assert figures.json()["code"] == "power_window_invalid"
    assert "Align them by hand" in figures.json()["message"]
    assert codes(figures.json()["extra"]["warnings"]) == [ALIGNMENT_FAR]

    # The manual offset the warning points to fixes it.
    aligned = owner_client.patch(
        f"/api/power-traces/{trace_id}/", {"offset_s": 2.0}, format="json"
    ).json()
    assert (aligned["alignment"], aligned["warnings"]) == ("manual", [])
    fig = owner_client.get(f"/api/power-traces/{trace_id}/figures/").json()
    assert fig["window"]["samples"] == 10
    assert fig["mean_w"] == pytest.approx(2.5)


CURRENT_ONLY = b"Timestamp(ms),Current(uA)\n" + b"".join(
    b"%d,1200.0\n" % (i * 10) for i in range(50)
)


def test_a_current_only_upload_says_the_supply_voltage_is_needed(owner_client) -> None:
    detection = upload(owner_client, CURRENT_ONLY, name="ppk.csv").json()["detection"]
    assert detection["spec"]["supply_voltage_v"] is None
    assert [(n["field"], n["label"]) for n in detection["needs"]] == [
        ("supply_voltage_v", "supply voltage needed")
    ]


def test_parsing_without_the_supply_voltage_asks_for_it(owner_client, parse) -> None:
    created = upload(owner_client, CURRENT_ONLY, name="ppk.csv").json()
    response = parse(created["id"], created["detection"]["spec"])
    assert response.status_code == 400
    assert response.json()["code"] == "power_supply_voltage_needed"
    assert response.json()["message"] == services.SUPPLY_VOLTAGE_NEEDED_MESSAGE
    assert response.json()["extra"] == {
        "field": "supply_voltage_v",
        "needed": "supply voltage needed",
    }
    assert PowerTrace.objects.get(pk=created["id"]).status == TraceStatus.UPLOADED
    given = parse(created["id"], {**created["detection"]["spec"], "supply_voltage_v": 5.0})
    assert given.status_code == 202
    trace = PowerTrace.objects.get(pk=created["id"])
    assert (trace.status, trace.supply_voltage_v) == (TraceStatus.PARSED, 5.0)


def test_a_file_with_voltage_needs_nothing(owner_client) -> None:
    body = b"time_s,voltage_v,current_a\n0,5,0.1\n1,5,0.1\n"
    assert upload(owner_client, body).json()["detection"]["needs"] == []
