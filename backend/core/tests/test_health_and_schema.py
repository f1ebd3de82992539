from __future__ import annotations

import pytest


@pytest.mark.django_db
def test_health_answers_ok_without_login(anonymous_client):
    response = anonymous_client.get("/api/health/")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.mark.django_db
def test_schema_requires_login_and_describes_the_experiment_api(anonymous_client, owner_client):
    assert anonymous_client.get("/api/schema/").status_code == 401
    response = owner_client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    assert "/api/experiments/" in schema["paths"]
    assert {"Experiment", "ExperimentInput", "Run", "RunSummaryRow", "Device"} <= set(
        schema["components"]["schemas"]
    )


@pytest.mark.django_db
def test_swagger_docs_page_renders_for_a_signed_in_user(owner_client):
    response = owner_client.get("/api/docs/")
    assert response.status_code == 200
    assert b"swagger" in response.content.lower()
