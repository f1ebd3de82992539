"""Read-only public links to a run, a comparison of runs or an experiment (docs/sharing.md)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q
from django.utils import timezone

from accounts.models import Workspace
from experiments.models import Experiment, Run


class ShareKind(models.TextChoices):
    RUN = "run"
    COMPARISON = "comparison"
    EXPERIMENT = "experiment"


class ShareState(models.TextChoices):
    ACTIVE = "active"
    EXPIRED = "expired"
    REVOKED = "revoked"


class Share(models.Model):
    """A link that shows one run, a comparison of runs or one experiment to anyone who has it.

    `token` is the secret part of the link (256 random bits, URL-safe); nothing else of the
    platform is reachable through it. `alias_key` makes the ids a shared page shows: every
    run, device or experiment id in a public answer is replaced by uuid5(alias_key, id), so
    no real id leaves the platform and two shares of the same run cannot be correlated.
    A revoked or expired share answers 404 like a link that never existed.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="shares")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    kind = models.CharField(max_length=16, choices=ShareKind.choices)
    token = models.CharField(max_length=64, unique=True)
    alias_key = models.UUIDField(default=uuid.uuid4, editable=False)
    title = models.CharField(max_length=200, blank=True, default="")
    # What is shared: a run, or an experiment (with all its runs), or an ordered set of runs.
    run = models.ForeignKey(Run, on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    experiment = models.ForeignKey(
        Experiment, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    run_ids = ArrayField(models.UUIDField(), default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    views = models.PositiveIntegerField(default=0)
    last_viewed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(kind=ShareKind.RUN, run__isnull=False, experiment__isnull=True)
                    | Q(kind=ShareKind.EXPERIMENT, run__isnull=True, experiment__isnull=False)
                    | Q(kind=ShareKind.COMPARISON, run__isnull=True, experiment__isnull=True)
                ),
                name="share_target_matches_kind",
            ),
        ]

    @property
    def state(self) -> ShareState:
        if self.revoked_at is not None:
            return ShareState.REVOKED
        if self.expires_at is not None and self.expires_at <= timezone.now():
            return ShareState.EXPIRED
        return ShareState.ACTIVE
