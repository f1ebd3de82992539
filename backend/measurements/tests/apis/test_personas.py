"""Who may call the agent endpoints (issue #18, point 6). They take a device token: the
"owner" is a device of the run, the "teammate" another device of the Lab workspace that is
not part of the run, the "outsider" a device of another workspace; user sessions are refused."""

from __future__ import annotations

import pytest
from conftest import client_for

from experiments.models import RunDevice, RunStatus
from measurements.models import UploadChunk
from measurements.services import SAMPLE_HEADER
from measurements.tests.conftest import csv_chunk, running_run_in, upload

pytestmark = pytest.mark.django_db

ENDPOINTS = ["records", "samples", "fail"]


def _call(client, run, endpoint: str):
    if endpoint == "fail":
        return client.post(f"/api/agent/runs/{run.pk}/fail/", {"message": "x"}, format="json")
    body = SAMPLE_HEADER if endpoint == "samples" else csv_chunk([])
    return upload(client, run, body, index=0, final=False, total=None, stream=endpoint)


def _untouched(run) -> bool:
    run.refresh_from_db()
    parts = RunDevice.objects.filter(run=run)
    return (
        run.status == RunStatus.RUNNING
        and all(p.status == RunStatus.RUNNING for p in parts)
        and not UploadChunk.objects.filter(run_device__run=run).exists()
    )


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_a_device_of_the_run_reaches_every_agent_run_endpoint(running_run, endpoint):
    response = _call(running_run.agents[0], running_run.run, endpoint)
    assert response.status_code in (201, 204)


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_a_lab_device_outside_the_run_gets_404_and_changes_nothing(running_run, personas, endpoint):
    other = running_run_in(personas.workspace, ("pi-other",))
    response = _call(other.agents[0], running_run.run, endpoint)
    assert (response.status_code, _untouched(running_run.run)) == (404, True)


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_another_workspaces_device_gets_404_and_changes_nothing(running_run, personas, endpoint):
    outsider = running_run_in(personas.outsider_workspace, ("pi-x",))
    response = _call(outsider.agents[0], running_run.run, endpoint)
    assert (response.status_code, _untouched(running_run.run)) == (404, True)


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("persona", ["owner", "teammate", "outsider"])
def test_user_sessions_are_refused_on_agent_endpoints(running_run, personas, persona, endpoint):
    response = _call(client_for(getattr(personas, persona)), running_run.run, endpoint)
    assert (response.status_code, _untouched(running_run.run)) == (403, True)


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_anonymous_is_refused_on_agent_endpoints(running_run, anonymous_client, endpoint):
    response = _call(anonymous_client, running_run.run, endpoint)
    assert (response.status_code, _untouched(running_run.run)) == (401, True)
