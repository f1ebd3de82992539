from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from accounts.authentication import api_token_hash
from accounts.errors import (
    AlreadyMember,
    CurrentPasswordWrong,
    InvitationInvalid,
    LastOwner,
    OwnerRequired,
    UsernameTaken,
)
from accounts.models import ApiToken, Invitation, Membership, Workspace

# A link left in a mailbox should not open the workspace for ever; a week covers a holiday.
INVITATION_TTL = timedelta(days=7)
INVITATION_MAX_TTL = timedelta(days=30)
API_TOKEN_PREFIX = "isb_"  # noqa: S105  # a visible marker, not a secret

OWNER_REQUIRED_MESSAGE = "Only an owner of this workspace can do this."
INVITATION_UNKNOWN_MESSAGE = (
    "This invitation link is not valid; ask the workspace owner for a new one."
)
INVITATION_USED_MESSAGE = (
    "This invitation link has already been used; ask the workspace owner for a new one."
)
INVITATION_EXPIRED_MESSAGE = (
    "This invitation link has expired; ask the workspace owner for a new one."
)
ALREADY_MEMBER_MESSAGE = "You already belong to this workspace."
LAST_OWNER_MESSAGE = "The workspace would have no owner left; it keeps at least one."
USERNAME_TAKEN_MESSAGE = "This username is taken; choose another, or sign in first."
CURRENT_PASSWORD_WRONG_MESSAGE = "The current password is wrong."  # noqa: S105  # a message


@transaction.atomic
def user_create_with_workspace(*, username: str, password: str, email: str = "") -> User:
    """Create a user and their personal workspace, of which they are the owner."""
    user: User = get_user_model().objects.create_user(
        username=username, email=email, password=password
    )
    workspace = Workspace(name=f"{username}'s workspace")
    workspace.full_clean()
    workspace.save()
    membership = Membership(workspace=workspace, user=user, role=Membership.Role.OWNER)
    membership.full_clean(validate_constraints=False)
    membership.save()
    return user


@transaction.atomic
def membership_add(
    *,
    workspace: Workspace,
    user: User,
    role: str = Membership.Role.MEMBER,
) -> Membership:
    """Add `user` to `workspace` and make it the one they work in (selected now)."""
    if Membership.objects.filter(workspace=workspace, user_id=user.pk).exists():
        raise AlreadyMember(ALREADY_MEMBER_MESSAGE)
    membership = Membership(
        workspace=workspace, user_id=user.pk, role=role, selected_at=timezone.now()
    )
    membership.full_clean()
    membership.save()
    return membership


def _owner_check(*, workspace: Workspace, user: User) -> None:
    if not Membership.objects.filter(
        workspace=workspace, user_id=user.pk, role=Membership.Role.OWNER
    ).exists():
        raise OwnerRequired(OWNER_REQUIRED_MESSAGE)


@transaction.atomic
def membership_remove(*, membership: Membership, by: User) -> None:
    """An owner removes a member (or another owner, or themselves while another owner stays).
    The workspace row is locked so two owners removing each other cannot both succeed."""
    workspace = Workspace.objects.select_for_update().get(pk=membership.workspace_id)
    _owner_check(workspace=workspace, user=by)
    if membership.role == Membership.Role.OWNER:
        owners = Membership.objects.filter(workspace=workspace, role=Membership.Role.OWNER)
        if owners.count() <= 1:
            raise LastOwner(LAST_OWNER_MESSAGE)
    membership.delete()


@dataclass(frozen=True)
class IssuedInvitation:
    invitation: Invitation
    token: str  # shown once; only its hash is stored


@transaction.atomic
def invitation_create(
    *,
    workspace: Workspace,
    by: User,
    role: str = Membership.Role.MEMBER,
    ttl: timedelta = INVITATION_TTL,
) -> IssuedInvitation:
    _owner_check(workspace=workspace, user=by)
    token = secrets.token_urlsafe(32)
    invitation = Invitation(
        workspace=workspace,
        created_by_id=by.pk,
        role=role,
        token_hash=api_token_hash(token),
        expires_at=timezone.now() + min(ttl, INVITATION_MAX_TTL),
    )
    invitation.full_clean()
    invitation.save()
    return IssuedInvitation(invitation=invitation, token=token)


