from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction

from accounts.models import Membership, Workspace


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
def membership_add(*, workspace: Workspace, user: User) -> Membership:
    membership = Membership(workspace=workspace, user=user, role=Membership.Role.MEMBER)
    membership.full_clean()
    membership.save()
    return membership
