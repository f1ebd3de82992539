"""Shared fixtures: three personas (owner, teammate, outsider), as healthchecks' BaseTestCase,
so every endpoint gets a permission test."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.contrib.auth.models import AbstractBaseUser
from rest_framework.test import APIClient

from accounts.models import Membership, Workspace
from core.testing.factories import MembershipFactory, UserFactory, WorkspaceFactory


@dataclass
class Personas:
    workspace: Workspace
    owner: AbstractBaseUser
    teammate: AbstractBaseUser
    outsider: AbstractBaseUser
    outsider_workspace: Workspace


@pytest.fixture
def personas(db: None) -> Personas:
    workspace = WorkspaceFactory.create(name="Lab")
    owner = UserFactory.create(username="owner")
    teammate = UserFactory.create(username="teammate")
    outsider = UserFactory.create(username="outsider")
    MembershipFactory.create(workspace=workspace, user=owner)
    MembershipFactory.create(workspace=workspace, user=teammate, role=Membership.Role.MEMBER)
    outsider_membership = MembershipFactory.create(user=outsider)
    return Personas(workspace, owner, teammate, outsider, outsider_membership.workspace)


def client_for(user: AbstractBaseUser | None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user=user)
    return client


@pytest.fixture
def owner_client(personas: Personas) -> APIClient:
    return client_for(personas.owner)


@pytest.fixture
def outsider_client(personas: Personas) -> APIClient:
    return client_for(personas.outsider)


@pytest.fixture
def anonymous_client() -> APIClient:
    return APIClient()


@pytest.fixture(autouse=True)
def _empty_cache() -> None:
    """Every test starts with an empty Django cache (results memoizes completed runs)."""
    from django.core.cache import cache

    cache.clear()
