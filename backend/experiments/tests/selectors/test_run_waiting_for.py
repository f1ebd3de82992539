"""A queued run says what it waits for, by the scheduler's own rule (issue #21 point 6)."""

from __future__ import annotations

import pytest
from conftest import client_for

from core.testing.factories import DeviceFactory, ExperimentFactory
from experiments.models import Run, RunStatus
from experiments.selectors import (
    EXPERIMENT_BUSY_MESSAGE,
    NO_WORKER_MESSAGE,
    run_waiting_for,
)
from experiments.services.scheduling import experiment_start, runs_schedule

pytestmark = pytest.mark.django_db


@pytest.fixture
def quiet(monkeypatch):
    """No Celery kicks: the test calls the scheduler itself."""
    monkeypatch.setattr("django.db.transaction.on_commit", lambda fn, **kw: None)


def test_queued_run_names_the_device_busy_with_another_experiments_run(personas, quiet):
    shared = DeviceFactory.create(workspace=personas.workspace, name="pi-shared")
    other = DeviceFactory.create(workspace=personas.workspace, name="pi-other")
    first = ExperimentFactory.create(
        workspace=personas.workspace, name="Busy one", devices=[shared]
    )
    second = ExperimentFactory.create(workspace=personas.workspace, devices=[shared, other])
    busy = experiment_start(experiment=first)[0]
    waiting = experiment_start(experiment=second)[0]
    assert runs_schedule() == [str(busy.pk)]  # the scheduler agrees: the second waits

    response = client_for(personas.teammate).get(f"/api/runs/{waiting.pk}/")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "queued"
    assert body["waiting_for"]["reason"] == "devices"
    assert body["waiting_for"]["blockers"] == [
        {
            "device": "pi-shared",
            "run_id": str(busy.pk),
            "run_position": 1,
            "experiment_id": str(first.pk),
            "experiment_name": "Busy one",
        }
    ]
    assert "pi-shared (busy with run 1 of “Busy one”)" in body["waiting_for"]["message"]


def test_queued_run_waits_for_its_own_experiments_active_run(personas, quiet):
    device = DeviceFactory.create(workspace=personas.workspace)
    experiment = ExperimentFactory.create(
        workspace=personas.workspace,
        devices=[device],
        axes=[{"name": "QoS", "values": [{"qos": 0}, {"qos": 1}]}],
    )
    runs = experiment_start(experiment=experiment)
    runs_schedule()

    waiting = run_waiting_for(run=Run.objects.get(pk=runs[1].pk))

    assert waiting is not None
    assert waiting["reason"] == "devices"  # its device is in the first run as well
    Run.objects.filter(pk=runs[0].pk).update(status=RunStatus.DONE)
    other_device = DeviceFactory.create(workspace=personas.workspace)
    runs[1].run_devices.update(device=other_device)
    Run.objects.filter(pk=runs[0].pk).update(status=RunStatus.RUNNING)
    waiting = run_waiting_for(run=Run.objects.get(pk=runs[1].pk))
    assert waiting is not None
    assert (waiting["reason"], waiting["message"]) == (
        "experiment",
        EXPERIMENT_BUSY_MESSAGE.format(position=1),
    )


def test_queued_run_with_nothing_blocking_it_says_no_worker_has_started_it(personas, quiet):
    run = experiment_start(
        experiment=ExperimentFactory.create(
            workspace=personas.workspace,
            devices=[DeviceFactory.create(workspace=personas.workspace)],
        )
    )[0]

    body = client_for(personas.owner).get(f"/api/runs/{run.pk}/").json()

    assert body["waiting_for"] == {"reason": "worker", "message": NO_WORKER_MESSAGE, "blockers": []}


def test_a_started_run_waits_for_nothing(personas, quiet):
    run = experiment_start(
        experiment=ExperimentFactory.create(
            workspace=personas.workspace,
            devices=[DeviceFactory.create(workspace=personas.workspace)],
        )
    )[0]
    runs_schedule()

    body = client_for(personas.owner).get(f"/api/runs/{run.pk}/").json()

    assert (body["status"], body["waiting_for"]) == ("preparing", None)


def test_experiments_list_says_what_a_queued_run_waits_for_and_nothing_for_a_started_one(
    personas, quiet
):
    shared = DeviceFactory.create(workspace=personas.workspace, name="pi-shared")
    first = ExperimentFactory.create(
        workspace=personas.workspace, name="Busy one", devices=[shared]
    )
    second = ExperimentFactory.create(
        workspace=personas.workspace, name="Waiting one", devices=[shared]
    )
    busy = experiment_start(experiment=first)[0]
    waiting = experiment_start(experiment=second)[0]
    runs_schedule()

    response = client_for(personas.teammate).get("/api/experiments/")

    assert response.status_code == 200
    runs = {r["id"]: r for e in response.json() for r in e["runs"]}
    assert runs[str(waiting.pk)]["waiting_for"] == (
        "Waits for pi-shared (busy with run 1 of “Busy one”)."
    )
    assert runs[str(busy.pk)]["waiting_for"] is None
