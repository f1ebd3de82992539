"""Writes of the sharing app: create, change and revoke shares."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import datetime

from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from django.utils import timezone

from accounts.models import Workspace
from experiments.models import Experiment, Run
from sharing.models import Share, ShareKind

# 32 random bytes: 256 bits, 43 URL-safe characters. Guessing one is out of reach.
TOKEN_BYTES = 32


@transaction.atomic
def share_create(
    *,
    workspace: Workspace,
    user: User | AnonymousUser | None,
    kind: ShareKind,
    run: Run | None = None,
    experiment: Experiment | None = None,
    runs: Sequence[Run] = (),
    title: str = "",
    expires_at: datetime | None = None,
) -> Share:
    """A new active link to the run, the experiment, or the runs (a comparison). The caller
    has checked that the targets are the workspace's and fit the kind (sharing.apis)."""
    return Share.objects.create(
        workspace=workspace,
        created_by=user if isinstance(user, User) else None,
        kind=kind,
        token=secrets.token_urlsafe(TOKEN_BYTES),
        title=title,
        run=run,
        experiment=experiment,
        run_ids=[r.pk for r in runs],
        expires_at=expires_at,
    )


def share_update(
    *, share: Share, title: str | None = None, expires_at: datetime | bool | None = False
) -> Share:
    """Change the title or the expiry (None: never expires; False: leave it as it is). A
    revoked share stays revoked: revoking is final, a new link is made instead."""
    fields = []
    if title is not None:
        share.title = title
        fields.append("title")
    if expires_at is not False:
        share.expires_at = expires_at if isinstance(expires_at, datetime) else None
        fields.append("expires_at")
    if fields:
        share.save(update_fields=fields)
    return share


def share_revoke(*, share: Share) -> Share:
    """End the link now; revoking twice keeps the first time."""
    if share.revoked_at is None:
        share.revoked_at = timezone.now()
        share.save(update_fields=["revoked_at"])
    return share
