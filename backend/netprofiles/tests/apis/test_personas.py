"""Teammate cases the network-profile tests leave out (issue #18, point 6): a member of the
Lab workspace creates, copies and deletes its profiles like the owner."""

from __future__ import annotations

import pytest
from conftest import client_for

from netprofiles.models import NetworkProfile

pytestmark = pytest.mark.django_db

URL = "/api/network-profiles/"
SPEC = {"both": {"rate_kbit": 384, "delay_ms": 115.6}}


def test_teammate_creates_a_profile_in_the_lab_workspace(personas):
    response = client_for(personas.teammate).post(
        URL, {"name": "Teammate's", "spec": SPEC}, format="json"
    )
    assert response.status_code == 201
    row = NetworkProfile.objects.get(pk=response.json()["id"])
    assert (row.workspace, row.created_by) == (personas.workspace, personas.teammate)


def test_teammate_lists_the_profiles_the_owner_created(personas, owner_client):
    owner_client.post(URL, {"name": "Owner's", "spec": SPEC}, format="json")
    names = {row["name"] for row in client_for(personas.teammate).get(URL).json()}
    assert "Owner's" in names


def test_teammate_copies_and_deletes_the_owners_profile(personas, owner_client):
    profile_id = owner_client.post(URL, {"name": "Owner's", "spec": SPEC}, format="json").json()[
        "id"
    ]
    teammate = client_for(personas.teammate)

    copied = teammate.post(f"{URL}{profile_id}/copy/", {"name": "Copy"}, format="json")
    assert copied.status_code == 201
    assert NetworkProfile.objects.get(pk=copied.json()["id"]).workspace == personas.workspace

    deleted = teammate.delete(f"{URL}{profile_id}/")
    assert (deleted.status_code, NetworkProfile.objects.filter(pk=profile_id).exists()) == (
        204,
        False,
    )


def test_outsider_profile_list_never_shows_lab_profiles(personas, owner_client, outsider_client):
    owner_client.post(URL, {"name": "Owner's", "spec": SPEC}, format="json")
    response = outsider_client.get(URL)
    assert response.status_code == 200
    assert all(row["builtin"] for row in response.json())
