"""Upload, parse, list, update and delete power traces through the API."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from core.testing.factories import DeviceFactory, ExperimentFactory
from core.testing.http import declared_body
from experiments.models import Run, RunDevice, RunStatus
from power.models import PowerSampleBlock, PowerTrace, TraceStatus
from power.parsing import MAX_LINE_BYTES
from power.services import (
    BUSY_MESSAGE,
    DEVICE_NOT_IN_RUN_MESSAGE,
    TOO_LARGE_MESSAGE,
    trace_parse,
)
from power.tests.conftest import CUSTOM_SPEC, upload, vi_csv

pytestmark = pytest.mark.django_db

ROWS = [(i * 0.5, 5.0, 0.2 + 0.01 * i) for i in range(20)]


def test_upload_keeps_the_raw_file_and_suggests_a_spec(owner_client, personas) -> None:
    body = vi_csv(ROWS)
    response = upload(owner_client, body, name="bench.csv")
    assert response.status_code == 201, response.json()
    data = response.json()
    assert data["status"] == "uploaded"
    assert data["original_filename"] == "bench.csv"
    assert data["size_bytes"] == len(body)
    assert data["detection"]["spec"]["delimiter"] == ","
    assert data["detection"]["header"] == ["time_s", "voltage_v", "current_a"]
    trace = PowerTrace.objects.get(pk=data["id"])
    assert trace.workspace == personas.workspace
    assert trace.kind == "device"
    with trace.raw.open("rb") as fh:
        assert fh.read() == body
    assert trace.sha256 == hashlib.sha256(body).hexdigest()
    raw = owner_client.get(f"/api/power-traces/{trace.pk}/raw/")
    assert b"".join(raw.streaming_content) == body


def test_parse_stores_the_samples_in_blocks(owner_client, parse) -> None:
    trace_id = upload(owner_client, vi_csv(ROWS)).json()["id"]
    response = parse(trace_id)
    assert response.status_code == 202
    assert response.json()["status"] == "parsing"
    data = owner_client.get(f"/api/power-traces/{trace_id}/").json()
    assert data["status"] == "parsed", data["error"]
    assert data["sample_count"] == 20
    assert data["duration_s"] == pytest.approx(9.5)
    assert (data["has_voltage"], data["has_current"]) == (True, True)
    blocks = list(PowerSampleBlock.objects.filter(trace_id=trace_id))
    assert len(blocks) == 1
    power = np.frombuffer(blocks[0].power, "<f4")
    assert power.tolist() == pytest.approx([5.0 * (0.2 + 0.01 * i) for i in range(20)], rel=1e-6)
    assert np.frombuffer(blocks[0].t, "<f8").tolist() == pytest.approx([r[0] for r in ROWS])


def test_a_bad_cell_fails_the_parse_naming_line_and_column_and_keeps_nothing(
    owner_client, parse
) -> None:
    body = vi_csv(ROWS[:4]) + b"2.000000,5.0,abc\n" + vi_csv(ROWS[5:]).split(b"\n", 1)[1]
    trace_id = upload(owner_client, body).json()["id"]
    parse(trace_id)
    data = owner_client.get(f"/api/power-traces/{trace_id}/").json()
    assert data["status"] == "failed"
    assert data["error"]["line"] == 6
    assert data["error"]["column"] == 3
    assert "abc" in data["error"]["message"]
    assert not PowerSampleBlock.objects.filter(trace_id=trace_id).exists()
    # The raw file stays as uploaded, ready for another try.
    trace = PowerTrace.objects.get(pk=trace_id)
    with trace.raw.open("rb") as fh:
        assert fh.read() == body


def test_a_failed_mapping_can_be_fixed_and_parsed_again(owner_client, parse) -> None:
    trace_id = upload(owner_client, vi_csv(ROWS)).json()["id"]
    wrong = {**CUSTOM_SPEC, "current": {"column": 7, "unit": "A"}}
    parse(trace_id, wrong)
    failed = owner_client.get(f"/api/power-traces/{trace_id}/").json()
    assert failed["status"] == "failed"
    assert failed["error"]["line"] == 2
    parse(trace_id, CUSTOM_SPEC)
    fixed = owner_client.get(f"/api/power-traces/{trace_id}/").json()
    assert (fixed["status"], fixed["sample_count"], fixed["error"]) == ("parsed", 20, None)


def test_an_invalid_spec_is_refused_before_anything_changes(owner_client, parse) -> None:
    trace_id = upload(owner_client, vi_csv(ROWS)).json()["id"]
    response = parse(trace_id, {**CUSTOM_SPEC, "current": {"column": 2, "unit": "furlongs"}})
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "power_trace_spec_invalid"
    assert "furlongs" in body["message"]
    assert PowerTrace.objects.get(pk=trace_id).status == TraceStatus.UPLOADED


def test_a_binary_file_is_kept_as_failed_with_a_reason(owner_client) -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))
    response = upload(owner_client, png, name="meter.csv")
    assert response.status_code == 201
    data = response.json()
    assert data["status"] == "failed"
    assert data["error"]["message"]
    assert data["detection"] is None
    assert PowerTrace.objects.get(pk=data["id"]).size_bytes == len(png)


@override_settings(POWER_TRACE_MAX_MB=0)
def test_a_file_over_the_limit_is_refused_and_not_stored(owner_client) -> None:
    response = upload(owner_client, vi_csv(ROWS))
    assert response.status_code == 413
    assert response.json()["code"] == "power_trace_too_large"
    assert not PowerTrace.objects.exists()


def test_an_upload_over_the_limit_is_refused_from_content_length_before_it_is_read(
    personas,
) -> None:
    client = APIClient(enforce_csrf_checks=True)
    client.login(username="owner", password="correct horse battery")
    csrf = client.get("/api/auth/csrf/").json()["csrf_token"]
    size = 2**30  # 1 GiB declared; the stream fails the test if any byte of it is read
    response = client.post(
        "/api/power-traces/",
        content_type="multipart/form-data; boundary=xyz",
        HTTP_X_CSRFTOKEN=csrf,
        **declared_body(size),
    )
    assert response.status_code == 413
    assert response.json() == {
        "message": TOO_LARGE_MESSAGE.format(size_mb=1024, max_mb=200),
        "code": "power_trace_too_large",
        "extra": {},
    }
    assert not PowerTrace.objects.exists()


def test_parse_while_parsing_is_refused(owner_client) -> None:
    trace_id = upload(owner_client, vi_csv(ROWS)).json()["id"]
    PowerTrace.objects.filter(pk=trace_id).update(status=TraceStatus.PARSING)
    response = owner_client.post(f"/api/power-traces/{trace_id}/parse/", CUSTOM_SPEC, format="json")
    assert response.status_code == 409
    assert response.json()["message"] == BUSY_MESSAGE


def test_a_replaced_parse_attempt_changes_nothing(owner_client, parse) -> None:
    trace_id = upload(owner_client, vi_csv(ROWS)).json()["id"]
    parse(trace_id)
    stale = trace_parse(trace_id=trace_id, token="00000000-0000-0000-0000-000000000000")
    assert stale is False
    assert PowerTrace.objects.get(pk=trace_id).status == TraceStatus.PARSED


def test_traces_attach_to_a_run_and_its_device(owner_client, personas) -> None:
    device, other = DeviceFactory.create_batch(2, workspace=personas.workspace)
    experiment = ExperimentFactory.create(workspace=personas.workspace, devices=[device])
    run = Run.objects.create(experiment=experiment, status=RunStatus.DONE)
    RunDevice.objects.create(run=run, device=device)
    ok = upload(owner_client, vi_csv(ROWS), run=str(run.pk), device=str(device.pk))
    assert ok.status_code == 201
    assert ok.json()["kind"] == "run"
    refused = upload(owner_client, vi_csv(ROWS), run=str(run.pk), device=str(other.pk))
    assert refused.status_code == 400
    assert refused.json()["message"] == DEVICE_NOT_IN_RUN_MESSAGE.format(
        device=other.name, run=run.pk
    )
    listed = owner_client.get(f"/api/power-traces/?run={run.pk}").json()
    assert [t["id"] for t in listed] == [ok.json()["id"]]


def test_a_baseline_is_named_and_cannot_also_belong_to_a_run(owner_client, personas) -> None:
    baseline = upload(owner_client, vi_csv(ROWS), baseline_name="idle").json()
    assert baseline["kind"] == "baseline"
    experiment = ExperimentFactory.create(workspace=personas.workspace)
    run = Run.objects.create(experiment=experiment)
    both = upload(owner_client, vi_csv(ROWS), baseline_name="idle", run=str(run.pk))
    assert both.status_code == 400
    assert both.json()["code"] == "power_trace_attachment_invalid"


def test_another_workspace_sees_nothing(owner_client, outsider_client, anonymous_client) -> None:
    trace_id = upload(owner_client, vi_csv(ROWS)).json()["id"]
    for path in ("", "raw/", "plot/", "figures/"):
        assert outsider_client.get(f"/api/power-traces/{trace_id}/{path}").status_code == 404
    assert outsider_client.get("/api/power-traces/").json() == []
    assert anonymous_client.get("/api/power-traces/").status_code == 401


def test_a_run_id_of_another_workspace_is_a_field_error(owner_client, personas) -> None:
    foreign = ExperimentFactory.create(workspace=personas.outsider_workspace)
    run = Run.objects.create(experiment=foreign)
    response = upload(owner_client, vi_csv(ROWS), run=str(run.pk))
    assert response.status_code == 400
    assert response.json()["extra"]["fields"]["run"]


def test_delete_removes_the_samples_and_the_raw_file(
    owner_client, parse, django_capture_on_commit_callbacks: Any
) -> None:
    trace_id = upload(owner_client, vi_csv(ROWS)).json()["id"]
    parse(trace_id)
    path = PowerTrace.objects.get(pk=trace_id).raw.path
    with django_capture_on_commit_callbacks(execute=True):
        assert owner_client.delete(f"/api/power-traces/{trace_id}/").status_code == 204
    assert not PowerSampleBlock.objects.filter(trace_id=trace_id).exists()
    import os

    assert not os.path.exists(path)


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        (b"", "empty"),
        (b"time,power\n0," + b"1" * (MAX_LINE_BYTES + 10) + b"\n", "Line 2 is longer than 16 KiB"),
    ],
    ids=["empty file", "line over the line limit"],
)
def test_files_that_cannot_be_traces_are_kept_and_say_why(owner_client, body, needle) -> None:
    response = upload(owner_client, body)
    assert response.status_code == 201
    data = response.json()
    assert data["status"] == "failed"
    assert needle in data["error"]["message"]
    assert PowerTrace.objects.get(pk=data["id"]).size_bytes == len(body)
