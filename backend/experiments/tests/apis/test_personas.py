"""Owner, teammate and outsider on the experiment and run endpoints (issue #18, point 6)."""

from __future__ import annotations

import pytest
from conftest import client_for

from core.testing.factories import DeviceFactory, ExperimentFactory
from experiments.models import Experiment, Run, RunDevice, RunStatus

pytestmark = pytest.mark.django_db

DESIGN = {
    "name": "MQTT QoS 1 baseline",
    "protocol": "mqtt",
    "qos": 1,
    "security": "none",
    "payload_size": 66,
    "message_count": 100,
    "measurement": "round_trip",
}


def _lab_run(personas) -> Run:
    device = DeviceFactory.create(workspace=personas.workspace, name="pi-1")
    experiment = ExperimentFactory.create(workspace=personas.workspace, name="Lab experiment")
    experiment.devices.add(device)
    run = Run.objects.create(experiment=experiment, status=RunStatus.QUEUED, spec={})
    RunDevice.objects.create(run=run, device=device, status=RunStatus.QUEUED, total=10)
    return run


@pytest.mark.parametrize("persona", ["owner", "teammate"])
def test_workspace_members_create_experiments_in_the_lab_workspace(personas, persona):
    device = DeviceFactory.create(workspace=personas.workspace)
    payload = {**DESIGN, "device_ids": [str(device.pk)]}
    client = client_for(getattr(personas, persona))
    response = client.post("/api/experiments/", payload, format="json")
    assert response.status_code == 201
    assert Experiment.objects.get(pk=response.json()["id"]).workspace == personas.workspace


@pytest.mark.parametrize("persona", ["owner", "teammate"])
def test_workspace_members_list_only_the_lab_workspaces_experiments(personas, persona):
    ExperimentFactory.create(workspace=personas.workspace, name="ours")
    ExperimentFactory.create(workspace=personas.outsider_workspace, name="theirs")
    response = client_for(getattr(personas, persona)).get("/api/experiments/")
    assert response.status_code == 200
    assert [row["name"] for row in response.json()] == ["ours"]


def test_outsider_cannot_create_an_experiment_on_a_lab_device(personas, outsider_client):
    device = DeviceFactory.create(workspace=personas.workspace)
    payload = {**DESIGN, "device_ids": [str(device.pk)]}
    response = outsider_client.post("/api/experiments/", payload, format="json")
    assert (response.status_code, response.json()["code"]) == (400, "device_not_in_workspace")
    assert Experiment.objects.count() == 0


def test_outsider_plan_naming_a_lab_device_is_refused_as_create_is_and_leaks_no_name(
    personas, outsider_client
):
    device = DeviceFactory.create(workspace=personas.workspace, name="pi-secret-lab")
    payload = {**DESIGN, "device_ids": [str(device.pk)]}
    response = outsider_client.post("/api/experiments/plan/", payload, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "device_not_in_workspace"
    assert response.json()["extra"]["fields"]["device_ids"] == [f"Unknown device {device.pk}."]
    assert "pi-secret-lab" not in response.content.decode()
    assert Experiment.objects.count() == 0


@pytest.mark.parametrize("persona", ["owner", "teammate"])
def test_workspace_members_download_the_design_file(personas, persona):
    experiment = ExperimentFactory.create(workspace=personas.workspace, name="Lab experiment")
    response = client_for(getattr(personas, persona)).get(
        f"/api/experiments/{experiment.pk}/design.yaml"
    )
    assert response.status_code == 200
    assert "Lab experiment" in response.content.decode()


def test_outsider_gets_404_for_a_lab_design_file(personas, outsider_client):
    experiment = ExperimentFactory.create(workspace=personas.workspace)
    response = outsider_client.get(f"/api/experiments/{experiment.pk}/design.yaml")
    assert response.status_code == 404


def test_outsider_cannot_start_a_run_of_a_lab_experiment(personas, outsider_client):
    device = DeviceFactory.create(workspace=personas.workspace)
    experiment = ExperimentFactory.create(workspace=personas.workspace, devices=[device])
    response = outsider_client.post(f"/api/experiments/{experiment.pk}/runs/")
    assert (response.status_code, Run.objects.count()) == (404, 0)


@pytest.mark.parametrize("persona", ["owner", "teammate"])
def test_workspace_members_read_a_lab_run(personas, persona):
    run = _lab_run(personas)
    response = client_for(getattr(personas, persona)).get(f"/api/runs/{run.pk}/")
    assert (response.status_code, response.json()["id"]) == (200, str(run.pk))


def test_outsider_gets_404_for_a_lab_run(personas, outsider_client):
    run = _lab_run(personas)
    assert outsider_client.get(f"/api/runs/{run.pk}/").status_code == 404


def test_outsider_import_creates_nothing_in_the_lab_workspace(personas, outsider_client):
    response = outsider_client.post("/api/experiments/import/", {}, format="multipart")
    assert response.status_code == 400
    assert Experiment.objects.filter(workspace=personas.workspace).count() == 0


@pytest.mark.parametrize("path", ["/api/presets/", "/api/catalogue/"])
def test_every_persona_reads_the_same_presets_and_catalogue(personas, path):
    answers = [
        client_for(getattr(personas, p)).get(path) for p in ("owner", "teammate", "outsider")
    ]
    assert [r.status_code for r in answers] == [200, 200, 200]
    assert answers[0].json() == answers[1].json() == answers[2].json()
