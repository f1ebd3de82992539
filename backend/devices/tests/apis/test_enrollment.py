from __future__ import annotations

import base64

import pytest
from Crypto.Signature import eddsa
from rest_framework.test import APIClient

from devices.authentication import token_hash
from devices.models import Device, EnrollmentToken
from devices.services import ENROLLMENT_REFUSED_MESSAGE

FACTS = {"hostname": "pi-lab-1", "cpu_cores": 4, "python_version": "3.11.2"}


def _new_token(client: APIClient) -> str:
    response = client.post("/api/devices/enrollment-tokens/")
    assert response.status_code == 201
    return str(response.json()["token"])


@pytest.mark.django_db
def test_agent_enrolls_once_with_a_token_created_by_a_user(personas, owner_client):
    token = _new_token(owner_client)
    response = APIClient().post(
        "/api/agent/enroll/", {"token": token, "name": "pi-lab-1", "facts": FACTS}, format="json"
    )
    assert response.status_code == 201
    body = response.json()
    device = Device.objects.get(pk=body["device_id"])
    assert device.workspace == personas.workspace
    assert device.facts == FACTS
    assert device.token_hash == token_hash(body["api_token"])
    assert body["topic_prefix"] == f"iotsecbench/agents/{device.pk}"
    public_key = eddsa.import_public_key(base64.b64decode(body["job_public_key"]))
    assert public_key.curve == "Ed25519"
    assert EnrollmentToken.objects.get(device=device).used_at is not None


@pytest.mark.django_db
def test_agent_enroll_answers_token_invalid_when_token_is_reused(owner_client):
    token = _new_token(owner_client)
    first = APIClient().post("/api/agent/enroll/", {"token": token, "name": "a"}, format="json")
    second = APIClient().post("/api/agent/enroll/", {"token": token, "name": "b"}, format="json")
    assert first.status_code == 201
    assert second.status_code == 400
    assert second.json() == {
        "message": ENROLLMENT_REFUSED_MESSAGE,
        "code": "enrollment_token_invalid",
        "extra": {},
    }
    assert Device.objects.count() == 1


@pytest.mark.django_db
def test_agent_facts_update_the_device_when_its_token_is_sent(owner_client):
    token = _new_token(owner_client)
    enrolled = APIClient().post("/api/agent/enroll/", {"token": token, "name": "a"}, format="json")
    agent = APIClient()
    agent.credentials(HTTP_AUTHORIZATION=f"Device {enrolled.json()['api_token']}")
    response = agent.post("/api/agent/facts/", {"facts": FACTS}, format="json")
    assert response.status_code == 200
    assert Device.objects.get().facts == FACTS


@pytest.mark.django_db
def test_agent_facts_answer_401_when_the_device_token_is_unknown():
    agent = APIClient()
    agent.credentials(HTTP_AUTHORIZATION="Device not-a-token")
    response = agent.post("/api/agent/facts/", {"facts": {}}, format="json")
    assert response.status_code == 401
    assert response.json()["code"] == "device_authentication_failed"


@pytest.mark.django_db
def test_device_list_shows_only_the_users_workspace(personas, owner_client, outsider_client):
    from core.testing.factories import DeviceFactory

    DeviceFactory.create(workspace=personas.workspace, name="mine")
    DeviceFactory.create(workspace=personas.outsider_workspace, name="theirs")
    assert [d["name"] for d in owner_client.get("/api/devices/").json()] == ["mine"]
    assert [d["name"] for d in outsider_client.get("/api/devices/").json()] == ["theirs"]


@pytest.mark.django_db
def test_secrets_have_a_prefix_so_none_starts_with_a_dash(owner_client):
    # Regression: a token_urlsafe() secret starting with "-" broke `enroll --token <token>`.
    from devices.services import DEVICE_TOKEN_PREFIX, ENROLLMENT_TOKEN_PREFIX

    tokens = [_new_token(owner_client) for _ in range(20)]
    assert all(t.startswith(ENROLLMENT_TOKEN_PREFIX) for t in tokens)
    enrolled = APIClient().post(
        "/api/agent/enroll/", {"token": tokens[0], "name": "a"}, format="json"
    )
    assert enrolled.json()["api_token"].startswith(DEVICE_TOKEN_PREFIX)
