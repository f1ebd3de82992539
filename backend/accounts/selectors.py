from __future__ import annotations

from uuid import UUID

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import F, QuerySet
from django.http import Http404
from django.utils import timezone

from accounts.errors import NoWorkspace
from accounts.models import ApiToken, Invitation, Membership, Workspace

NO_WORKSPACE_MESSAGE = "Your account belongs to no workspace; ask an administrator to add you."


def _memberships_in_order(user_id: int) -> QuerySet[Membership]:
    # The latest chosen first (accepting an invitation chooses), then the oldest workspace.
    return Membership.objects.filter(user_id=user_id).order_by(
        F("selected_at").desc(nulls_last=True), "workspace__created_at"
    )


def workspace_for_user(*, user: AbstractBaseUser | AnonymousUser) -> Workspace:
    """The workspace a user works in: the one chosen last, else their oldest."""
    membership = _memberships_in_order(user.pk or 0).select_related("workspace").first()
    if membership is None:
        raise NoWorkspace(NO_WORKSPACE_MESSAGE)
    return membership.workspace


def membership_list_for_user(*, user: AbstractBaseUser) -> QuerySet[Membership]:
    """Every workspace the user belongs to (for switching)."""
    return _memberships_in_order(user.pk).select_related("workspace")


def membership_get_for_user(*, user: AbstractBaseUser, workspace_id: UUID) -> Membership:
    membership = Membership.objects.filter(user_id=user.pk, workspace_id=workspace_id).first()
    if membership is None:
        raise Http404
    return membership


def member_list(*, workspace: Workspace) -> QuerySet[Membership]:
    return (
        Membership.objects.filter(workspace=workspace)
        .select_related("user")
        .order_by("joined_at", "user__username")
    )


def member_get(*, workspace: Workspace, membership_id: int) -> Membership:
    """A membership of this workspace; another workspace's is a 404, as if it did not exist."""
    membership = Membership.objects.filter(workspace=workspace, pk=membership_id).first()
    if membership is None:
        raise Http404
    return membership


def invitation_list(*, workspace: Workspace) -> QuerySet[Invitation]:
    """Invitations still open: neither used nor expired."""
    return Invitation.objects.filter(
        workspace=workspace, accepted_at__isnull=True, expires_at__gt=timezone.now()
    ).order_by("-created_at")


def invitation_get(*, workspace: Workspace, invitation_id: UUID) -> Invitation:
    invitation = (
        Invitation.objects.filter(workspace=workspace, pk=invitation_id)
        .select_related("workspace")
        .first()
    )
    if invitation is None:
        raise Http404
    return invitation


def api_token_list(*, user: AbstractBaseUser) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user_id=user.pk).order_by("-created_at")


def api_token_get(*, user: AbstractBaseUser, token_id: UUID) -> ApiToken:
    token = ApiToken.objects.filter(user_id=user.pk, pk=token_id).first()
    if token is None:
        raise Http404
    return token
