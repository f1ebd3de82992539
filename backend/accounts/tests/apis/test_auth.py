from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.apis import INVALID_CREDENTIALS_MESSAGE


@pytest.mark.django_db
def test_login_returns_user_and_workspace_when_credentials_are_right(personas):
    client = APIClient(enforce_csrf_checks=True)
    csrf = client.get("/api/auth/csrf/").json()["csrf_token"]
    response = client.post(
        "/api/auth/login/",
        {"username": "owner", "password": "correct horse battery"},
        format="json",
        HTTP_X_CSRFTOKEN=csrf,
    )
    assert response.status_code == 200
    assert response.json()["username"] == "owner"
    assert response.json()["workspace"]["id"] == str(personas.workspace.id)
    assert client.get("/api/auth/me/").json()["username"] == "owner"


@pytest.mark.django_db
def test_login_answers_invalid_credentials_when_password_is_wrong(personas, anonymous_client):
    response = anonymous_client.post(
        "/api/auth/login/", {"username": "owner", "password": "nope"}, format="json"
    )
    assert response.status_code == 400
    assert response.json() == {
        "message": INVALID_CREDENTIALS_MESSAGE,
        "code": "invalid_credentials",
        "extra": {},
    }


@pytest.mark.django_db
def test_me_answers_not_authenticated_when_signed_out(anonymous_client):
    response = anonymous_client.get("/api/auth/me/")
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


@pytest.mark.django_db
def test_logout_ends_the_session(personas):
    client = APIClient()
    client.login(username="owner", password="correct horse battery")
    assert client.post("/api/auth/logout/").status_code == 204
    assert client.get("/api/auth/me/").status_code == 401
