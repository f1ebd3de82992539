"""Reads of the netprofiles app: the profiles a workspace sees, and the delay a profile's
distribution delivers (figures and a histogram for a chart, never the raw table)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from uuid import UUID

import numpy as np
from django.db.models import Q, QuerySet
from django.shortcuts import get_object_or_404
from iotsecbench_contract.delaytables import NETEM_DIST_SCALE, DistTable, builtin_table
from iotsecbench_contract.netprofile import DirectionProfile, LinkProfile

from accounts.models import Workspace
from netprofiles.models import DelayTable, NetworkProfile, ProfileKind

# A chart of a delay distribution needs its shape, not 4096 values: 40 bins show the
# tables' long tails and keep the answer a few hundred bytes.
HISTOGRAM_BINS = 40


def _visible(workspace: Workspace) -> QuerySet[NetworkProfile]:
    return NetworkProfile.objects.filter(Q(workspace__isnull=True) | Q(workspace=workspace))


def profile_list(
    *, workspace: Workspace, kind: ProfileKind | None = None, search: str | None = None
) -> QuerySet[NetworkProfile]:
    """The built-in catalogue and the workspace's own profiles: the workspace's first (by
    name), then the catalogue in its order. ``search`` matches a part of the name."""
    profiles = _visible(workspace)
    if kind is not None:
        profiles = profiles.filter(kind=kind)
    if search:
        profiles = profiles.filter(name__icontains=search)
    return profiles.order_by("position", "name")


def profile_get(*, workspace: Workspace, profile_id: UUID) -> NetworkProfile:
    """A built-in or one of the workspace's profiles; 404 otherwise (no existence leak)."""
    return get_object_or_404(_visible(workspace), pk=profile_id)


def profile_visible(*, workspace: Workspace, profile_id: UUID) -> NetworkProfile | None:
    """The profile if the workspace may use it (a built-in or its own), else None."""
    return _visible(workspace).filter(pk=profile_id).first()


@dataclass(frozen=True)
class DelayFigures:
    """The delay one direction draws per packet, as the agent draws it.

    ``mu_ms``/``sigma_ms`` are the profile's; ``delivered_*`` what the draws really have
    (a measured table's tail is clipped at ± 4 sigma by maketable, so its sigma is smaller than
    profile_info's; a draw below 0 leaves at once, as in netem). ``edges_ms`` has one
    more entry than ``counts`` (draws per bin, out of ``entries``)."""

    direction: str  # "both", "egress" or "ingress"
    distribution: str
    table: str | None
    mu_ms: float
    sigma_ms: float
    delivered_mean_ms: float
    delivered_std_ms: float
    entries: int
    edges_ms: list[float]
    counts: list[int]


def _table_of(direction: DirectionProfile, tables: dict[str, DelayTable]) -> DistTable | None:
    if direction.jitter_ms == 0 or direction.distribution == "uniform":
        return None  # no draw from a table: a fixed delay, or netem's uniform µ ± sigma
    if direction.distribution == "table":
        assert direction.table is not None  # the profile checked it
        stored = tables.get(direction.table)
        if stored is None:
            return None  # a table removed from the catalogue since: nothing to show
        return DistTable(stored.name, tuple(stored.values))
    return builtin_table(direction.distribution)


def _figures(name: str, direction: DirectionProfile, table: DistTable) -> DelayFigures:
    mu, sigma = direction.delay_ms, direction.jitter_ms
    # Draws below 0 ms are sent at once: clip the standardised values where µ + sigma·v/8192
    # would be negative, then let the agent's DistTable compute mean and sigma.
    floor = math.ceil(-mu / sigma * NETEM_DIST_SCALE)
    delivered = DistTable(table.name, tuple(max(v, floor) for v in table.values))
    delays = mu + sigma * np.asarray(delivered.values, dtype=np.float64) / NETEM_DIST_SCALE
    counts, edges = np.histogram(delays, bins=HISTOGRAM_BINS)
    return DelayFigures(
        direction=name,
        distribution=direction.distribution,
        table=direction.table,
        mu_ms=mu,
        sigma_ms=sigma,
        delivered_mean_ms=mu + sigma * delivered.mean,
        delivered_std_ms=sigma * delivered.stdev,
        entries=len(delivered.values),
        edges_ms=[float(e) for e in edges],
        counts=[int(c) for c in counts],
    )


def profile_delays(*, profile: NetworkProfile) -> list[DelayFigures]:
    """Per shaped direction that draws its delay from a table (measured or netem's
    normal/pareto/paretonormal): what it delivers. Empty for a fixed or uniform delay."""
    link = LinkProfile.parse(profile.spec)
    if link.egress == link.ingress:
        directions = [("both", link.egress)]
    else:
        directions = [("egress", link.egress), ("ingress", link.ingress)]
    stored = {t.name: t for t in DelayTable.objects.filter(name__in=link.tables())}
    figures = []
    for name, direction in directions:
        table = _table_of(direction, stored)
        if table is not None:
            figures.append(_figures(name, direction, table))
    return figures
