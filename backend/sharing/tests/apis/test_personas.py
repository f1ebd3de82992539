"""Owner, teammate and outsider on the share-management endpoints (issue #18, point 6).

The public /api/public/shares/<token>/ endpoints take no persona: the token is the key
(sharing/tests/test_public_api.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from conftest import client_for
from django.utils import timezone

from sharing.apis import NOT_IN_WORKSPACE
from sharing.models import Share

pytestmark = pytest.mark.django_db

MS = 1_000_000


@pytest.mark.parametrize("persona", ["owner", "teammate"])
def test_workspace_members_share_a_lab_run_in_the_lab_workspace(make_run, personas, persona):
    made = make_run({"pi-a": [2 * MS]})
    user = getattr(personas, persona)
    response = client_for(user).post("/api/shares/", {"kind": "run", "run": str(made.run.pk)})
    assert response.status_code == 201
    share = Share.objects.get()
    assert (share.workspace, share.created_by) == (personas.workspace, user)


def test_outsider_cannot_share_a_lab_run(make_run, outsider_client):
    made = make_run({"pi-a": [2 * MS]})
    response = outsider_client.post("/api/shares/", {"kind": "run", "run": str(made.run.pk)})
    assert response.status_code == 400
    assert response.json()["extra"]["fields"] == {"run": [NOT_IN_WORKSPACE.format(what="run")]}
    assert not Share.objects.exists()


def test_teammate_reads_and_changes_the_expiry_of_a_workspace_share(
    make_run, personas, owner_client
):
    made = make_run({"pi-a": [2 * MS]})
    share = owner_client.post("/api/shares/", {"kind": "run", "run": str(made.run.pk)}).json()
    teammate = client_for(personas.teammate)
    later = timezone.now() + timedelta(days=7)

    assert teammate.get(f"/api/shares/{share['id']}/").status_code == 200
    response = teammate.patch(
        f"/api/shares/{share['id']}/", {"expires_at": later.isoformat()}, format="json"
    )
    assert (response.status_code, Share.objects.get().expires_at) == (200, later)


def test_outsider_cannot_change_the_expiry_of_a_lab_share(make_run, owner_client, outsider_client):
    made = make_run({"pi-a": [2 * MS]})
    share = owner_client.post("/api/shares/", {"kind": "run", "run": str(made.run.pk)}).json()
    later = timezone.now() + timedelta(days=7)
    response = outsider_client.patch(
        f"/api/shares/{share['id']}/", {"expires_at": later.isoformat()}, format="json"
    )
    assert (response.status_code, Share.objects.get().expires_at) == (404, None)


def test_anonymous_cannot_create_a_share(make_run, anonymous_client):
    made = make_run({"pi-a": [2 * MS]})
    response = anonymous_client.post("/api/shares/", {"kind": "run", "run": str(made.run.pk)})
    assert (response.status_code, Share.objects.count()) == (401, 0)
