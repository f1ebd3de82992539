"""What starting a design would queue, before anything is created: its runs, their estimated
durations and the warnings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Q

from accounts.models import Workspace
from devices.models import Device
from experiments import estimate
from experiments.describe import describe
from experiments.matrix import Cell, Matrix, order_seed_draw, run_order
from experiments.matrix import label as matrix_label
from experiments.services.designs import (
    _reasons,
    _unable_to_enforce,
    workspace_devices,
    workspace_target_device,
)
from netprofiles.models import NetworkProfile

NOT_ENFORCED_WARNING = (
    "Network profiles cannot be enforced on every device of this design, so starting it "
    "would be refused: {devices}. Run those agents as root on Linux with /dev/net/tun "
    "(docs/network-emulation.md), or choose other devices or no profile."
)


@dataclass(frozen=True)
class PlannedRun:
    position: int
    repeat: int
    label: str
    cell: Cell
    estimated_seconds: float


@dataclass(frozen=True)
class DesignPlan:
    """What starting a design would queue, before anything is created."""

    runs: list[PlannedRun]
    cells: int
    excluded: int
    repeats: int
    order_seed: int
    estimated_seconds: float
    warnings: list[str]


PLAN_RUNS_LISTED = 200


def design_plan(*, workspace: Workspace, attrs: dict[str, Any], matrix: Matrix) -> DesignPlan:
    """The runs a checked design expands to (``attrs``: the API's validated design), in the
    order its order seed gives (a fresh seed, returned, when the design has none), each with
    its label and estimated duration (experiments.estimate), and the warnings."""
    profile_ids = {str(attrs["network_profile"])} if attrs.get("network_profile") else set()
    profile_ids |= {str(c["network_profile"]) for c in matrix.cells if c.get("network_profile")}
    profiles = {
        str(p.pk): p
        for p in NetworkProfile.objects.filter(pk__in=profile_ids).filter(
            Q(workspace__isnull=True) | Q(workspace=workspace)
        )
    }
    device_ids = {str(i) for c in matrix.cells for i in c.get("device_ids", ())}
    device_ids |= {str(i) for i in attrs.get("device_ids", ())}
    devices = {str(d.pk): d for d in workspace_devices(workspace=workspace, device_ids=device_ids)}
    # A target device of another workspace: the same answer as creating the design.
    workspace_target_device(workspace, attrs.get("target_device"))
    names = {
        **{k: d.name for k, d in devices.items()},
        **{k: p.name for k, p in profiles.items()},
    }
    designs: list[dict[str, Any]] = []
    runs: list[PlannedRun] = []
    total = 0.0
    seed = attrs.get("order_seed")
    if seed is None:
        seed = order_seed_draw()
    for position, (repeat, cell) in enumerate(run_order(matrix.cells, attrs["repeats"], seed)):
        design = {**attrs, **cell}
        profile = profiles.get(str(design.get("network_profile")))
        seconds = estimate.run_seconds(design, profile.spec if profile else None)
        total += seconds
        if repeat == 1:
            designs.append(design)
        if position < PLAN_RUNS_LISTED:
            label = matrix_label(cell, lambda p, v: describe(p, v, names)) if cell else ""
            runs.append(PlannedRun(position, repeat, label, cell, seconds))
    return DesignPlan(
        runs=runs,
        cells=len(matrix.cells),
        excluded=matrix.excluded,
        repeats=attrs["repeats"],
        order_seed=seed,
        estimated_seconds=total,
        warnings=estimate.warnings(designs, total) + _enforcement_warnings(designs, devices),
    )


def _enforcement_warnings(
    designs: Sequence[Mapping[str, Any]], devices: Mapping[str, Device]
) -> list[str]:
    """One line for the design's devices that cannot enforce a network profile it uses
    (their agents said so): starting it would be refused (NOT_ENFORCEABLE_MESSAGE)."""
    shaped = {str(i) for d in designs if d.get("network_profile") for i in d.get("device_ids", ())}
    unable = _unable_to_enforce(devices[i] for i in shaped if i in devices)
    if not unable:
        return []
    return [NOT_ENFORCED_WARNING.format(devices=_reasons(dict(sorted(unable.items()))))]
