"""A device's health check: the platform sends a signed health_check job, stores the
agent's report only if it answers that job, and lends its clock for offset probes."""

from __future__ import annotations

import json
import secrets
import time

import pytest
from rest_framework.test import APIClient

from core.testing.factories import DeviceFactory
from devices.authentication import token_hash
from devices.models import Device
from experiments.controlplane import handle_message
from experiments.tests.services.test_jobs import _verify
from experiments.tests.services.test_scheduling import _listen

REPORT_CHECKS = [
    {"name": "broker_round_trip", "ok": True, "detail": "median 0.31 ms over 5", "value": 0.31},
    {"name": "clock_offset", "ok": True, "detail": "+0.012 ms", "value": 0.012},
    {"name": "crypto_selftest", "ok": True, "detail": "82 known-answer vectors passed"},
    {"name": "network_emulation", "ok": True, "detail": "profiles enforced by userspace"},
]


def _report(device: Device, job_id: str, status: str = "passed") -> bool:
    body = {"event": "health_report", "job_id": job_id, "status": status, "checks": REPORT_CHECKS}
    return handle_message(f"iotsecbench/agents/{device.pk}/events", json.dumps(body).encode())


@pytest.mark.django_db(transaction=True)
def test_health_check_sends_a_signed_job_and_stores_the_agents_answer(personas, owner_client):
    device = DeviceFactory.create(workspace=personas.workspace)
    listener = _listen()
    try:
        response = owner_client.post(f"/api/devices/{device.pk}/health-check/")
        job = _verify(listener.get(timeout=5))
    finally:
        listener.close()

    assert response.status_code == 202
    assert response.json()["health"]["status"] == "pending"
    assert job["kind"] == "health_check"
    assert job["spec"]["time_url"].endswith("/api/agent/time/")
    assert job["spec"]["topic"] == f"iotsecbench/health/{device.pk}/{job['job_id']}"
    assert not _report(device, "not-the-job")  # an answer to another job changes nothing
    assert owner_client.get(f"/api/devices/{device.pk}/").json()["health"]["status"] == "pending"

    assert _report(device, job["job_id"])

    health = owner_client.get(f"/api/devices/{device.pk}/").json()["health"]
    assert health["status"] == "passed"
    assert [c["name"] for c in health["checks"]] == [c["name"] for c in REPORT_CHECKS]
    assert health["checks"][0]["value"] == 0.31
    assert health["checks"][2]["value"] is None


@pytest.mark.django_db
def test_an_offline_device_cannot_be_checked_and_the_answer_says_what_to_do(personas, owner_client):
    device = DeviceFactory.create(workspace=personas.workspace, online=False, name="pi-9")
    response = owner_client.post(f"/api/devices/{device.pk}/health-check/")
    assert response.status_code == 409
    assert response.json()["code"] == "device_offline"
    assert "pi-9 is offline: start its agent" in response.json()["message"]


@pytest.mark.django_db
def test_other_workspaces_devices_are_not_found(personas, outsider_client):
    device = DeviceFactory.create(workspace=personas.workspace)
    assert outsider_client.post(f"/api/devices/{device.pk}/health-check/").status_code == 404
    assert outsider_client.get(f"/api/devices/{device.pk}/").status_code == 404


@pytest.mark.django_db
def test_agent_time_answers_the_platform_clock_to_a_device_only(personas):
    token = "iotsb_device_" + secrets.token_urlsafe(16)
    DeviceFactory.create(workspace=personas.workspace, token_hash=token_hash(token))
    client = APIClient()
    assert client.post("/api/agent/time/").status_code == 401
    before = time.time_ns()
    response = client.post("/api/agent/time/", HTTP_AUTHORIZATION=f"Device {token}")
    after = time.time_ns()
    assert response.status_code == 200
    body = response.json()
    assert before <= body["received_ns"] <= body["sent_ns"] <= after


@pytest.mark.django_db
def test_a_revoked_device_loses_its_token_its_messages_and_its_place_in_the_list(
    personas, owner_client
):
    token = "iotsb_device_" + secrets.token_urlsafe(16)
    device = DeviceFactory.create(workspace=personas.workspace, token_hash=token_hash(token))
    agent = APIClient()
    assert agent.post("/api/agent/time/", HTTP_AUTHORIZATION=f"Device {token}").status_code == 200

    assert owner_client.post(f"/api/devices/{device.pk}/revoke/").status_code == 204

    assert agent.post("/api/agent/time/", HTTP_AUTHORIZATION=f"Device {token}").status_code == 401
    assert owner_client.get("/api/devices/").json() == []
    status = json.dumps({"state": "online", "ts": time.time()}).encode()
    assert not handle_message(f"iotsecbench/agents/{device.pk}/status", status)
    device.refresh_from_db()
    assert (device.online, device.revoked_at is not None) == (False, True)
    experiment = {"name": "x", "device_ids": [str(device.pk)]}
    response = owner_client.post("/api/experiments/", experiment, format="json")
    assert (response.status_code, response.json()["code"]) == (400, "device_not_in_workspace")


@pytest.mark.django_db
def test_a_device_with_queued_runs_cannot_be_revoked(personas, owner_client, monkeypatch):
    from core.testing.factories import ExperimentFactory
    from experiments.services.scheduling import experiment_start

    monkeypatch.setattr("django.db.transaction.on_commit", lambda fn, **kw: None)
    device = DeviceFactory.create(workspace=personas.workspace, name="pi-busy")
    experiment_start(
        experiment=ExperimentFactory.create(workspace=personas.workspace, devices=[device])
    )
    response = owner_client.post(f"/api/devices/{device.pk}/revoke/")
    assert (response.status_code, response.json()["code"]) == (409, "device_busy")
    assert "cancel them before revoking" in response.json()["message"]
