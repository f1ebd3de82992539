"""The owner's side of sharing: create, list, change and revoke links (/api/shares/)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from conftest import client_for
from django.utils import timezone

from experiments.models import RunStatus
from sharing.apis import (
    COMPARE_NEEDS_MESSAGING,
    DUPLICATE_RUNS,
    EXPIRY_IN_PAST,
    NOT_IN_WORKSPACE,
    ONLY_FOR_KIND,
    REQUIRED_FOR_KIND,
    RUN_NOT_COMPLETED,
)
from sharing.models import Share, ShareKind, ShareState
from sharing.services import TOKEN_BYTES

MS = 1_000_000


def _fields(response: Any) -> Any:
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "validation_error"
    return body["extra"]["fields"]


@pytest.mark.django_db
def test_owner_shares_a_completed_run_through_an_unguessable_path(make_run, personas, owner_client):
    made = make_run({"pi-a": [2 * MS, 3 * MS]})

    response = owner_client.post(
        "/api/shares/", {"kind": "run", "run": str(made.run.pk), "title": "For the paper"}
    )

    assert response.status_code == 201, response.content
    body = response.json()
    share = Share.objects.get()
    assert (share.kind, share.run_id, share.created_by, share.workspace) == (
        ShareKind.RUN,
        made.run.pk,
        personas.owner,
        personas.workspace,
    )
    # 256 random bits, URL-safe base64 without padding: 43 characters.
    assert len(share.token) == 43
    assert TOKEN_BYTES == 32
    assert body["path"] == f"/s/{share.token}"
    assert (body["state"], body["title"], body["expires_at"], body["views"]) == (
        "active",
        "For the paper",
        None,
        0,
    )
    assert body["created_by"] == "owner"


@pytest.mark.django_db
def test_every_share_gets_its_own_token(make_run, owner_client):
    made = make_run({"pi-a": [2 * MS]})
    for _ in range(3):
        owner_client.post("/api/shares/", {"kind": "run", "run": str(made.run.pk)})
    tokens = set(Share.objects.values_list("token", flat=True))
    keys = set(Share.objects.values_list("alias_key", flat=True))
    assert len(tokens) == 3
    assert len(keys) == 3


@pytest.mark.django_db
def test_the_target_fields_must_fit_the_kind(make_run, owner_client):
    made = make_run({"pi-a": [2 * MS]})

    missing = _fields(owner_client.post("/api/shares/", {"kind": "run"}))
    assert missing == {"run": [REQUIRED_FOR_KIND.format(kind="run")]}

    extra = _fields(
        owner_client.post(
            "/api/shares/",
            {"kind": "run", "run": str(made.run.pk), "experiment": str(made.run.experiment_id)},
            format="json",
        )
    )
    assert extra == {"experiment": [ONLY_FOR_KIND.format(kind="experiment")]}
    assert not Share.objects.exists()


@pytest.mark.django_db
def test_runs_and_experiments_of_another_workspace_cannot_be_shared(
    make_run, personas, owner_client
):
    theirs = make_run({"pi-x": [2 * MS]}, workspace=personas.outsider_workspace)

    run = _fields(owner_client.post("/api/shares/", {"kind": "run", "run": str(theirs.run.pk)}))
    assert run == {"run": [NOT_IN_WORKSPACE.format(what="run")]}
    experiment = _fields(
        owner_client.post(
            "/api/shares/", {"kind": "experiment", "experiment": str(theirs.run.experiment_id)}
        )
    )
    assert experiment == {"experiment": [NOT_IN_WORKSPACE.format(what="experiment")]}
    assert not Share.objects.exists()


@pytest.mark.django_db
def test_an_unfinished_run_cannot_be_shared(make_run, owner_client):
    made = make_run({"pi-a": [2 * MS]}, status=RunStatus.RUNNING)
    fields = _fields(owner_client.post("/api/shares/", {"kind": "run", "run": str(made.run.pk)}))
    assert fields == {"run": [RUN_NOT_COMPLETED.format(status="running")]}


@pytest.mark.django_db
def test_a_comparison_lists_two_or_more_distinct_messaging_runs(make_run, owner_client):
    a = make_run({"pi-a": [2 * MS]})
    b = make_run({"pi-a": [3 * MS]})
    bench = make_run({"pi-a": [3 * MS]})
    bench.run.experiment.kind = "cipher_bench"
    bench.run.experiment.save()

    one = _fields(
        owner_client.post(
            "/api/shares/", {"kind": "comparison", "runs": [str(a.run.pk)]}, format="json"
        )
    )
    assert list(one) == ["runs"]
    twice = _fields(
        owner_client.post(
            "/api/shares/",
            {"kind": "comparison", "runs": [str(a.run.pk), str(a.run.pk)]},
            format="json",
        )
    )
    assert twice == {"runs": [DUPLICATE_RUNS]}
    mixed = _fields(
        owner_client.post(
            "/api/shares/",
            {"kind": "comparison", "runs": [str(a.run.pk), str(bench.run.pk)]},
            format="json",
        )
    )
    assert mixed == {"runs": [COMPARE_NEEDS_MESSAGING.format(kind="cipher_bench")]}

    ok = owner_client.post(
        "/api/shares/",
        {"kind": "comparison", "runs": [str(b.run.pk), str(a.run.pk)]},
        format="json",
    )
    assert ok.status_code == 201
    assert Share.objects.get().run_ids == [b.run.pk, a.run.pk]  # in the order asked


@pytest.mark.django_db
def test_an_expiry_in_the_past_is_refused(make_run, owner_client):
    made = make_run({"pi-a": [2 * MS]})
    past = (timezone.now() - timedelta(minutes=1)).isoformat()
    fields = _fields(
        owner_client.post(
            "/api/shares/", {"kind": "run", "run": str(made.run.pk), "expires_at": past}
        )
    )
    assert fields == {"expires_at": [EXPIRY_IN_PAST]}


@pytest.mark.django_db
def test_the_list_shows_a_runs_shares_alone_or_in_comparisons(make_run, owner_client):
    a = make_run({"pi-a": [2 * MS]})
    b = make_run({"pi-a": [3 * MS]})
    alone = owner_client.post("/api/shares/", {"kind": "run", "run": str(a.run.pk)}).json()
    pair = owner_client.post(
        "/api/shares/",
        {"kind": "comparison", "runs": [str(a.run.pk), str(b.run.pk)]},
        format="json",
    ).json()
    of_b = owner_client.post("/api/shares/", {"kind": "run", "run": str(b.run.pk)}).json()

    listed = owner_client.get(f"/api/shares/?run={a.run.pk}").json()
    assert {s["id"] for s in listed} == {alone["id"], pair["id"]}
    assert len(owner_client.get("/api/shares/").json()) == 3
    assert of_b["id"] not in {s["id"] for s in listed}


@pytest.mark.django_db
def test_owner_changes_the_expiry_and_revokes_for_good(make_run, owner_client):
    made = make_run({"pi-a": [2 * MS]})
    share = owner_client.post("/api/shares/", {"kind": "run", "run": str(made.run.pk)}).json()
    later = timezone.now() + timedelta(days=7)

    changed = owner_client.patch(
        f"/api/shares/{share['id']}/", {"expires_at": later.isoformat()}, format="json"
    )
    assert changed.status_code == 200
    assert Share.objects.get().expires_at == later
    never = owner_client.patch(f"/api/shares/{share['id']}/", {"expires_at": None}, format="json")
    assert never.json()["expires_at"] is None

    revoked = owner_client.post(f"/api/shares/{share['id']}/revoke/")
    assert revoked.status_code == 200
    first = Share.objects.get().revoked_at
    assert revoked.json()["state"] == ShareState.REVOKED
    assert first is not None
    again = owner_client.post(f"/api/shares/{share['id']}/revoke/")
    assert again.status_code == 200
    assert Share.objects.get().revoked_at == first


@pytest.mark.django_db
def test_teammates_manage_the_workspaces_shares_and_outsiders_get_404(
    make_run, personas, owner_client, outsider_client, anonymous_client
):
    made = make_run({"pi-a": [2 * MS]})
    share = owner_client.post("/api/shares/", {"kind": "run", "run": str(made.run.pk)}).json()
    teammate = client_for(personas.teammate)

    assert [s["id"] for s in teammate.get("/api/shares/").json()] == [share["id"]]
    assert outsider_client.get("/api/shares/").json() == []
    for method, path in (
        ("get", f"/api/shares/{share['id']}/"),
        ("patch", f"/api/shares/{share['id']}/"),
        ("post", f"/api/shares/{share['id']}/revoke/"),
    ):
        assert getattr(outsider_client, method)(path).status_code == 404
    assert Share.objects.get().revoked_at is None
    assert anonymous_client.get("/api/shares/").status_code == 401
    assert teammate.post(f"/api/shares/{share['id']}/revoke/").status_code == 200
