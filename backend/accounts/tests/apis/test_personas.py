"""Owner, teammate and outsider on the accounts endpoints (issue #18, point 6)."""

from __future__ import annotations

import pytest
from conftest import client_for
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("persona", "workspace"),
    [("owner", "workspace"), ("teammate", "workspace"), ("outsider", "outsider_workspace")],
)
def test_me_names_the_user_and_their_own_workspace(personas, persona, workspace):
    response = client_for(getattr(personas, persona)).get("/api/auth/me/")
    expected = getattr(personas, workspace)
    assert response.status_code == 200
    assert response.json()["username"] == persona
    assert response.json()["workspace"] == {"id": str(expected.pk), "name": expected.name}


@pytest.mark.parametrize("persona", ["teammate", "outsider"])
def test_login_as_a_non_owner_opens_their_own_workspace(personas, persona):
    user = getattr(personas, persona)
    expected = personas.workspace if persona == "teammate" else personas.outsider_workspace
    client = APIClient()
    response = client.post(
        "/api/auth/login/",
        {"username": persona, "password": "correct horse battery"},
        format="json",
    )
    assert (response.status_code, response.json()["workspace"]["id"]) == (200, str(expected.pk))
    assert client.get("/api/auth/me/").json()["id"] == user.pk


@pytest.mark.parametrize("persona", ["owner", "teammate", "outsider"])
def test_every_persona_gets_a_csrf_token(personas, persona):
    response = client_for(getattr(personas, persona)).get("/api/auth/csrf/")
    assert response.status_code == 200
    assert response.json()["csrf_token"]
