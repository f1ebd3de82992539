"""Writes of the netprofiles app: a workspace's own profiles (create, change, delete, copy)
and the built-in catalogue loaded from the contract's package data
(``iotsecbench_contract.delaytables.catalogue_dir``)."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import ProtectedError
from django.utils.text import slugify
from iotsecbench_contract.delaytables import (
    PROFILE_INFO,
    catalogue_dir,
    load_table,
    read_profile_info,
)
from iotsecbench_contract.errors import ProfileError
from iotsecbench_contract.netprofile import LinkProfile

from accounts.models import Workspace
from netprofiles.errors import NetworkProfileInUse, NetworkProfileReadOnly
from netprofiles.models import DelayTable, NetworkProfile, ProfileKind

# The catalogue's data: package data of the contract, so the backend image has it without
# the repository's fixtures.
CATALOGUE_DIR = catalogue_dir()
SRUP_CONDITIONS = "srup-conditions.json"
# Built-in ids are uuid5(this, slug): the same on every installation, so presets, exports
# and other machines can name a catalogue entry by id. Never change it.
BUILTIN_ID_NAMESPACE = uuid.UUID("5b0c2e8e-3d4f-4a51-9a39-6f1d0c8e2b71")
# Catalogue order: the SRUP paper's experiments 1-10 first, then the tables by name.
TABLE_POSITION_BASE = 1000

READ_ONLY_MESSAGE = (
    "“{name}” is a built-in profile and cannot be changed or deleted. Copy it into your "
    "workspace (POST /api/network-profiles/{id}/copy/) and change the copy."
)
NAME_TAKEN_MESSAGE = "Your workspace already has a profile named “{name}”: choose another name."
UNKNOWN_TABLE_MESSAGE = (
    "{field}: {table!r} is not a measured table of the catalogue; allowed: the name of one "
    "(the profiles of kind measured_table)"
)
COPY_SUFFIX = " (copy)"

TABLES_SOURCE = (
    "mobile-latency-emulator by Martino Trevisan, "
    "https://github.com/marty90/mobile-latency-emulator (commit 328ac79f, 2019-08-01), from "
    "the measurements of A. S. Khatouni, M. Trevisan, D. Giordano et al., “Data-Driven "
    "Emulation of Mobile Access Networks”, CNSM 2019. GPL-3.0: see "
    "the contract's network-profiles/LICENSE. µ and sigma from its profile_info.txt."
)
_SIGNAL = {"good": "good", "medium": "medium", "bad": "poor"}


# --- a workspace's profiles ------------------------------------------------------------------


def spec_clean(*, spec: object) -> dict[str, Any]:
    """The spec if an agent can enforce it, unchanged; else a ValidationError on ``spec``
    whose message names the offending field (``egress.loss_pct: 120 is above 100; allowed:
    …``), as the agent's own parser (iotsecbench_contract.netprofile) words it. A measured
    table must be one of the catalogue's, so the platform can hand it to the agent."""
    try:
        LinkProfile.parse(spec)
    except ProfileError as exc:
        raise ValidationError({"spec": [str(exc)]}) from exc
    assert isinstance(spec, Mapping)  # parse accepted it
    for direction, fields in spec.items():
        table = fields.get("table")
        if table is not None and not DelayTable.objects.filter(name=table).exists():
            raise ValidationError(
                {"spec": [UNKNOWN_TABLE_MESSAGE.format(field=f"{direction}.table", table=table)]}
            )
    return dict(spec)


PROFILE_IN_USE_MESSAGE = (
    "The profile “{name}” is used by the experiment(s) {experiments}: their runs were "
    "measured under it. Delete those experiments first, or keep the profile."
)


def _require_writable(profile: NetworkProfile) -> None:
    if profile.builtin:
        raise NetworkProfileReadOnly(READ_ONLY_MESSAGE.format(name=profile.name, id=profile.pk))


def _check_name(*, workspace: Workspace, name: str, exclude: uuid.UUID | None = None) -> None:
    taken = NetworkProfile.objects.filter(workspace=workspace, name=name)
    if exclude is not None:
        taken = taken.exclude(pk=exclude)
    if taken.exists():
        raise ValidationError({"name": [NAME_TAKEN_MESSAGE.format(name=name)]})