@transaction.atomic
def invitation_revoke(*, invitation: Invitation, by: User) -> None:
    _owner_check(workspace=invitation.workspace, user=by)
    invitation.delete()


def invitation_check(*, token: str) -> Invitation:
    """The invitation this token opens, or InvitationInvalid saying why not."""
    invitation = (
        Invitation.objects.select_related("workspace", "created_by")
        .filter(token_hash=api_token_hash(token))
        .first()
    )
    if invitation is None:
        raise InvitationInvalid(INVITATION_UNKNOWN_MESSAGE, extra={"reason": "unknown"})
    if invitation.accepted_at is not None:
        raise InvitationInvalid(INVITATION_USED_MESSAGE, extra={"reason": "used"})
    if invitation.expires_at <= timezone.now():
        raise InvitationInvalid(INVITATION_EXPIRED_MESSAGE, extra={"reason": "expired"})
    return invitation


@transaction.atomic
def invitation_accept(
    *,
    token: str,
    user: User | None = None,
    username: str = "",
    password: str = "",
) -> Membership:
    """Join the invitation's workspace: `user` when signed in, else a new account made from
    `username` and `password` (Django's password validators apply).

    The invitation is claimed with a conditional UPDATE, so two people racing with the same
    link cannot both join: the loser gets InvitationInvalid (used)."""
    invitation = invitation_check(token=token)
    if (
        user is not None
        and Membership.objects.filter(
            workspace_id=invitation.workspace_id, user_id=user.pk
        ).exists()
    ):
        raise AlreadyMember(ALREADY_MEMBER_MESSAGE)
    now = timezone.now()
    claimed = Invitation.objects.filter(
        pk=invitation.pk, accepted_at__isnull=True, expires_at__gt=now
    ).update(accepted_at=now)
    if claimed != 1:
        raise InvitationInvalid(INVITATION_USED_MESSAGE, extra={"reason": "used"})
    if user is None:
        user_model = get_user_model()
        if user_model.objects.filter(username__iexact=username).exists():
            raise UsernameTaken(USERNAME_TAKEN_MESSAGE)
        _password_validate(password, user=user_model(username=username), field="password")
        user = user_model.objects.create_user(username=username, password=password)
    Invitation.objects.filter(pk=invitation.pk).update(accepted_by=user)
    return membership_add(workspace=invitation.workspace, user=user, role=invitation.role)


@transaction.atomic
def workspace_select(*, membership: Membership) -> Membership:
    """Make this membership's workspace the one its user works in."""
    membership.selected_at = timezone.now()
    membership.save(update_fields=["selected_at"])
    return membership


def _password_validate(password: str, *, user: User, field: str) -> None:
    """Django's validators; their messages reported under `field` (not as non-field)."""
    try:
        validate_password(password, user)
    except ValidationError as exc:
        raise ValidationError({field: exc.messages}) from exc


@transaction.atomic
def password_change(*, user: User, current: str, new: str) -> None:
    """Check the current password, validate the new one with Django's validators, save."""
    if not user.check_password(current):
        raise CurrentPasswordWrong(CURRENT_PASSWORD_WRONG_MESSAGE)
    _password_validate(new, user=user, field="new_password")
    user.set_password(new)
    user.save(update_fields=["password"])


@dataclass(frozen=True)
class IssuedApiToken:
    token: ApiToken
    key: str  # shown once; only its hash is stored


@transaction.atomic
def api_token_create(*, user: User, name: str) -> IssuedApiToken:
    key = API_TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken(user_id=user.pk, name=name, prefix=key[:10], token_hash=api_token_hash(key))
    token.full_clean()
    token.save()
    return IssuedApiToken(token=token, key=key)


@transaction.atomic
def api_token_revoke(*, token: ApiToken) -> None:
    """Deleted, so the next request with the key is refused (nothing caches tokens)."""
    token.delete()
