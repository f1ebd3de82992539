"""Network profiles: the built-in catalogue (the SRUP paper's conditions and the measured
cellular delay tables) and each workspace's own profiles (docs/network-profiles.md)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q

from accounts.models import Workspace


class ProfileKind(models.TextChoices):
    BUILTIN_CONDITION = "builtin_condition"  # a condition of a paper, e.g. SRUP Table A1
    MEASURED_TABLE = "measured_table"  # one measured delay table, applied as measured
    USER = "user"  # made (or copied) by a workspace; the only kind that can change


class DelayTable(models.Model):
    """A measured delay distribution in netem's ``maketable`` format, as the agent needs it.

    ``values`` are the table's signed 16-bit integers, (x - µ)/sigma · 8192, in file order; a
    draw is µ + sigma · value / 8192 (``iotsecbench_contract.delaytables``). ``mu_ms`` and
    ``sigma_ms`` are the ones the table is applied with (``profile_info.txt``). The values
    are stored, not only named, so the platform can hand a table to an agent that lacks it.
    """

    name = models.CharField(max_length=128, unique=True)
    mu_ms = models.FloatField()
    sigma_ms = models.FloatField()
    values = ArrayField(models.SmallIntegerField())
    source = models.TextField()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class NetworkProfile(models.Model):
    """What a link does to packets, per direction: ``spec`` is a link profile exactly as
    ``iotsecbench_contract.netprofile.LinkProfile.parse`` reads it, so an agent enforces
    it unchanged.

    ``workspace`` NULL: a built-in catalogue entry, visible to every workspace and
    read-only (copy it to change it). Built-in ids are uuid5 of their slug, the same on
    every installation. A spec that draws from a measured table names it (``"table"``);
    the name is a DelayTable's, checked when the profile is saved (services.spec_clean).
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=200)
    description = models.TextField(blank=True, default="")
    citation = models.TextField(blank=True, default="")  # where the figures come from
    kind = models.CharField(max_length=24, choices=ProfileKind.choices)
    spec = models.JSONField(default=dict, blank=True)
    # The catalogue's order (the paper's experiment number, then the tables); 0 for a
    # workspace's profiles, which list first, by name.
    position = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["position", "name"]
        # NULL workspaces are distinct in a plain unique constraint: the built-ins get their
        # own conditional ones.
        constraints = [
            models.UniqueConstraint(
                fields=["workspace", "name"],
                condition=Q(workspace__isnull=False),
                name="netprofile_name_unique_in_workspace",
            ),
            models.UniqueConstraint(
                fields=["name"],
                condition=Q(workspace__isnull=True),
                name="netprofile_name_unique_builtin",
            ),
            models.UniqueConstraint(
                fields=["workspace", "slug"],
                condition=Q(workspace__isnull=False),
                name="netprofile_slug_unique_in_workspace",
            ),
            models.UniqueConstraint(
                fields=["slug"],
                condition=Q(workspace__isnull=True),
                name="netprofile_slug_unique_builtin",
            ),
            # Built-ins are catalogue kinds, a workspace's profiles are user profiles.
            models.CheckConstraint(
                condition=(Q(workspace__isnull=True) & ~Q(kind=ProfileKind.USER))
                | (Q(workspace__isnull=False) & Q(kind=ProfileKind.USER)),
                name="netprofile_kind_matches_owner",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def builtin(self) -> bool:
        return self.workspace_id is None