def _free_slug(*, workspace: Workspace, name: str, exclude: uuid.UUID | None = None) -> str:
    """slugify(name), numbered (-2, -3, …) when another profile of the workspace has it."""
    base = slugify(name)[:190] or "profile"
    others = NetworkProfile.objects.filter(workspace=workspace, slug__startswith=base)
    if exclude is not None:
        others = others.exclude(pk=exclude)
    taken = set(others.values_list("slug", flat=True))
    slug, number = base, 1
    while slug in taken:
        number += 1
        slug = f"{base}-{number}"
    return slug


def _free_copy_name(*, workspace: Workspace, name: str) -> str:
    """“X (copy)”, then “X (copy 2)”, … : the first one the workspace does not use yet."""
    taken = set(
        NetworkProfile.objects.filter(workspace=workspace, name__startswith=name).values_list(
            "name", flat=True
        )
    )
    candidate, number = f"{name}{COPY_SUFFIX}", 1
    while candidate in taken:
        number += 1
        candidate = f"{name} (copy {number})"
    return candidate


@transaction.atomic
def profile_create(
    *,
    workspace: Workspace,
    user: User | AnonymousUser | None,
    name: str,
    spec: object,
    description: str = "",
    citation: str = "",
) -> NetworkProfile:
    """A new user profile in the workspace; the spec is checked as the agent will read it."""
    _check_name(workspace=workspace, name=name)
    profile = NetworkProfile(
        workspace=workspace,
        created_by=user if isinstance(user, User) else None,
        name=name,
        slug=_free_slug(workspace=workspace, name=name),
        description=description,
        citation=citation,
        kind=ProfileKind.USER,
        spec=spec_clean(spec=spec),
    )
    profile.full_clean()
    profile.save()
    return profile


@transaction.atomic
def profile_update(
    *,
    profile: NetworkProfile,
    name: str | None = None,
    description: str | None = None,
    citation: str | None = None,
    spec: object = None,
) -> NetworkProfile:
    """Change a user profile (the arguments given, None = unchanged); built-ins refuse
    (NetworkProfileReadOnly)."""
    _require_writable(profile)
    assert profile.workspace is not None
    if name is not None and name != profile.name:
        _check_name(workspace=profile.workspace, name=name, exclude=profile.pk)
        profile.name = name
        profile.slug = _free_slug(workspace=profile.workspace, name=name, exclude=profile.pk)
    if description is not None:
        profile.description = description
    if citation is not None:
        profile.citation = citation
    if spec is not None:
        profile.spec = spec_clean(spec=spec)
    profile.full_clean()
    profile.save()
    return profile


@transaction.atomic
def profile_delete(*, profile: NetworkProfile) -> None:
    """Delete a user profile; built-ins refuse (NetworkProfileReadOnly), and so does a
    profile experiments use (NetworkProfileInUse, naming them)."""
    _require_writable(profile)
    try:
        profile.delete()
    except ProtectedError as exc:
        names = sorted({str(getattr(o, "name", o)) for o in exc.protected_objects})
        raise NetworkProfileInUse(
            PROFILE_IN_USE_MESSAGE.format(name=profile.name, experiments=", ".join(names))
        ) from exc


@transaction.atomic
def profile_copy(
    *,
    profile: NetworkProfile,
    workspace: Workspace,
    user: User | AnonymousUser | None,
    name: str | None = None,
) -> NetworkProfile:
    """A user profile in the workspace with the profile's spec, description and citation
    (which stays true of a copy until its spec is changed). Default name: “X (copy)”."""
    if name is None:
        name = _free_copy_name(workspace=workspace, name=profile.name)
    return profile_create(
        workspace=workspace,
        user=user,
        name=name,
        spec=profile.spec,
        description=profile.description,
        citation=profile.citation,
    )


# --- the built-in catalogue ------------------------------------------------------------------


@dataclass(frozen=True)
class CatalogueLoad:
    """What a load changed: rows created, updated, removed (stale), per model."""

    tables_created: int = 0
    tables_updated: int = 0
    profiles_created: int = 0
    profiles_updated: int = 0
    profiles_removed: int = 0

    @property
    def changed(self) -> bool:
        return any(
            (
                self.tables_created,
                self.tables_updated,
                self.profiles_created,
                self.profiles_updated,
                self.profiles_removed,
            )
        )


def builtin_id(slug: str) -> uuid.UUID:
    return uuid.uuid5(BUILTIN_ID_NAMESPACE, slug)


