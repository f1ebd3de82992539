from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from accounts.errors import NoWorkspace
from accounts.models import Workspace

NO_WORKSPACE_MESSAGE = "Your account belongs to no workspace; ask an administrator to add you."


def workspace_for_user(*, user: AbstractBaseUser | AnonymousUser) -> Workspace:
    """The workspace a user works in (their first membership)."""
    workspace = (
        Workspace.objects.filter(memberships__user_id=user.pk or 0).order_by("created_at").first()
    )
    if workspace is None:
        raise NoWorkspace(NO_WORKSPACE_MESSAGE)
    return workspace
