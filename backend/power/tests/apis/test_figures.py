"""Plot data, alignment with a run, energy figures and battery projections (hand-computed)."""

from __future__ import annotations

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from power import plot, projection
from power.tests.conftest import CUSTOM_SPEC, DATETIME_SPEC, parsed_trace, upload, vi_csv

pytestmark = pytest.mark.django_db


def test_a_small_window_is_plotted_sample_by_sample(owner_client, parse) -> None:
    trace_id = parsed_trace(owner_client, parse, [(i * 0.1, 5.0, 0.1 * (i % 3)) for i in range(50)])
    data = owner_client.get(f"/api/power-traces/{trace_id}/plot/?start=1&end=2&points=100").json()
    assert data["exact"] is True
    assert data["t"] == pytest.approx([1.0 + 0.1 * k for k in range(11)])
    assert data["min_w"] == data["max_w"] == data["mean_w"]
    assert data["min_w"][:3] == pytest.approx([0.5, 1.0, 0.0])
    assert data["run_window"] is None


@pytest.mark.parametrize("raw_limit", [10**9, 1000], ids=["from samples", "from envelopes"])
def test_downsampling_keeps_every_spike_visible(
    owner_client, parse, monkeypatch, raw_limit
) -> None:
    monkeypatch.setattr(plot, "RAW_PLOT_LIMIT", raw_limit)
    rows = [(i * 0.001, 5.0, 1.0 if i == 42_345 else 0.1) for i in range(60_000)]
    trace_id = parsed_trace(owner_client, parse, rows)
    data = owner_client.get(f"/api/power-traces/{trace_id}/plot/?points=100").json()
    assert data["exact"] is False
    assert data["samples"] == 60_000
    assert len(data["t"]) == 100
    assert max(data["max_w"]) == pytest.approx(5.0)  # the one 1 A sample at 5 V
    assert min(data["min_w"]) == pytest.approx(0.5)
    assert np.mean(data["mean_w"]) == pytest.approx(0.5 + 4.5 / 60_000, rel=1e-3)
    assert data["t"] == sorted(data["t"])


def test_an_empty_window_is_a_clear_error(owner_client, parse) -> None:
    trace_id = parsed_trace(owner_client, parse, [(i * 0.1, 5.0, 0.1) for i in range(10)])
    response = owner_client.get(f"/api/power-traces/{trace_id}/plot/?start=50&end=60")
    assert response.status_code == 400
    assert response.json()["code"] == "power_window_invalid"
    assert "0-0.900 s" in response.json()["message"]


def test_figures_of_a_run_window_set_by_offset(owner_client, parse, run_with_messages) -> None:
    run, device = run_with_messages
    # 2 W for the first 5 s, 4 W from 5 s to 20 s; samples every 0.5 s.
    rows = [(i * 0.5, 5.0, 0.4 if i * 0.5 < 5 else 0.8) for i in range(41)]
    trace_id = parsed_trace(owner_client, parse, rows, run=str(run.pk), device=str(device.pk))
    before = owner_client.get(f"/api/power-traces/{trace_id}/").json()
    assert before["alignment"] == "none"
    assert before["run_window"] == {"start_s": 0.0, "end_s": 9.5}
    patched = owner_client.patch(
        f"/api/power-traces/{trace_id}/", {"offset_s": 6.0}, format="json"
    ).json()
    assert patched["alignment"] == "manual"
    assert patched["run_window"] == {"start_s": 6.0, "end_s": 15.5}
    fig = owner_client.get(f"/api/power-traces/{trace_id}/figures/?baseline_w=1.5").json()
    assert fig["window"] == {"start_s": 6.0, "end_s": 15.5, "duration_s": 9.5, "samples": 20}
    assert fig["mean_w"] == pytest.approx(4.0)
    assert fig["energy_j"] == pytest.approx(4.0 * 9.5)
    assert fig["net_energy_j"] == pytest.approx(2.5 * 9.5)
    assert fig["messages"] == 10
    assert fig["energy_per_message_j"] == pytest.approx(3.8)
    assert fig["net_energy_per_message_j"] == pytest.approx(2.375)
    assert fig["charge_mah"] == pytest.approx(0.8 * 9.5 / 3.6, rel=1e-6)
    assert fig["baseline"] == {"source": "constant", "power_w": 1.5}


def test_absolute_timestamps_align_the_run_by_themselves(
    owner_client, parse, run_with_messages
) -> None:
    run, device = run_with_messages
    # The meter started 3 s before the run's first message: 2025-11-22 00:06:37 UTC.
    body = b"time,voltage,current\n" + b"".join(
        b"2025-11-22 00:06:%02d,5.0,0.5\n" % (37 + s) for s in range(20)
    )
    trace_id = upload(owner_client, body, run=str(run.pk), device=str(device.pk)).json()["id"]
    parse(trace_id, DATETIME_SPEC)
    data = owner_client.get(f"/api/power-traces/{trace_id}/").json()
    assert data["status"] == "parsed", data["error"]
    assert data["absolute_start"] == "2025-11-22T00:06:37Z"
    assert data["alignment"] == "absolute"
    assert data["run_window"] == {"start_s": pytest.approx(3.0), "end_s": pytest.approx(12.5)}


