"""DRF's own failures answer with the same envelope and a stable code."""

from __future__ import annotations

import uuid

import pytest
from rest_framework.test import APIClient

from accounts.authentication import UNKNOWN_MESSAGE
from core.views import API_NOT_FOUND_MESSAGE


@pytest.mark.django_db
def test_unknown_token_answers_authentication_failed(personas):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    response = client.get("/api/experiments/")
    assert response.status_code == 401
    assert response.json() == {
        "message": UNKNOWN_MESSAGE,
        "code": "authentication_failed",
        "extra": {},
    }


@pytest.mark.django_db
def test_wrong_method_answers_method_not_allowed(owner_client):
    response = owner_client.delete("/api/experiments/")
    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"


@pytest.mark.django_db
def test_wrong_content_type_answers_unsupported_media_type(owner_client):
    response = owner_client.post("/api/experiments/", b"name=x", content_type="text/plain")
    assert response.status_code == 415
    assert response.json()["code"] == "unsupported_media_type"


@pytest.mark.django_db
def test_unknown_run_answers_not_found(owner_client):
    response = owner_client.get(f"/api/runs/{uuid.uuid4()}/")
    assert response.status_code == 404
    assert response.json() == {"message": "Not found.", "code": "not_found", "extra": {}}


@pytest.mark.django_db
def test_csrf_failure_answers_permission_denied_with_the_reason(personas):
    client = APIClient(enforce_csrf_checks=True)
    client.login(username="owner", password="correct horse battery")
    response = client.post("/api/auth/logout/")
    assert response.status_code == 403
    body = response.json()
    assert body["code"] == "permission_denied"
    assert "CSRF" in body["message"]


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["get", "post", "delete"])
@pytest.mark.parametrize("path", ["/api/nope/", "/api/runs/not-a-uuid/", "/api/agent"])
def test_unmatched_api_path_answers_the_not_found_envelope(anonymous_client, method, path):
    response = getattr(anonymous_client, method)(path)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == {
        "message": API_NOT_FOUND_MESSAGE.format(path=path),
        "code": "not_found",
        "extra": {},
    }


@pytest.mark.django_db
def test_wrong_method_on_an_open_endpoint_answers_the_method_not_allowed_envelope(
    anonymous_client,
):
    response = anonymous_client.put("/api/health/")
    assert response.status_code == 405
    assert response.json() == {
        "message": 'Method "PUT" not allowed.',
        "code": "method_not_allowed",
        "extra": {},
    }


@pytest.mark.django_db
def test_unmatched_path_outside_the_api_keeps_djangos_page(anonymous_client):
    response = anonymous_client.get("/static/nope.js")
    assert response.status_code == 404
    assert not response["Content-Type"].startswith("application/json")
