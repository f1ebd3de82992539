from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from core.testing.factories import DeviceFactory, ExperimentFactory
from experiments.models import Run, RunDevice, RunStatus
from measurements.models import MessageRecord

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


T0_NS = 1_763_770_000_000_000_000  # 2025-11-22T00:06:40Z


def parsed_trace(
    owner_client: Any, parse: Any, rows: list[tuple[float, float, float]], **kw: Any
) -> str:
    trace_id: str = upload(owner_client, vi_csv(rows), **kw).json()["id"]
    parse(trace_id, kw.pop("spec", None) or CUSTOM_SPEC)
    assert owner_client.get(f"/api/power-traces/{trace_id}/").json()["status"] == "parsed"
    return trace_id


def run_of(personas: Any, *, messages: int, gap_ns: int, answer_ns: int) -> tuple[Run, Any]:
    """A done run whose one device sent `messages` from T0, `gap_ns` apart, each answered
    `answer_ns` later."""
    device = DeviceFactory.create(workspace=personas.workspace)
    experiment = ExperimentFactory.create(workspace=personas.workspace, devices=[device])
    run = Run.objects.create(experiment=experiment, status=RunStatus.DONE)
    part = RunDevice.objects.create(run=run, device=device, total=messages)
    MessageRecord.objects.bulk_create(
        MessageRecord(
            run_device=part,
            seq=i,
            t_send_ns=T0_NS + i * gap_ns,
            t_recv_ns=T0_NS + i * gap_ns + answer_ns,
            app_bytes=66,
            wire_bytes=163,
            outcome="ok",
        )
        for i in range(messages)
    )
    return run, device


@pytest.fixture
def run_with_messages(personas: Any) -> tuple[Run, Any]:
    """A run whose device sent 10 messages, 1 s apart from T0, each answered 0.5 s later."""
    return run_of(personas, messages=10, gap_ns=1_000_000_000, answer_ns=500_000_000)


# A time column of wall-clock stamps, "2025-11-22 00:06:37", in UTC.
DATETIME_SPEC: dict[str, Any] = {
    **CUSTOM_SPEC,
    "time": {
        "column": 0,
        "unit": "datetime",
        "datetime_format": "%Y-%m-%d %H:%M:%S",
        "timezone": "UTC",
    },
}
