"""A workspace's team: members, invitation links, removing, switching (issue #21 point 9).
Owner, teammate and outsider on every endpoint."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from conftest import client_for
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.authentication import api_token_hash
from accounts.models import Invitation, Membership
from accounts.services import (
    INVITATION_EXPIRED_MESSAGE,
    INVITATION_UNKNOWN_MESSAGE,
    INVITATION_USED_MESSAGE,
    LAST_OWNER_MESSAGE,
    OWNER_REQUIRED_MESSAGE,
    IssuedInvitation,
    invitation_create,
)
from core.testing.factories import ExperimentFactory

pytestmark = pytest.mark.django_db


def _invite(personas: Any, **kwargs: Any) -> IssuedInvitation:
    return invitation_create(workspace=personas.workspace, by=personas.owner, **kwargs)


@pytest.mark.parametrize("persona", ["owner", "teammate"])
def test_members_of_a_workspace_see_its_members_with_roles(personas, persona):
    response = client_for(getattr(personas, persona)).get("/api/workspace/members/")
    assert response.status_code == 200
    assert [(m["username"], m["role"]) for m in response.json()] == [
        ("owner", "owner"),
        ("teammate", "member"),
    ]


def test_an_outsider_sees_only_their_own_workspaces_members(personas):
    response = client_for(personas.outsider).get("/api/workspace/members/")
    assert [m["username"] for m in response.json()] == ["outsider"]


def test_owner_creates_an_invitation_link_shown_once_and_stored_hashed(personas):
    response = client_for(personas.owner).post("/api/workspace/invitations/", {}, format="json")

    assert response.status_code == 201
    body = response.json()
    assert body["url"].endswith(f"/invite/{body['token']}")
    invitation = Invitation.objects.get()
    assert invitation.token_hash == api_token_hash(body["token"])
    assert body["token"] not in invitation.token_hash
    expected = timezone.now() + timedelta(days=7)
    assert abs(invitation.expires_at - expected) < timedelta(minutes=1)
    assert (invitation.workspace, invitation.role) == (personas.workspace, "member")
    listed = client_for(personas.owner).get("/api/workspace/invitations/").json()
    assert [i["id"] for i in listed] == [str(invitation.pk)]
    assert "token" not in listed[0]


def test_a_member_may_not_invite_or_list_invitations(personas):
    client = client_for(personas.teammate)
    created = client.post("/api/workspace/invitations/", {}, format="json")
    listed = client.get("/api/workspace/invitations/")
    assert (created.status_code, created.json()["code"]) == (403, "owner_required")
    assert created.json()["message"] == OWNER_REQUIRED_MESSAGE
    assert listed.status_code == 403
    assert Invitation.objects.count() == 0


def test_owner_revokes_an_invitation_and_its_link_stops_working(personas):
    issued = _invite(personas)
    response = client_for(personas.owner).delete(
        f"/api/workspace/invitations/{issued.invitation.pk}/"
    )
    assert response.status_code == 204
    preview = APIClient().get(f"/api/invitations/{issued.token}/")
    assert (preview.status_code, preview.json()["message"]) == (410, INVITATION_UNKNOWN_MESSAGE)


@pytest.mark.parametrize(("persona", "status"), [("teammate", 403), ("outsider", 404)])
def test_others_cannot_revoke_an_invitation(personas, persona, status):
    issued = _invite(personas)
    response = client_for(getattr(personas, persona)).delete(
        f"/api/workspace/invitations/{issued.invitation.pk}/"
    )
    assert response.status_code == status
    assert Invitation.objects.filter(pk=issued.invitation.pk).exists()


def test_a_new_user_accepts_a_link_signs_up_and_sees_the_workspaces_experiments(personas):
    experiment = ExperimentFactory.create(workspace=personas.workspace, name="Shared study")
    issued = _invite(personas)
    client = APIClient()

    preview = client.get(f"/api/invitations/{issued.token}/")
    assert preview.json() == {
        "workspace_name": "Lab",
        "invited_by": "owner",
        "role": "member",
        "expires_at": preview.json()["expires_at"],
    }
    accepted = client.post(
        f"/api/invitations/{issued.token}/accept/",
        {"username": "newcomer", "password": "a long enough passphrase"},
        format="json",
    )

    assert accepted.status_code == 201
    assert accepted.json()["id"] == str(personas.workspace.pk)
    user = get_user_model().objects.get(username="newcomer")
    assert Membership.objects.get(user=user).workspace == personas.workspace
    assert client.get("/api/auth/me/").json()["username"] == "newcomer"  # signed in
    experiments = client.get("/api/experiments/").json()
    assert [e["name"] for e in experiments] == ["Shared study"]
    assert Invitation.objects.get().accepted_by == user
    assert experiment.workspace == personas.workspace


def test_a_signed_in_outsider_accepts_and_works_in_the_new_workspace(personas):
    issued = _invite(personas)
    client = client_for(personas.outsider)

    response = client.post(f"/api/invitations/{issued.token}/accept/", {}, format="json")

    assert response.status_code == 201
    assert client.get("/api/auth/me/").json()["workspace"]["id"] == str(personas.workspace.pk)
    workspaces = client.get("/api/workspace/").json()
    assert [(w["name"], w["current"]) for w in workspaces] == [
        ("Lab", True),
        (personas.outsider_workspace.name, False),
    ]
    switched = client.post(f"/api/workspace/{personas.outsider_workspace.pk}/select/")
    assert switched.status_code == 204
    me = client.get("/api/auth/me/").json()
    assert me["workspace"]["id"] == str(personas.outsider_workspace.pk)


def test_nobody_switches_into_a_workspace_they_do_not_belong_to(personas):
    response = client_for(personas.outsider).post(f"/api/workspace/{personas.workspace.pk}/select/")
    assert response.status_code == 404


def test_a_used_link_is_refused_with_a_clear_error(personas):
    issued = _invite(personas)
    first = client_for(personas.outsider).post(f"/api/invitations/{issued.token}/accept/")
    second = APIClient().post(
        f"/api/invitations/{issued.token}/accept/",
        {"username": "late", "password": "a long enough passphrase"},
        format="json",
    )
    assert first.status_code == 201
    assert second.status_code == 410
    assert second.json() == {
        "message": INVITATION_USED_MESSAGE,
        "code": "invitation_invalid",
        "extra": {"reason": "used"},
    }
    assert not get_user_model().objects.filter(username="late").exists()


def test_an_expired_link_is_refused_with_a_clear_error(personas):
    issued = _invite(personas)
    Invitation.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    preview = APIClient().get(f"/api/invitations/{issued.token}/")
    accepted = client_for(personas.outsider).post(f"/api/invitations/{issued.token}/accept/")
    for response in (preview, accepted):
        assert response.status_code == 410
        assert response.json()["message"] == INVITATION_EXPIRED_MESSAGE
        assert response.json()["extra"] == {"reason": "expired"}
    assert not Membership.objects.filter(user=personas.outsider, workspace=personas.workspace)


def test_signing_up_through_a_link_applies_the_password_validators(personas):
    issued = _invite(personas)
    response = APIClient().post(
        f"/api/invitations/{issued.token}/accept/",
        {"username": "weak", "password": "12345678"},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["extra"]["fields"]["password"]
    assert Invitation.objects.get().accepted_at is None  # the link still works
    assert not get_user_model().objects.filter(username="weak").exists()


def test_a_member_cannot_accept_their_own_workspaces_link(personas):
    issued = _invite(personas)
    response = client_for(personas.teammate).post(f"/api/invitations/{issued.token}/accept/")
    assert (response.status_code, response.json()["code"]) == (409, "already_member")
    assert Invitation.objects.get().accepted_at is None


def test_owner_removes_a_member_who_then_loses_access(personas):
    ExperimentFactory.create(workspace=personas.workspace)
    membership = Membership.objects.get(user=personas.teammate)

    response = client_for(personas.owner).delete(f"/api/workspace/members/{membership.pk}/")

    assert response.status_code == 204
    assert not Membership.objects.filter(pk=membership.pk).exists()
    after = client_for(personas.teammate).get("/api/experiments/")
    assert after.json()["code"] == "no_workspace"


@pytest.mark.parametrize(("persona", "status"), [("teammate", 403), ("outsider", 404)])
def test_others_cannot_remove_a_member(personas, persona, status):
    owner_membership = Membership.objects.get(user=personas.owner)
    response = client_for(getattr(personas, persona)).delete(
        f"/api/workspace/members/{owner_membership.pk}/"
    )
    assert response.status_code == status
    assert Membership.objects.filter(pk=owner_membership.pk).exists()


def test_the_last_owner_cannot_be_removed(personas):
    membership = Membership.objects.get(user=personas.owner)
    response = client_for(personas.owner).delete(f"/api/workspace/members/{membership.pk}/")
    assert (response.status_code, response.json()["message"]) == (409, LAST_OWNER_MESSAGE)
    assert Membership.objects.filter(pk=membership.pk).exists()


def test_an_owner_invitation_makes_the_invitee_an_owner_who_may_invite(personas):
    issued = _invite(personas, role="owner")
    client = client_for(personas.outsider)
    client.post(f"/api/invitations/{issued.token}/accept/")
    assert Membership.objects.get(user=personas.outsider, workspace=personas.workspace).role == (
        "owner"
    )
    assert client.post("/api/workspace/invitations/", {}, format="json").status_code == 201


def test_invitation_endpoints_need_a_signed_in_user(personas):
    anonymous = APIClient()
    assert anonymous.get("/api/workspace/members/").status_code == 401
    assert anonymous.post("/api/workspace/invitations/", {}, format="json").status_code == 401
