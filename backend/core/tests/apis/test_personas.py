"""The health endpoint answers every persona alike, signed in or not (issue #18, point 6)."""

from __future__ import annotations

import pytest
from conftest import client_for


@pytest.mark.django_db
@pytest.mark.parametrize("persona", ["owner", "teammate", "outsider", None])
def test_health_answers_ok_to_every_persona(personas, persona):
    user = getattr(personas, persona) if persona else None
    response = client_for(user).get("/api/health/")
    assert (response.status_code, response.json()) == (200, {"status": "ok"})
