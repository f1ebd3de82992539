"""Owner, teammate and outsider on every devices endpoint (issue #18, point 6)."""

from __future__ import annotations

import pytest
from conftest import client_for

from core.testing.factories import DeviceFactory
from devices.models import Device, EnrollmentToken


@pytest.mark.django_db
@pytest.mark.parametrize("persona", ["owner", "teammate"])
def test_workspace_members_list_and_read_the_workspaces_devices(personas, persona):
    device = DeviceFactory.create(workspace=personas.workspace, name="pi-lab")
    DeviceFactory.create(workspace=personas.outsider_workspace, name="pi-theirs")
    client = client_for(getattr(personas, persona))

    listed = client.get("/api/devices/")
    detail = client.get(f"/api/devices/{device.pk}/")

    assert (listed.status_code, [d["name"] for d in listed.json()]) == (200, ["pi-lab"])
    assert (detail.status_code, detail.json()["name"]) == (200, "pi-lab")


@pytest.mark.django_db
def test_outsider_list_never_shows_the_lab_workspaces_devices(personas, outsider_client):
    DeviceFactory.create(workspace=personas.workspace, name="pi-lab")
    response = outsider_client.get("/api/devices/")
    assert (response.status_code, response.json()) == (200, [])


@pytest.mark.django_db
@pytest.mark.parametrize("persona", ["owner", "teammate"])
def test_workspace_members_create_enrollment_tokens_for_the_workspace(personas, persona):
    response = client_for(getattr(personas, persona)).post("/api/devices/enrollment-tokens/")
    assert response.status_code == 201
    token = EnrollmentToken.objects.get()
    assert token.workspace == personas.workspace


@pytest.mark.django_db
def test_outsider_enrollment_token_belongs_to_the_outsiders_workspace(personas, outsider_client):
    response = outsider_client.post("/api/devices/enrollment-tokens/")
    assert response.status_code == 201
    assert list(EnrollmentToken.objects.values_list("workspace", flat=True)) == [
        personas.outsider_workspace.pk
    ]


@pytest.mark.django_db
def test_teammate_revokes_a_workspace_device(personas):
    device = DeviceFactory.create(workspace=personas.workspace)
    response = client_for(personas.teammate).post(f"/api/devices/{device.pk}/revoke/")
    device.refresh_from_db()
    assert (response.status_code, device.revoked_at is not None) == (204, True)


@pytest.mark.django_db
def test_outsider_cannot_revoke_a_lab_device_and_it_stays_enrolled(personas, outsider_client):
    device = DeviceFactory.create(workspace=personas.workspace)
    response = outsider_client.post(f"/api/devices/{device.pk}/revoke/")
    device.refresh_from_db()
    assert (response.status_code, device.revoked_at, device.online) == (404, None, True)


@pytest.mark.django_db
def test_outsider_health_check_of_a_lab_device_is_404_and_stores_nothing(personas, outsider_client):
    device = DeviceFactory.create(workspace=personas.workspace)
    response = outsider_client.post(f"/api/devices/{device.pk}/health-check/")
    assert response.status_code == 404
    assert Device.objects.get(pk=device.pk).health == {}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/devices/"),
        ("post", "/api/devices/enrollment-tokens/"),
        ("get", "/api/devices/{id}/"),
        ("post", "/api/devices/{id}/health-check/"),
        ("post", "/api/devices/{id}/revoke/"),
    ],
)
def test_anonymous_is_refused_on_every_devices_endpoint(personas, anonymous_client, method, path):
    device = DeviceFactory.create(workspace=personas.workspace)
    response = getattr(anonymous_client, method)(path.format(id=device.pk))
    assert response.status_code in (401, 403)
    device.refresh_from_db()
    assert (device.revoked_at, EnrollmentToken.objects.count()) == (None, 0)