def table_slug(name: str) -> str:
    """``TIM.bad.3G.no_roaming`` → ``table-tim-bad-3g-no-roaming``."""
    return "table-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def table_description(name: str, mu_ms: float, sigma_ms: float) -> str:
    """A sentence for the UI from the table's name (``<operator>.<signal>.<tech>.<roaming>``)."""
    parts = name.split(".")
    if len(parts) == 4:
        operator, signal, tech, roaming = parts
        what = (
            f"{operator.replace('_', ' ').strip()}, {_SIGNAL.get(signal, signal)} signal, "
            f"{tech}, {roaming.replace('_', ' ')}"
        )
    else:
        what = name
    return (
        f"Measured round-trip latency ({what}), applied on the device's egress with "
        f"µ {mu_ms:.2f} ms and sigma {sigma_ms:.2f} ms (profile_info.txt): a round trip crosses "
        "it once."
    )


def _upsert(model: Any, *, lookup: dict[str, Any], values: dict[str, Any]) -> str:
    """Create the row or bring it in line with ``values``; 'created', 'updated' or ''."""
    row = model.objects.filter(**lookup).first()
    if row is None:
        row = model(**lookup, **values)
        row.full_clean()
        row.save()
        return "created"
    changed = [key for key, value in values.items() if getattr(row, key) != value]
    if not changed:
        return ""
    for key in changed:
        setattr(row, key, values[key])
    row.full_clean()
    row.save()
    return "updated"


@transaction.atomic
def catalogue_load(
    *,
    directory: Path = CATALOGUE_DIR,
    table_model: Any = DelayTable,
    profile_model: Any = NetworkProfile,
) -> CatalogueLoad:
    """Make the built-in catalogue exactly what ``directory`` holds: every measured table
    (values, µ/sigma) as a DelayTable and a measured_table profile, and the SRUP paper's
    conditions as builtin_condition profiles. Idempotent: a second load changes nothing.
    Built-ins no longer in the catalogue are removed.

    The models are parameters because the data migration passes its historical models
    (a migration must not use today's model classes against yesterday's schema).
    """
    info = read_profile_info(directory / PROFILE_INFO)
    counts = {"table": {"created": 0, "updated": 0}, "profile": {"created": 0, "updated": 0}}
    keep: list[uuid.UUID] = []

    def profile(slug: str, position: int, **values: Any) -> None:
        LinkProfile.parse(values["spec"])  # a fixture the agent cannot read is a bug here
        pk = builtin_id(slug)
        keep.append(pk)
        result = _upsert(
            profile_model,
            lookup={"id": pk},
            values={"workspace": None, "slug": slug, "position": position, **values},
        )
        if result:
            counts["profile"][result] += 1

    srup = json.loads((directory / SRUP_CONDITIONS).read_text(encoding="utf-8"))
    for condition in srup["conditions"]:
        for fields in condition["spec"].values():
            if fields.get("table") is not None and fields["table"] not in info:
                raise ValueError(f"{condition['slug']}: table {fields['table']!r} not in {info}")
        profile(
            condition["slug"],
            condition["experiment"],
            name=condition["name"],
            description=condition["description"],
            citation=f"{condition['citation']}. {srup['source']}",
            kind=ProfileKind.BUILTIN_CONDITION,
            spec=condition["spec"],
        )

    for position, (name, (mu, sigma)) in enumerate(sorted(info.items()), TABLE_POSITION_BASE):
        table = load_table(directory / name)
        result = _upsert(
            table_model,
            lookup={"name": name},
            values={
                "mu_ms": mu,
                "sigma_ms": sigma,
                "values": list(table.values),
                "source": TABLES_SOURCE,
            },
        )
        if result:
            counts["table"][result] += 1
        profile(
            table_slug(name),
            position,
            name=name,
            description=table_description(name, mu, sigma),
            citation=TABLES_SOURCE,
            kind=ProfileKind.MEASURED_TABLE,
            spec={
                "egress": {
                    "delay_ms": mu,
                    "jitter_ms": sigma,
                    "distribution": "table",
                    "table": name,
                }
            },
        )

    removed, _ = profile_model.objects.filter(workspace__isnull=True).exclude(pk__in=keep).delete()
    return CatalogueLoad(
        tables_created=counts["table"]["created"],
        tables_updated=counts["table"]["updated"],
        profiles_created=counts["profile"]["created"],
        profiles_updated=counts["profile"]["updated"],
        profiles_removed=removed,
    )