def test_baseline_and_reference_traces_give_net_energy_and_overhead(owner_client, parse) -> None:
    # The SRUP paper's means: 1.31 W (MQTT) and 2.04 W (SRUP).
    mqtt = parsed_trace(owner_client, parse, [(i, 5.0, 1.31 / 5) for i in range(11)])
    srup = parsed_trace(owner_client, parse, [(i, 5.0, 2.04 / 5) for i in range(11)])
    idle = parsed_trace(
        owner_client, parse, [(i, 5.0, 0.2) for i in range(5)], baseline_name="idle"
    )
    fig = owner_client.get(
        f"/api/power-traces/{srup}/figures/?baseline_trace={idle}&reference_trace={mqtt}"
    ).json()
    assert fig["baseline"] == {"source": "trace", "power_w": pytest.approx(1.0)}
    assert fig["net_mean_w"] == pytest.approx(1.04, rel=1e-5)
    assert fig["reference"]["mean_w"] == pytest.approx(1.31, rel=1e-5)
    assert fig["reference"]["overhead_w"] == pytest.approx(0.73, rel=1e-4)
    assert fig["reference"]["overhead_pct"] == pytest.approx(55.73, abs=0.01)


def test_a_baseline_current_needs_a_voltage(owner_client, parse) -> None:
    spec = {
        **CUSTOM_SPEC,
        "voltage": None,
        "current": {"column": 2, "unit": "A"},
        "supply_voltage_v": 5.0,
    }
    trace_id = upload(owner_client, vi_csv([(i, 5.0, 0.5) for i in range(5)])).json()["id"]
    parse(trace_id, spec)
    # MQTT-SN paper: 5 V supply, idle 285 mA subtracted.
    fig = owner_client.get(f"/api/power-traces/{trace_id}/figures/?baseline_current_a=0.285").json()
    assert fig["baseline"]["power_w"] == pytest.approx(1.425)
    assert fig["net_mean_w"] == pytest.approx(2.5 - 1.425)
    two = owner_client.get(
        f"/api/power-traces/{trace_id}/figures/?baseline_w=1&baseline_current_a=0.2"
    )
    assert two.status_code == 400


def test_projection_of_continuous_and_duty_cycled_life(
    owner_client, parse, run_with_messages
) -> None:
    run, device = run_with_messages
    rows = [(i * 0.5, 5.0, 0.4) for i in range(20)]  # 2 W over the 9.5 s window
    trace_id = parsed_trace(owner_client, parse, rows, run=str(run.pk), device=str(device.pk))
    data = owner_client.get(
        f"/api/power-traces/projection/?trace={trace_id}&capacity_mah=10000"
        "&capacity_voltage_v=5&baseline_w=1&rate_max_per_min=60"
    ).json()
    assert data["capacity_wh"] == 50.0
    assert len(data["rates_per_min"]) == 61
    series = data["series"][0]
    assert series["continuous_hours"] == pytest.approx(25.0)
    # net energy per message: (2 W - 1 W) x 9.5 s / 10 messages = 0.95 J
    assert series["energy_per_message_j"] == pytest.approx(0.95)
    assert series["hours"][0] == pytest.approx(50.0)
    assert series["hours"][-1] == pytest.approx(50 / (1 + 0.95), rel=1e-4)


def test_projection_without_a_baseline_says_why(owner_client, parse) -> None:
    trace_id = parsed_trace(owner_client, parse, [(i, 5.0, 0.4) for i in range(5)])
    data = owner_client.get(f"/api/power-traces/projection/?trace={trace_id}&capacity_wh=50").json()
    assert data["series"][0]["hours"] is None
    assert data["series"][0]["reason"] == projection.NO_BASELINE_REASON
    missing = owner_client.get(f"/api/power-traces/projection/?trace={trace_id}")
    assert missing.status_code == 400


def test_projection_reads_its_traces_in_one_query(owner_client, parse) -> None:
    rows = [(float(i), 5.0, 0.4) for i in range(5)]
    ids = [parsed_trace(owner_client, parse, rows) for _ in range(3)]
    trace_reads = []
    for count in (1, 3):
        query = "&".join(f"trace={trace_id}" for trace_id in ids[:count])
        with CaptureQueriesContext(connection) as queries:
            answer = owner_client.get(f"/api/power-traces/projection/?{query}&capacity_wh=50")
        assert answer.status_code == 200
        assert len(answer.json()["series"]) == count
        trace_reads.append(
            sum(q["sql"].startswith('SELECT "power_powertrace"') for q in queries.captured_queries)
        )
    assert trace_reads[0] == trace_reads[1] == 1


def test_projection_names_the_first_trace_it_cannot_use(owner_client, parse) -> None:
    trace_id = parsed_trace(owner_client, parse, [(i, 5.0, 0.4) for i in range(5)])
    unknown = "00000000-0000-4000-8000-000000000000"
    answer = owner_client.get(
        f"/api/power-traces/projection/?trace={trace_id}&trace={unknown}&capacity_wh=50"
    )
    assert answer.status_code == 400
    assert unknown in str(answer.json())
