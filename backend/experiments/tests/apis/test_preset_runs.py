"""Every paper's preset is runnable as served: created through the API on as many devices
as the preset names and started, it queues exactly the runs its notes state, each on
every one of those devices, and the plan says the same before anything is created."""

from __future__ import annotations

import re
from typing import Any

import pytest

from core.testing.factories import DeviceFactory
from experiments.models import Experiment, Run, RunDevice, RunStatus

# "Before you run it: the design expands to 25 runs ..." in each preset's notes.
STATED_RUNS = re.compile(r"^Before you run it: the design expands to (\d+) runs?\b")


def _stated_runs(preset: dict[str, Any]) -> int:
    stated = [int(m.group(1)) for n in preset["notes"] if (m := STATED_RUNS.match(n))]
    assert len(stated) == 1, (preset["slug"], "one note must state the run count")
    return stated[0]


@pytest.fixture
def served_presets(owner_client) -> list[dict[str, Any]]:
    response = owner_client.get("/api/presets/")
    assert response.status_code == 200
    served: list[dict[str, Any]] = response.json()
    return served


@pytest.mark.django_db
def test_each_preset_creates_the_runs_its_notes_state_on_its_devices(
    personas, owner_client, served_presets, settings, tmp_path
):
    # SRUP runs over TLS 1.2: the platform must name its TLS broker and CA (make up does).
    ca = tmp_path / "ca.crt"
    ca.write_text("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
    settings.MQTT_TLS_URL = "mqtts://127.0.0.1:8883"
    settings.MQTT_TLS_CA_FILE = str(ca)
    assert {p["slug"] for p in served_presets} == {
        "mqtt-coap-paper",
        "mqtt-sn-paper",
        "openssl-pi-paper",
        "srup-paper",
    }
    for preset in served_presets:
        slug = preset["slug"]
        runs = _stated_runs(preset)
        assert preset["cells"] == runs, slug
        devices = [
            DeviceFactory.create(workspace=personas.workspace, name=f"{slug}-{n}")
            for n in range(preset["devices"])
        ]
        design = {**preset["design"], "device_ids": [str(d.pk) for d in devices]}

        plan = owner_client.post("/api/experiments/plan/", design, format="json")
        assert plan.status_code == 200, (slug, plan.json())
        assert plan.json()["run_count"] == runs, slug

        created = owner_client.post("/api/experiments/", design, format="json")
        assert created.status_code == 201, (slug, created.json())
        experiment = Experiment.objects.get(pk=created.json()["id"])
        assert experiment.kind == preset["design"]["kind"], slug
        assert set(experiment.devices.all()) == set(devices), slug
        assert experiment.preset == slug

        started = owner_client.post(f"/api/experiments/{experiment.pk}/runs/", format="json")
        assert started.status_code in (200, 201, 202), (slug, started.json())
        stored = Run.objects.filter(experiment=experiment)
        assert stored.count() == runs, slug
        assert set(stored.values_list("status", flat=True)) == {RunStatus.QUEUED}, slug
        parts = RunDevice.objects.filter(run__experiment=experiment)
        assert parts.count() == runs * len(devices), slug
        assert set(parts.values_list("device_id", flat=True)) == {d.pk for d in devices}, slug
