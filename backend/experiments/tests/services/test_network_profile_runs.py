"""An experiment measured under a network profile: chosen at design, frozen in each run's
spec, sent to the agents with its measured tables, and the agents' proof of enforcement
kept per device (docs/network-profiles.md, docs/control-plane.md)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from core.testing.factories import DeviceFactory
from experiments.apis.experiments import NETWORK_PROFILE_UNKNOWN
from experiments.controlplane import handle_message
from experiments.models import Experiment, Run, RunDevice
from experiments.rules import NETWORK_PROFILE_MESSAGING
from experiments.services.jobs import _job_for
from netprofiles.models import DelayTable, NetworkProfile, ProfileKind

TABLE_VALUES = list(range(-2048, 2048))
SPEC = {"ingress": {"delay_ms": 122.6, "jitter_ms": 40.3, "distribution": "table", "table": "T1"}}


@pytest.fixture
def profile(personas):
    DelayTable.objects.create(
        name="T1", mu_ms=122.6, sigma_ms=40.3, values=TABLE_VALUES, source="test"
    )
    return NetworkProfile.objects.create(
        workspace=personas.workspace,
        name="Poor 3G (lab)",
        slug="poor-3g-lab",
        kind=ProfileKind.USER,
        spec=SPEC,
    )


def _design(device: Any, **extra: Any) -> dict[str, Any]:
    return {"name": "MQTT under 3G", "device_ids": [str(device.pk)], **extra}


@pytest.mark.django_db
def test_a_run_freezes_the_profile_and_its_job_carries_the_tables(
    personas, owner_client, profile, monkeypatch
):
    monkeypatch.setattr("experiments.services.scheduling.transaction.on_commit", lambda fn: None)
    device = DeviceFactory.create(workspace=personas.workspace)
    created = owner_client.post(
        "/api/experiments/", _design(device, network_profile=str(profile.pk)), format="json"
    )
    assert created.status_code == 201, created.content
    body = created.json()
    assert (body["network_profile"], body["network_profile_name"]) == (
        str(profile.pk),
        "Poor 3G (lab)",
    )
    assert Experiment.objects.get().network_profile == profile

    run_id = owner_client.post(f"/api/experiments/{body['id']}/runs/").json()["id"]
    run = Run.objects.get(pk=run_id)
    frozen = {"id": str(profile.pk), "name": "Poor 3G (lab)", "spec": SPEC}
    assert run.spec["network_profile"] == frozen  # no table values in the stored spec
    job = _job_for(RunDevice.objects.get(run=run), seq=1, now=time.time())
    assert job["spec"]["network_profile"] == {
        "name": "Poor 3G (lab)",
        "spec": SPEC,
        "tables": {"T1": TABLE_VALUES},
    }
    # Editing the profile later does not change what the run meant.
    NetworkProfile.objects.filter(pk=profile.pk).update(spec={})
    run.refresh_from_db()
    assert run.spec["network_profile"]["spec"] == SPEC


@pytest.mark.django_db
def test_only_messaging_experiments_take_a_profile_the_workspace_may_use(
    personas, owner_client, profile
):
    device = DeviceFactory.create(workspace=personas.workspace)
    bench = owner_client.post(
        "/api/experiments/",
        _design(
            device,
            kind="cipher_bench",
            mechanisms=["aes-128-cbc"],
            data_sizes=[16],
            network_profile=str(profile.pk),
        ),
        format="json",
    )
    assert bench.status_code == 400
    assert bench.json()["extra"]["fields"] == {"network_profile": [NETWORK_PROFILE_MESSAGING]}

    theirs = NetworkProfile.objects.create(
        workspace=personas.outsider_workspace, name="Theirs", slug="theirs", kind="user"
    )
    other = owner_client.post(
        "/api/experiments/", _design(device, network_profile=str(theirs.pk)), format="json"
    )
    assert other.status_code == 400
    assert other.json()["extra"]["fields"] == {"network_profile": [NETWORK_PROFILE_UNKNOWN]}
    assert not Experiment.objects.exists()


@pytest.mark.django_db
def test_the_agents_proof_of_enforcement_is_kept_and_shown_per_device(
    personas, owner_client, profile
):
    device = DeviceFactory.create(workspace=personas.workspace, name="pi-1")
    experiment = Experiment.objects.create(
        workspace=personas.workspace, name="x", network_profile=profile
    )
    run = Run.objects.create(experiment=experiment, status="running")
    part = RunDevice.objects.create(run=run, device=device, status="running")
    proof = {
        "backend": "userspace",
        "verification": {"ok": True, "expected_median_ms": 245.2, "measured_median_ms": 246.0},
        "forwarder": {"ingress": {"forwarded": 812}},
    }
    body = {"event": "network_enforced", "job_id": str(part.job_id), "network": proof}

    topic = f"iotsecbench/agents/{device.pk}/events"
    assert handle_message(topic, json.dumps(body).encode())

    part.refresh_from_db()
    assert part.network == proof
    (shown,) = owner_client.get(f"/api/runs/{run.pk}/").json()["devices"]
    assert shown["network"] == proof
    # Another device cannot file a proof for this job.
    stranger = DeviceFactory.create(workspace=personas.workspace)
    topic = f"iotsecbench/agents/{stranger.pk}/events"
    assert not handle_message(topic, json.dumps({**body, "network": {"forged": 1}}).encode())
    part.refresh_from_db()
    assert part.network == proof


@pytest.mark.django_db
def test_a_profile_in_use_cannot_be_deleted(personas, owner_client, profile):
    Experiment.objects.create(workspace=personas.workspace, name="x", network_profile=profile)
    response = owner_client.delete(f"/api/network-profiles/{profile.pk}/")
    assert response.status_code == 409, response.content
    assert response.json()["code"] == "network_profile_in_use"
    assert "used by the experiment(s) x:" in response.json()["message"]
    assert NetworkProfile.objects.filter(pk=profile.pk).exists()


@pytest.mark.django_db
def test_a_run_under_a_profile_is_refused_when_a_device_reports_it_cannot_enforce(
    personas, owner_client, profile
):
    able = DeviceFactory.create(
        workspace=personas.workspace,
        name="pi-root",
        facts={"network_emulation": {"userspace": {"available": True, "reason": "root"}}},
    )
    unable = DeviceFactory.create(
        workspace=personas.workspace,
        name="pi-user",
        facts={
            "network_emulation": {
                "userspace": {"available": False, "reason": "needs root"},
                "netem": {"available": False, "reason": "needs root (tc qdisc)"},
            }
        },
    )
    experiment = Experiment.objects.create(
        workspace=personas.workspace, name="x", network_profile=profile
    )
    experiment.devices.set([able, unable])

    response = owner_client.post(f"/api/experiments/{experiment.pk}/runs/")

    assert response.status_code == 409
    body = response.json()
    assert body["code"] == "network_profile_not_enforceable"
    assert "pi-user: needs root (tc qdisc) / needs root." in body["message"]
    assert "pi-root" not in body["message"]
    assert body["extra"] == {"devices": ["pi-user"]}
    assert not Run.objects.exists()
    # Without the profile the same devices run.
    experiment.network_profile = None
    experiment.save()
    assert owner_client.post(f"/api/experiments/{experiment.pk}/runs/").status_code == 201


@pytest.mark.django_db
def test_the_plan_says_before_anything_starts_which_devices_cannot_enforce_a_profile(
    personas, owner_client, profile
):
    able = DeviceFactory.create(
        workspace=personas.workspace,
        name="pi-root",
        facts={"network_emulation": {"userspace": {"available": True, "reason": "root"}}},
    )
    unable = DeviceFactory.create(
        workspace=personas.workspace,
        name="pi-user",
        facts={"network_emulation": {"userspace": {"available": False, "reason": "needs root"}}},
    )
    design = {
        "name": "shaped",
        "protocol": "mqtt",
        "qos": 1,
        "security": "none",
        "payload_size": 66,
        "message_count": 20,
        "interval_ms": 10,
        "device_ids": [str(able.pk), str(unable.pk)],
        "axes": [{"parameter": "network_profile", "values": [None, str(profile.pk)]}],
    }

    plan = owner_client.post("/api/experiments/plan/", design, format="json").json()

    (warning,) = [w for w in plan["warnings"] if "cannot be enforced" in w]
    assert "would be refused: pi-user: needs root." in warning
    assert "pi-root" not in warning
    # Without a profile on any cell nothing is said.
    unshaped = {**design, "axes": []}
    plan = owner_client.post("/api/experiments/plan/", unshaped, format="json").json()
    assert not [w for w in plan["warnings"] if "cannot be enforced" in w]
