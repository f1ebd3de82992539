"""/api/network-profiles/: the catalogue for everyone, a workspace's own profiles for it."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import client_for
from rest_framework.test import APIClient

from core.exception_handlers import VALIDATION_MESSAGE
from netprofiles.models import NetworkProfile, ProfileKind
from netprofiles.services import NAME_TAKEN_MESSAGE, READ_ONLY_MESSAGE, builtin_id

pytestmark = pytest.mark.django_db

URL = "/api/network-profiles/"
GPRS_LOSS = builtin_id("srup-10-2g-gprs-loss-10")
TIM_BAD = builtin_id("table-tim-bad-3g-no-roaming")
EDGE_SPEC = {"both": {"rate_kbit": 384, "delay_ms": 115.6}}


def _create(
    client: APIClient, name: str = "Field trial", spec: object = None, **fields: object
) -> Any:
    body = {"name": name, "spec": EDGE_SPEC if spec is None else spec, **fields}
    return client.post(URL, body, format="json")


def test_list_shows_the_catalogue_and_the_workspaces_profiles_first(owner_client, personas):
    _create(owner_client, "Field trial")
    response = owner_client.get(URL)
    assert response.status_code == 200
    data = response.json()
    assert len(data) == 62
    assert data[0]["name"] == "Field trial"
    assert (data[0]["kind"], data[0]["builtin"]) == ("user", False)
    assert [row["name"].split(":")[0] for row in data[1:11]] == [f"SRUP {n}" for n in range(1, 11)]
    assert data[11]["kind"] == "measured_table"
    assert all(row["builtin"] for row in data[1:])
    assert "values" not in data[12]["spec"]["egress"]  # a table is named, never inlined


def test_list_filters_by_kind_and_searches_the_name(owner_client):
    tables = owner_client.get(URL, {"kind": "measured_table"}).json()
    assert len(tables) == 51
    assert {row["kind"] for row in tables} == {"measured_table"}
    found = owner_client.get(URL, {"search": "tim.BAD"}).json()
    assert [row["name"] for row in found] == ["TIM.bad.3G.no_roaming"]
    bad = owner_client.get(URL, {"kind": "nope"})
    assert bad.status_code == 400
    assert "kind" in bad.json()["extra"]["fields"]


def test_outsider_does_not_see_the_workspaces_profiles(owner_client, outsider_client):
    _create(owner_client, "Field trial")
    names = {row["name"] for row in outsider_client.get(URL).json()}
    assert "Field trial" not in names
    assert len(names) == 61


def test_detail_of_a_table_shows_delivered_figures_and_a_40_bin_histogram(owner_client):
    response = owner_client.get(f"{URL}{TIM_BAD}/")
    assert response.status_code == 200
    data = response.json()
    assert data["name"] == "TIM.bad.3G.no_roaming"
    [delays] = data["delays"]
    assert delays["direction"] == "egress"
    assert delays["table"] == "TIM.bad.3G.no_roaming"
    assert delays["delivered_mean_ms"] == pytest.approx(122.649579, rel=0.01)
    assert delays["delivered_std_ms"] < delays["sigma_ms"]
    assert len(delays["counts"]) == 40
    assert len(delays["edges_ms"]) == 41
    assert sum(delays["counts"]) == 4096


def test_create_stores_a_user_profile_in_the_workspace(owner_client, personas):
    spec = {"egress": {"delay_ms": 50, "jitter_ms": 5, "loss_gemodel": {"p_pct": 1}}}
    response = _create(owner_client, "Bursty 4G", spec=spec, citation="our own measurement")
    assert response.status_code == 201, response.json()
    data = response.json()
    assert (data["kind"], data["builtin"], data["slug"]) == ("user", False, "bursty-4g")
    assert data["delays"][0]["distribution"] == "normal"
    row = NetworkProfile.objects.get(pk=data["id"])
    assert row.workspace == personas.workspace
    assert row.created_by == personas.owner
    assert row.spec == spec
    assert row.citation == "our own measurement"


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ({"egress": {"loss_pct": 120}}, "egress.loss_pct"),
        ({"both": {"delay_ms": 10, "jitter_ms": 2, "distribution": "gauss"}}, "both.distribution"),
        ({"ingress": {"rate": 5}}, "ingress.rate"),
        ({"both": {}, "egress": {}}, "both"),
        (
            {"egress": {"delay_ms": 10, "jitter_ms": 2, "distribution": "table", "table": "X.4G"}},
            "egress.table",
        ),
        ([1, 2], "profile"),
    ],
)
def test_create_with_an_invalid_spec_answers_a_field_error_naming_the_field(
    owner_client, personas, spec, field
):
    response = _create(owner_client, "Broken", spec=spec)
    assert response.status_code == 400
    body = response.json()
    assert (body["code"], body["message"]) == ("validation_error", VALIDATION_MESSAGE)
    [message] = body["extra"]["fields"]["spec"]
    assert message.startswith(f"{field}: ")
    assert "allowed: " in message
    assert not NetworkProfile.objects.filter(workspace=personas.workspace).exists()


def test_create_with_a_name_the_workspace_uses_answers_a_name_error(owner_client, personas):
    _create(owner_client, "Field trial")
    response = _create(owner_client, "Field trial")
    assert response.status_code == 400
    assert response.json()["extra"]["fields"]["name"] == [
        NAME_TAKEN_MESSAGE.format(name="Field trial")
    ]
    assert NetworkProfile.objects.filter(workspace=personas.workspace).count() == 1


def test_update_changes_a_user_profile(owner_client):
    profile_id = _create(owner_client, "Field trial").json()["id"]
    spec = {"both": {"delay_ms": 20, "reorder_pct": 1}}
    response = owner_client.patch(
        f"{URL}{profile_id}/", {"name": "Trial 2", "spec": spec}, format="json"
    )
    assert response.status_code == 200, response.json()
    row = NetworkProfile.objects.get(pk=profile_id)
    assert (row.name, row.slug, row.spec) == ("Trial 2", "trial-2", spec)
    bad = owner_client.patch(f"{URL}{profile_id}/", {"spec": {"both": {"limit": 0}}}, format="json")
    assert bad.status_code == 400
    assert bad.json()["extra"]["fields"]["spec"][0].startswith("both.limit: ")
    assert NetworkProfile.objects.get(pk=profile_id).spec == spec


def test_builtins_cannot_be_changed_or_deleted(owner_client):
    before = NetworkProfile.objects.get(pk=GPRS_LOSS)
    patch = owner_client.patch(f"{URL}{GPRS_LOSS}/", {"name": "Mine now"}, format="json")
    delete = owner_client.delete(f"{URL}{GPRS_LOSS}/")
    for response in (patch, delete):
        assert response.status_code == 403
        assert response.json() == {
            "message": READ_ONLY_MESSAGE.format(name=before.name, id=GPRS_LOSS),
            "code": "network_profile_read_only",
            "extra": {},
        }
    after = NetworkProfile.objects.get(pk=GPRS_LOSS)
    assert (after.name, after.spec, after.updated_at) == (
        before.name,
        before.spec,
        before.updated_at,
    )


def test_delete_removes_a_user_profile(owner_client, personas):
    profile_id = _create(owner_client).json()["id"]
    assert owner_client.delete(f"{URL}{profile_id}/").status_code == 204
    assert not NetworkProfile.objects.filter(pk=profile_id).exists()


def test_copy_of_a_builtin_is_an_editable_user_profile_with_the_same_spec(owner_client, personas):
    response = owner_client.post(f"{URL}{GPRS_LOSS}/copy/", {}, format="json")
    assert response.status_code == 201, response.json()
    data = response.json()
    original = NetworkProfile.objects.get(pk=GPRS_LOSS)
    assert data["name"] == f"{original.name} (copy)"
    assert (data["kind"], data["builtin"]) == ("user", False)
    copy = NetworkProfile.objects.get(pk=data["id"])
    assert copy.workspace == personas.workspace
    assert (copy.spec, copy.citation) == (original.spec, original.citation)
    again = owner_client.post(f"{URL}{GPRS_LOSS}/copy/", {}, format="json").json()
    assert again["name"] == f"{original.name} (copy 2)"
    changed = owner_client.patch(
        f"{URL}{copy.pk}/", {"spec": {"both": {"loss_pct": 20}}}, format="json"
    )
    assert changed.status_code == 200
    assert NetworkProfile.objects.get(pk=GPRS_LOSS).spec == original.spec


def test_copy_of_a_user_profile_takes_the_given_name(owner_client, personas):
    profile_id = _create(owner_client, "Field trial").json()["id"]
    response = owner_client.post(f"{URL}{profile_id}/copy/", {"name": "Variant"}, format="json")
    assert response.status_code == 201
    assert set(
        NetworkProfile.objects.filter(workspace=personas.workspace).values_list("name", flat=True)
    ) == {"Field trial", "Variant"}


def test_teammate_sees_and_changes_the_workspaces_profiles(owner_client, personas):
    profile_id = _create(owner_client).json()["id"]
    teammate = client_for(personas.teammate)
    assert teammate.get(f"{URL}{profile_id}/").status_code == 200
    response = teammate.patch(f"{URL}{profile_id}/", {"description": "checked"}, format="json")
    assert response.status_code == 200
    assert NetworkProfile.objects.get(pk=profile_id).description == "checked"


def test_outsider_gets_404_on_another_workspaces_profile(owner_client, outsider_client):
    profile_id = _create(owner_client).json()["id"]
    for response in (
        outsider_client.get(f"{URL}{profile_id}/"),
        outsider_client.patch(f"{URL}{profile_id}/", {"name": "x"}, format="json"),
        outsider_client.delete(f"{URL}{profile_id}/"),
        outsider_client.post(f"{URL}{profile_id}/copy/", {}, format="json"),
    ):
        assert response.status_code == 404
        assert response.json()["code"] == "not_found"
    assert NetworkProfile.objects.get(pk=profile_id).name == "Field trial"
    assert NetworkProfile.objects.filter(kind=ProfileKind.USER).count() == 1


def test_outsider_can_copy_a_builtin_into_their_own_workspace(outsider_client, personas):
    response = outsider_client.post(f"{URL}{TIM_BAD}/copy/", {"name": "Mine"}, format="json")
    assert response.status_code == 201
    assert NetworkProfile.objects.get(pk=response.json()["id"]).workspace == (
        personas.outsider_workspace
    )


def test_anonymous_is_refused(anonymous_client):
    assert anonymous_client.get(URL).status_code in (401, 403)
