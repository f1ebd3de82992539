"""Battery-gauge readings: recorded per run and device, shown beside the trace's energy."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import client_for

from core.testing.factories import DeviceFactory
from power.models import BatteryReading
from power.tests.conftest import parsed_trace

pytestmark = pytest.mark.django_db

URL = "/api/power-traces/battery-readings/"
# The MQTT vs CoAP paper's rule: J = mAh x 3.6 x 3.82 V.
CHARGE_MAH = 0.5
VOLTAGE_V = 3.82
JOULES = CHARGE_MAH * 3.6 * VOLTAGE_V  # 6.876 J


def record(client: Any, run: Any, device: Any = None, **body: Any) -> Any:
    payload = {"run": str(run.pk), "charge_mah": CHARGE_MAH, "voltage_v": VOLTAGE_V, **body}
    if device is not None:
        payload["device"] = str(device.pk)
    return client.post(URL, payload, format="json")


def test_owner_records_a_reading_and_its_energy_is_mah_x_3_6_x_volts(
    owner_client, run_with_messages
) -> None:
    run, device = run_with_messages
    response = record(owner_client, run, device)
    assert response.status_code == 201
    assert response.json()["energy_j"] == pytest.approx(JOULES)
    row = BatteryReading.objects.get()
    assert (row.run_id, row.device_id, row.charge_mah, row.voltage_v) == (
        run.pk,
        device.pk,
        CHARGE_MAH,
        VOLTAGE_V,
    )


def test_recording_again_replaces_the_reading(owner_client, run_with_messages) -> None:
    run, device = run_with_messages
    record(owner_client, run, device)
    again = record(owner_client, run, device, charge_mah=0.75)
    assert again.status_code == 201
    assert list(BatteryReading.objects.values_list("charge_mah", flat=True)) == [0.75]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"charge_mah": 0}, "charge_mah"),
        ({"charge_mah": -1.0}, "charge_mah"),
        ({"charge_mah": 1e6}, "charge_mah"),
        ({"voltage_v": 0}, "voltage_v"),
        ({"voltage_v": 230}, "voltage_v"),
    ],
)
def test_out_of_range_readings_are_refused_naming_the_field(
    owner_client, run_with_messages, body, field
) -> None:
    run, device = run_with_messages
    response = record(owner_client, run, device, **body)
    assert response.status_code == 400
    assert response.json()["code"] == "power_battery_reading_invalid"
    assert response.json()["extra"] == {"field": field}
    assert response.json()["message"].startswith(f"{field} must be more than 0 and at most")
    assert not BatteryReading.objects.exists()


def test_a_device_outside_the_run_is_refused(owner_client, personas, run_with_messages) -> None:
    run, _ = run_with_messages
    stranger = DeviceFactory.create(workspace=personas.workspace)
    response = record(owner_client, run, stranger)
    assert (response.status_code, response.json()["extra"]) == (400, {"field": "device"})
    assert not BatteryReading.objects.exists()


def test_figures_show_the_battery_gauge_beside_the_trace(
    owner_client, parse, run_with_messages
) -> None:
    run, device = run_with_messages
    rows = [(i * 0.5, 5.0, 0.4) for i in range(20)]  # 2 W over the 9.5 s run window
    trace_id = parsed_trace(owner_client, parse, rows, run=str(run.pk), device=str(device.pk))
    record(owner_client, run, device)
    fig = owner_client.get(f"/api/power-traces/{trace_id}/figures/?baseline_w=0.5").json()
    battery = fig["battery"]
    assert battery["source"] == "battery gauge"
    assert battery["energy_j"] == pytest.approx(JOULES)
    assert battery["duration_s"] == pytest.approx(9.5)
    assert battery["mean_w"] == pytest.approx(JOULES / 9.5)
    assert battery["energy_per_message_j"] == pytest.approx(JOULES / 10)
    assert battery["net_energy_per_message_j"] == pytest.approx((JOULES - 0.5 * 9.5) / 10)
    assert fig["energy_j"] == pytest.approx(2.0 * 9.5)  # the trace's own figure, unchanged


def test_projection_adds_a_battery_gauge_series(owner_client, parse, run_with_messages) -> None:
    run, device = run_with_messages
    rows = [(i * 0.5, 5.0, 0.4) for i in range(20)]
    trace_id = parsed_trace(owner_client, parse, rows, run=str(run.pk), device=str(device.pk))
    record(owner_client, run, device)
    data = owner_client.get(
        f"/api/power-traces/projection/?trace={trace_id}&capacity_wh=50&baseline_w=0.5"
    ).json()
    trace_series, gauge = data["series"]
    assert (trace_series["source"], gauge["source"]) == ("trace", "battery gauge")
    assert gauge["mean_w"] == pytest.approx(JOULES / 9.5)
    assert gauge["continuous_hours"] == pytest.approx(50 / (JOULES / 9.5), rel=1e-4)
    net = (JOULES - 0.5 * 9.5) / 10
    assert gauge["energy_per_message_j"] == pytest.approx(net)
    assert gauge["hours"][-1] == pytest.approx(50 / (0.5 + net), rel=1e-4)


def test_a_trace_without_a_reading_has_no_battery_figures(
    owner_client, parse, run_with_messages
) -> None:
    run, device = run_with_messages
    rows = [(i * 0.5, 5.0, 0.4) for i in range(20)]
    trace_id = parsed_trace(owner_client, parse, rows, run=str(run.pk), device=str(device.pk))
    assert owner_client.get(f"/api/power-traces/{trace_id}/figures/").json()["battery"] is None


# --- personas ------------------------------------------------------------------------------


@pytest.mark.parametrize("persona", ["owner", "teammate"])
def test_workspace_members_record_list_and_delete_readings(
    personas, run_with_messages, persona
) -> None:
    run, device = run_with_messages
    client = client_for(getattr(personas, persona))
    reading_id = record(client, run, device).json()["id"]
    listed = client.get(f"{URL}?run={run.pk}")
    assert [r["id"] for r in listed.json()] == [reading_id]
    assert client.delete(f"{URL}{reading_id}/").status_code == 204
    assert not BatteryReading.objects.exists()


def test_outsider_cannot_record_a_reading_on_a_lab_run(outsider_client, run_with_messages) -> None:
    run, _ = run_with_messages
    response = record(outsider_client, run)
    assert response.status_code == 400
    assert response.json()["extra"]["fields"]["run"] == ["No run with this id in your workspace."]
    assert not BatteryReading.objects.exists()


def test_outsider_neither_lists_nor_deletes_a_lab_reading(
    owner_client, outsider_client, run_with_messages
) -> None:
    run, device = run_with_messages
    reading_id = record(owner_client, run, device).json()["id"]
    assert outsider_client.get(URL).json() == []
    assert outsider_client.delete(f"{URL}{reading_id}/").status_code == 404
    assert BatteryReading.objects.filter(pk=reading_id).exists()


def test_anonymous_cannot_record(anonymous_client, run_with_messages) -> None:
    run, _ = run_with_messages
    assert record(anonymous_client, run).status_code == 401
    assert not BatteryReading.objects.exists()
