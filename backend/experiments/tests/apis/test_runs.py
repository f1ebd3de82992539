"""POST /api/runs/<id>/cancel/ and /retry/: who may, what they change, and what they refuse."""

from __future__ import annotations

import pytest
from conftest import client_for

from core.testing.factories import DeviceFactory, ExperimentFactory
from experiments.models import Run, RunDevice, RunStatus


def _run(personas, status: str, *, online: bool = True) -> Run:
    device = DeviceFactory.create(workspace=personas.workspace, name="pi-1", online=online)
    experiment = ExperimentFactory.create(workspace=personas.workspace)
    experiment.devices.add(device)
    run = Run.objects.create(experiment=experiment, status=status, spec={"message_count": 10})
    RunDevice.objects.create(run=run, device=device, status=status, total=10)
    return run


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["owner", "teammate"])
def test_a_member_cancels_a_queued_run_and_it_says_who(personas, who):
    run = _run(personas, RunStatus.QUEUED)
    response = client_for(getattr(personas, who)).post(f"/api/runs/{run.pk}/cancel/")
    assert response.status_code == 200
    assert (response.json()["status"], response.json()["error"]) == (
        "cancelled",
        f"Cancelled by {who}.",
    )
    run.refresh_from_db()
    assert run.status == RunStatus.CANCELLED
    assert run.finished_at is not None
    assert RunDevice.objects.get(run=run).status == RunStatus.CANCELLED


@pytest.mark.django_db
def test_an_outsider_cannot_cancel_or_retry_and_nothing_changes(personas, outsider_client):
    queued = _run(personas, RunStatus.QUEUED)
    failed = Run.objects.create(experiment=queued.experiment, status=RunStatus.FAILED)
    assert outsider_client.post(f"/api/runs/{queued.pk}/cancel/").status_code == 404
    assert outsider_client.post(f"/api/runs/{failed.pk}/retry/").status_code == 404
    queued.refresh_from_db()
    assert queued.status == RunStatus.QUEUED
    assert Run.objects.filter(retry_of=failed).count() == 0


@pytest.mark.django_db
def test_anonymous_clients_cannot_cancel_or_retry(personas, anonymous_client):
    run = _run(personas, RunStatus.QUEUED)
    assert anonymous_client.post(f"/api/runs/{run.pk}/cancel/").status_code in (401, 403)
    assert anonymous_client.post(f"/api/runs/{run.pk}/retry/").status_code in (401, 403)


@pytest.mark.django_db
@pytest.mark.parametrize("status", [RunStatus.DONE, RunStatus.PARTIAL, RunStatus.FAILED])
def test_a_finished_run_cannot_be_cancelled(personas, owner_client, status):
    run = _run(personas, status)
    response = owner_client.post(f"/api/runs/{run.pk}/cancel/")
    assert response.status_code == 409
    assert response.json()["code"] == "run_not_cancellable"
    run.refresh_from_db()
    assert run.status == status


@pytest.mark.django_db
@pytest.mark.parametrize("status", [RunStatus.FAILED, RunStatus.PARTIAL, RunStatus.CANCELLED])
@pytest.mark.parametrize("who", ["owner", "teammate"])
def test_a_member_retries_a_run_that_did_not_complete_as_a_new_queued_run(personas, status, who):
    run = _run(personas, status)
    response = client_for(getattr(personas, who)).post(f"/api/runs/{run.pk}/retry/")
    assert response.status_code == 201
    retry = Run.objects.get(pk=response.json()["id"])
    assert (retry.status, retry.retry_of_id, retry.spec) == (RunStatus.QUEUED, run.pk, run.spec)
    assert list(retry.run_devices.values_list("device__name", "total")) == [("pi-1", 10)]


@pytest.mark.django_db
def test_a_completed_run_is_not_retried(personas, owner_client):
    run = _run(personas, RunStatus.DONE)
    response = owner_client.post(f"/api/runs/{run.pk}/retry/")
    assert response.status_code == 409
    assert response.json()["code"] == "run_not_retryable"
    assert Run.objects.filter(retry_of=run).count() == 0


@pytest.mark.django_db
def test_a_retry_is_refused_naming_the_offline_devices(personas, owner_client):
    run = _run(personas, RunStatus.FAILED, online=False)
    response = owner_client.post(f"/api/runs/{run.pk}/retry/")
    assert response.status_code == 409
    assert response.json()["code"] == "devices_offline"
    assert "pi-1" in response.json()["message"]
    assert Run.objects.filter(retry_of=run).count() == 0
