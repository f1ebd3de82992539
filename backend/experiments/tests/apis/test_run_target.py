"""A run's target device on its page (issue #19 point 3): GET /api/runs/<id>/ answers who
serves the run, in which role, at which address and in which state; null without one."""

from __future__ import annotations

import pytest

from core.testing.factories import DeviceFactory, ExperimentFactory
from devices.models import Device
from experiments.models import Run, RunDevice, RunStatus
from experiments.services.targets import target_dispatch, target_release, target_serving
from sharing.models import Share

pytestmark = pytest.mark.django_db


def _run(personas, *, target: bool) -> tuple[Run, Device]:
    client = DeviceFactory.create(workspace=personas.workspace, name="pi-1")
    gateway = DeviceFactory.create(workspace=personas.workspace, name="pi-2")
    experiment = ExperimentFactory.create(workspace=personas.workspace, devices=[client])
    spec = {"protocol": "mqttsn", **({"target_device": str(gateway.pk)} if target else {})}
    run = Run.objects.create(experiment=experiment, status=RunStatus.PREPARING, spec=spec)
    RunDevice.objects.create(run=run, device=client, status=RunStatus.QUEUED, total=10)
    return run, gateway


def test_the_owner_sees_the_gateway_serving_the_run_with_its_address(personas, owner_client):
    run, gateway = _run(personas, target=True)
    target_dispatch(run_id=run.pk, spec={"role": "gateway"})
    starting = owner_client.get(f"/api/runs/{run.pk}/").json()["target"]
    job_id = Run.objects.get(pk=run.pk).target["job_id"]
    assert target_serving(device_id=gateway.pk, job_id=job_id, address="10.0.0.5:10000")
    serving = owner_client.get(f"/api/runs/{run.pk}/").json()["target"]

    assert starting == {
        "device_id": str(gateway.pk),
        "name": "pi-2",
        "role": "gateway",
        "address": None,
        "status": "starting",
    }
    assert serving == {**starting, "address": "10.0.0.5:10000", "status": "serving"}


def test_a_released_target_keeps_its_address_on_the_run(personas, owner_client):
    run, gateway = _run(personas, target=True)
    target_dispatch(run_id=run.pk, spec={"role": "server"})
    job_id = Run.objects.get(pk=run.pk).target["job_id"]
    target_serving(device_id=gateway.pk, job_id=job_id, address="10.0.0.5:5683")
    target_release(run_id=run.pk)
    target = owner_client.get(f"/api/runs/{run.pk}/").json()["target"]
    assert (target["role"], target["address"], target["status"]) == (
        "server",
        "10.0.0.5:5683",
        "released",
    )


def test_a_run_without_a_target_device_answers_null(personas, owner_client):
    run, _ = _run(personas, target=False)
    answer = owner_client.get(f"/api/runs/{run.pk}/")
    assert (answer.status_code, answer.json()["target"]) == (200, None)


def test_an_outsider_still_gets_404_for_a_run_with_a_target(personas, outsider_client):
    run, _ = _run(personas, target=True)
    target_dispatch(run_id=run.pk, spec={"role": "gateway"})
    answer = outsider_client.get(f"/api/runs/{run.pk}/")
    assert answer.status_code == 404
    assert "pi-2" not in answer.content.decode()


def test_a_shared_run_names_its_target_but_not_its_id_or_lab_address(
    personas, owner_client, anonymous_client
):
    run, gateway = _run(personas, target=True)
    target_dispatch(run_id=run.pk, spec={"role": "gateway"})
    job_id = Run.objects.get(pk=run.pk).target["job_id"]
    target_serving(device_id=gateway.pk, job_id=job_id, address="10.0.0.5:10000")
    target_release(run_id=run.pk)
    Run.objects.filter(pk=run.pk).update(status=RunStatus.DONE)
    made = owner_client.post("/api/shares/", {"kind": "run", "run": str(run.pk)}, format="json")
    assert made.status_code == 201, made.content
    token = Share.objects.get(pk=made.json()["id"]).token

    response = anonymous_client.get(f"/api/public/shares/{token}/")

    assert response.status_code == 200
    (shared,) = response.json()["runs"]
    assert shared["target"] == {
        "device_id": None,
        "name": "pi-2",
        "role": "gateway",
        "address": None,
        "status": "released",
    }
    assert "10.0.0.5" not in response.content.decode()
    assert str(gateway.pk) not in response.content.decode()
