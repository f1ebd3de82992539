"""Owner, teammate and outsider on the power-trace endpoints (issue #18, point 6)."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import client_for

from power.models import PowerTrace, TraceStatus
from power.tests.conftest import CUSTOM_SPEC, upload, vi_csv

pytestmark = pytest.mark.django_db

ROWS = [(i * 0.5, 5.0, 0.2 + 0.01 * i) for i in range(20)]
URL = "/api/power-traces/"


@pytest.mark.parametrize("persona", ["owner", "teammate"])
def test_workspace_members_list_and_read_the_workspaces_traces(personas, owner_client, persona):
    trace_id = upload(owner_client, vi_csv(ROWS), name="bench.csv").json()["id"]
    client = client_for(getattr(personas, persona))

    listed = client.get(URL)
    detail = client.get(f"{URL}{trace_id}/")
    raw: Any = client.get(f"{URL}{trace_id}/raw/")  # a FileResponse: streaming_content

    assert (listed.status_code, [t["id"] for t in listed.json()]) == (200, [trace_id])
    assert (detail.status_code, detail.json()["original_filename"]) == (200, "bench.csv")
    assert (raw.status_code, b"".join(raw.streaming_content)) == (200, vi_csv(ROWS))


def test_teammate_uploads_into_the_lab_workspace(personas):
    response = upload(client_for(personas.teammate), vi_csv(ROWS))
    assert response.status_code == 201
    assert PowerTrace.objects.get(pk=response.json()["id"]).workspace == personas.workspace


def test_teammate_renames_and_deletes_a_workspace_trace(personas, owner_client):
    trace_id = upload(owner_client, vi_csv(ROWS)).json()["id"]
    teammate = client_for(personas.teammate)

    renamed = teammate.patch(f"{URL}{trace_id}/", {"name": "renamed"}, format="json")
    assert (renamed.status_code, PowerTrace.objects.get(pk=trace_id).name) == (200, "renamed")

    deleted = teammate.delete(f"{URL}{trace_id}/")
    assert (deleted.status_code, PowerTrace.objects.filter(pk=trace_id).exists()) == (204, False)


def test_outsider_upload_goes_to_the_outsiders_workspace_only(personas, owner_client):
    upload(owner_client, vi_csv(ROWS), name="lab.csv")
    outsider = client_for(personas.outsider)
    response = upload(outsider, vi_csv(ROWS), name="mine.csv")
    assert response.status_code == 201
    assert PowerTrace.objects.get(pk=response.json()["id"]).workspace == personas.outsider_workspace
    assert [t["original_filename"] for t in outsider.get(URL).json()] == ["mine.csv"]


def test_outsider_cannot_rename_a_lab_trace(personas, owner_client, outsider_client):
    trace_id = upload(owner_client, vi_csv(ROWS)).json()["id"]
    before = PowerTrace.objects.get(pk=trace_id).name
    response = outsider_client.patch(f"{URL}{trace_id}/", {"name": "mine"}, format="json")
    assert (response.status_code, PowerTrace.objects.get(pk=trace_id).name) == (404, before)


def test_outsider_cannot_delete_a_lab_trace(personas, owner_client, outsider_client):
    trace_id = upload(owner_client, vi_csv(ROWS)).json()["id"]
    response = outsider_client.delete(f"{URL}{trace_id}/")
    assert (response.status_code, PowerTrace.objects.filter(pk=trace_id).exists()) == (404, True)


def test_outsider_cannot_parse_a_lab_trace(personas, owner_client, outsider_client):
    trace_id = upload(owner_client, vi_csv(ROWS)).json()["id"]
    response = outsider_client.post(f"{URL}{trace_id}/parse/", CUSTOM_SPEC, format="json")
    assert response.status_code == 404
    assert PowerTrace.objects.get(pk=trace_id).status == TraceStatus.UPLOADED


def test_anonymous_cannot_upload(anonymous_client):
    response = upload(anonymous_client, vi_csv(ROWS))
    assert (response.status_code, PowerTrace.objects.count()) == (401, 0)


def _parsed(owner_client, parse) -> str:
    trace_id: str = upload(owner_client, vi_csv(ROWS)).json()["id"]
    parse(trace_id)
    return trace_id


@pytest.mark.parametrize("persona", ["owner", "teammate"])
def test_workspace_members_plot_and_project_a_parsed_lab_trace(
    personas, owner_client, parse, persona
):
    trace_id = _parsed(owner_client, parse)
    client = client_for(getattr(personas, persona))
    plot = client.get(f"{URL}{trace_id}/plot/?start=0&end=5&points=100")
    figures = client.get(f"{URL}{trace_id}/figures/")
    projection = client.get(f"{URL}projection/?trace={trace_id}&capacity_wh=50")
    assert (plot.status_code, figures.status_code, projection.status_code) == (200, 200, 200)


def test_outsider_projecting_a_lab_trace_gets_the_same_field_error_as_an_unknown_id(
    personas, owner_client, parse, outsider_client
):
    trace_id = _parsed(owner_client, parse)
    response = outsider_client.get(f"{URL}projection/?trace={trace_id}&capacity_wh=50")
    assert response.status_code == 400
    assert response.json()["extra"]["fields"]["trace"] == [
        f"{trace_id}: not a parsed power trace of your workspace."
    ]


def test_teammate_parses_a_workspace_trace(
    personas, owner_client, django_capture_on_commit_callbacks
):
    trace_id = upload(owner_client, vi_csv(ROWS)).json()["id"]
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(personas.teammate).post(
            f"{URL}{trace_id}/parse/", CUSTOM_SPEC, format="json"
        )
    assert response.status_code == 202
    assert PowerTrace.objects.get(pk=trace_id).status == TraceStatus.PARSED
