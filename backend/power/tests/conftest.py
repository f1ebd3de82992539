from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

CUSTOM_SPEC: dict[str, Any] = {
    "format": "custom",
    "delimiter": ",",
    "decimal_comma": False,
    "skip_lines": 1,
    "time": {"column": 0, "unit": "s", "datetime_format": None, "timezone": "UTC"},
    "sample_rate_hz": None,
    "voltage": {"column": 1, "unit": "V"},
    "current": {"column": 2, "unit": "A"},
    "power": None,
    "supply_voltage_v": None,
}


def vi_csv(rows: list[tuple[float, float, float]]) -> bytes:
    """A plain time,voltage,current CSV (seconds, volts, amperes)."""
    out = io.StringIO()
    out.write("time_s,voltage_v,current_a\n")
    for t, v, i in rows:
        out.write(f"{t:.6f},{v:.4f},{i:.6f}\n")
    return out.getvalue().encode()


def upload(client: APIClient, body: bytes, name: str = "trace.csv", **fields: Any) -> Any:
    data = {"file": SimpleUploadedFile(name, body, content_type="text/csv"), **fields}
    return client.post("/api/power-traces/", data, format="multipart")


@pytest.fixture
def parse(
    owner_client: APIClient, django_capture_on_commit_callbacks: Callable[..., Any]
) -> Callable[..., Any]:
    """POST a spec to a trace's parse endpoint and run the queued parse task (eagerly)."""

    def run(trace_id: str, spec: dict[str, Any] | None = None) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            response = owner_client.post(
                f"/api/power-traces/{trace_id}/parse/", spec or CUSTOM_SPEC, format="json"
            )
        return response

    return run
