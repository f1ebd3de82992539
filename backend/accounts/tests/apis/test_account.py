"""One's own account: changing the password, personal API tokens for scripts (issue #21
point 9). Tokens are checked over real HTTP (the test client through the middleware)."""

from __future__ import annotations

import pytest
from conftest import client_for
from django.test import Client

from accounts.authentication import UNKNOWN_MESSAGE, api_token_hash
from accounts.models import ApiToken
from accounts.services import CURRENT_PASSWORD_WRONG_MESSAGE, api_token_create

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"
NEW_PASSWORD = "a new and long passphrase"


def _signed_in(username: str, password: str = PASSWORD) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.get("/api/auth/csrf/")
    response = client.post(
        "/api/auth/login/",
        {"username": username, "password": password},
        content_type="application/json",
        headers={"X-CSRFToken": client.cookies["csrftoken"].value},
    )
    assert response.status_code == 200
    return client


def _post(client: Client, path: str, body: dict[str, str]):
    return client.post(
        path,
        body,
        content_type="application/json",
        headers={"X-CSRFToken": client.cookies["csrftoken"].value},
    )


@pytest.mark.parametrize("persona", ["owner", "teammate", "outsider"])
def test_every_user_changes_their_own_password(personas, persona):
    client = _signed_in(persona)
    response = _post(
        client,
        "/api/auth/password/",
        {"current_password": PASSWORD, "new_password": NEW_PASSWORD},
    )
    assert response.status_code == 204
    user = getattr(personas, persona)
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)
    assert client.get("/api/auth/me/").status_code == 200  # this session stays signed in
    assert Client().login(username=persona, password=NEW_PASSWORD)


def test_a_wrong_current_password_changes_nothing(personas):
    client = _signed_in("owner")
    response = _post(
        client, "/api/auth/password/", {"current_password": "nope", "new_password": NEW_PASSWORD}
    )
    assert (response.status_code, response.json()["message"]) == (
        400,
        CURRENT_PASSWORD_WRONG_MESSAGE,
    )
    personas.owner.refresh_from_db()
    assert personas.owner.check_password(PASSWORD)


def test_a_new_password_must_pass_djangos_validators(personas):
    client = _signed_in("owner")
    response = _post(
        client, "/api/auth/password/", {"current_password": PASSWORD, "new_password": "123"}
    )
    assert response.status_code == 400
    assert len(response.json()["extra"]["fields"]["new_password"]) >= 2  # short and numeric
    personas.owner.refresh_from_db()
    assert personas.owner.check_password(PASSWORD)


def test_a_token_is_shown_once_stored_hashed_and_works_for_a_script(personas):
    client = _signed_in("teammate")
    created = _post(client, "/api/auth/tokens/", {"name": "nightly export"})

    assert created.status_code == 201
    key = created.json()["key"]
    row = ApiToken.objects.get()
    assert (row.user, row.name, row.token_hash) == (
        personas.teammate,
        "nightly export",
        api_token_hash(key),
    )
    assert key.startswith(row.prefix)
    listed = client.get("/api/auth/tokens/").json()
    assert [(t["name"], t["last_used_at"]) for t in listed] == [("nightly export", None)]
    assert "key" not in listed[0]

    script = Client()  # no cookies: only the header
    me = script.get("/api/auth/me/", headers={"Authorization": f"Token {key}"})
    assert (me.status_code, me.json()["username"]) == (200, "teammate")
    row.refresh_from_db()
    assert row.last_used_at is not None


def test_a_revoked_token_stops_working_at_once(personas):
    key = api_token_create(user=personas.owner, name="ci").key
    script = Client()
    auth = {"Authorization": f"Token {key}"}
    assert script.get("/api/experiments/", headers=auth).status_code == 200

    client = _signed_in("owner")
    token_id = ApiToken.objects.get().pk
    revoked = client.delete(
        f"/api/auth/tokens/{token_id}/",
        headers={"X-CSRFToken": client.cookies["csrftoken"].value},
    )

    assert revoked.status_code == 204
    refused = script.get("/api/experiments/", headers=auth)
    assert (refused.status_code, refused.json()["message"]) == (401, UNKNOWN_MESSAGE)
    assert ApiToken.objects.count() == 0


@pytest.mark.parametrize("persona", ["teammate", "outsider"])
def test_nobody_else_sees_or_revokes_a_users_token(personas, persona):
    token = api_token_create(user=personas.owner, name="mine").token
    client = client_for(getattr(personas, persona))
    assert client.get("/api/auth/tokens/").json() == []
    assert client.delete(f"/api/auth/tokens/{token.pk}/").status_code == 404
    assert ApiToken.objects.filter(pk=token.pk).exists()


def test_a_token_cannot_create_tokens_or_change_the_password(personas):
    key = api_token_create(user=personas.owner, name="ci").key
    script = Client()
    auth = {"Authorization": f"Token {key}"}
    created = script.post(
        "/api/auth/tokens/", {"name": "more"}, content_type="application/json", headers=auth
    )
    changed = script.post(
        "/api/auth/password/",
        {"current_password": PASSWORD, "new_password": NEW_PASSWORD},
        content_type="application/json",
        headers=auth,
    )
    assert (created.status_code, created.json()["code"]) == (403, "session_required")
    assert (changed.status_code, changed.json()["code"]) == (403, "session_required")
    assert ApiToken.objects.count() == 1


def test_an_unknown_token_is_a_401_with_the_scheme(db):
    response = Client().get("/api/experiments/", headers={"Authorization": "Token nope"})
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert response.json()["code"] == "authentication_failed"
