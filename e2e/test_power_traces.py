"""A power-meter file meets a real run: upload, parse in the real worker, align, figures."""

from __future__ import annotations

import time
import urllib.request
from datetime import UTC, datetime
from typing import Any

from e2e.conftest import Product
from e2e.test_full_path import DESIGN, wait_run_finished

UM25C_HEADER = (
    "Date;Voltage (V);Intensity (A);Power (W);Resistance (Ohm);USB D+ (V);USB D- (V);"
    "Charging Mode;Temperature (°C);Model;Recording;Record duration (sec);"
    "Record intensity (A);Record capacity (Ah);Record energy (Wh);Capacity (Ah);Energy (Wh)"
)
SAMPLE_S = 0.05
IDLE_A, BUSY_A, VOLTS = 0.2, 0.4, 5.0


def um25c_export(start_ns: int, end_ns: int) -> bytes:
    """A UM25C log (absolute local stamps, here UTC) from 2 s before to 2 s after a window,
    drawing 0.4 A inside the window and 0.2 A outside, at 5 V."""
    lines = [UM25C_HEADER]
    t_ns, stop_ns = start_ns - 2_000_000_000, end_ns + 2_000_000_000
    while t_ns <= stop_ns:
        amps = BUSY_A if start_ns <= t_ns <= end_ns else IDLE_A
        stamp = datetime.fromtimestamp(t_ns / 1e9, UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
        lines.append(
            f"{stamp};{VOLTS};{amps};{amps * VOLTS:.3f};25.0;0.0;0.0;0;27;UM25C;0;0;0.1;0;0;0;0"
        )
        t_ns += int(SAMPLE_S * 1e9)
    return ("\n".join(lines) + "\n").encode()


def wait_parsed(product: Product, trace_id: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    trace: dict[str, Any] = {}
    while time.monotonic() < deadline:
        product.stack.check_alive()
        trace = product.api("GET", f"/api/power-traces/{trace_id}/")
        if trace["status"] in ("parsed", "failed"):
            return trace
        time.sleep(0.2)
    raise AssertionError(f"trace not parsed after {timeout} s: {trace}")


def test_a_meter_log_of_a_real_run_is_aligned_by_its_timestamps_and_gives_energy_per_message(
    product: Product,
) -> None:
    device = product.wait_devices_online()[0]
    experiment = product.api(
        "POST",
        "/api/experiments/",
        {
            **DESIGN,
            "name": "e2e power",
            "message_count": 40,
            "interval_ms": 50,
            "device_ids": [device["id"]],
        },
    )
    run = wait_run_finished(
        product, product.api("POST", f"/api/experiments/{experiment['id']}/runs/")["id"]
    )
    assert run["status"] == "done", run["error"]
    ((first_ns, last_ns),) = product.sql(
        "SELECT min(r.t_send_ns), max(r.t_recv_ns) FROM measurements_messagerecord r"
        " JOIN experiments_rundevice rd ON rd.id = r.run_device_id WHERE rd.run_id = %s",
        run["id"],
    )
    body = um25c_export(first_ns, last_ns)

    trace = product.upload(
        "/api/power-traces/", "um25c.csv", body, {"run": run["id"], "device": device["id"]}
    )
    assert trace["status"] == "uploaded"
    assert trace["detection"]["format"] == "rdtech_um"
    spec = trace["detection"]["spec"]
    assert spec["time"]["unit"] == "datetime"

    product.api("POST", f"/api/power-traces/{trace['id']}/parse/", spec)
    trace = wait_parsed(product, trace["id"])
    assert trace["status"] == "parsed", trace["error"]
    assert trace["sample_count"] == body.count(b"\n") - 1
    assert trace["alignment"] == "absolute"
    run_s = (last_ns - first_ns) / 1e9
    assert abs(trace["run_window"]["start_s"] - 2.0) < 1e-3
    assert abs(trace["run_window"]["end_s"] - (2.0 + run_s)) < 1e-3
    # The raw file is kept byte for byte.
    request = urllib.request.Request(
        f"{product.url}/api/power-traces/{trace['id']}/raw/",
        headers={"Authorization": f"Token {product.api_token}"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.read() == body

    figures = product.api(
        "GET", f"/api/power-traces/{trace['id']}/figures/?baseline_current_a={IDLE_A}"
    )
    # Inside the run window the meter read 0.4 A at 5 V: 2 W, 1 W above the 0.2 A idle.
    assert abs(figures["mean_w"] - BUSY_A * VOLTS) < 1e-6
    assert figures["messages"] == 40
    window = figures["window"]["duration_s"]
    expected = (BUSY_A - IDLE_A) * VOLTS * window / 40
    assert abs(figures["net_energy_per_message_j"] - expected) < 1e-6

    plot = product.api("GET", f"/api/power-traces/{trace['id']}/plot/?points=100")
    assert plot["exact"] is False
    assert max(plot["max_w"]) == BUSY_A * VOLTS
    assert min(plot["min_w"]) == IDLE_A * VOLTS

    # The battery gauge's reading of the same run, beside the trace's integral (mAh x 3.6 x V).
    product.api(
        "POST",
        "/api/power-traces/battery-readings/",
        {"run": run["id"], "device": device["id"], "charge_mah": 0.5, "voltage_v": 3.82},
    )
    figures = product.api(
        "GET", f"/api/power-traces/{trace['id']}/figures/?baseline_current_a={IDLE_A}"
    )
    battery = figures["battery"]
    assert battery["source"] == "battery gauge"
    assert abs(battery["energy_j"] - 0.5 * 3.6 * 3.82) < 1e-9
    assert abs(battery["energy_per_message_j"] - 0.5 * 3.6 * 3.82 / 40) < 1e-9
    assert figures["warnings"] == []  # 20 Hz over the run's ~2 s: well measured

    # A window shorter than the meter's 50 ms sample period is computed, and says so.
    narrow = product.api("GET", f"/api/power-traces/{trace['id']}/figures/?start=1.99&end=2.02")
    codes = [w["code"] for w in narrow["warnings"]]
    assert codes == ["few_samples", "sample_period_exceeds_window"], narrow["warnings"]
