from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from uuid import UUID

from django.db.models import OuterRef, Prefetch, Q, QuerySet, Subquery
from django.shortcuts import get_object_or_404

from accounts.models import Workspace
from devices.models import Device
from experiments.models import (
    ACTIVE_STATUSES,
    FINISHED_STATUSES,
    Experiment,
    Run,
    RunDevice,
    RunStatus,
)
from experiments.queue import dispatch_blockers, target_device


def experiment_list(*, workspace: Workspace) -> QuerySet[Experiment]:
    return (
        Experiment.objects.filter(workspace=workspace)
        .prefetch_related("devices", "runs")
        .order_by("-created_at")
    )


@dataclass(frozen=True)
class ExperimentFilters:
    """The experiments list's search and filters (GET /api/experiments/?...)."""

    q: str = ""
    protocol: str = ""
    mechanism: str = ""
    device: UUID | None = None
    status: str = ""  # the latest run's status, or "never" (no run yet)
    created_after: date | None = None
    created_before: date | None = None


NEVER_RUN = "never"


def _varies(field: str, value: object) -> Q:
    """Experiments whose axes give ``field`` the value (jsonb containment)."""
    return Q(axes__contains=[{"values": [{field: value}]}])


def experiment_search(*, workspace: Workspace, filters: ExperimentFilters) -> QuerySet[Experiment]:
    """experiment_list narrowed by the filters; a parameter matches its fixed value or any
    value of an axis (a QoS axis [0, 1, 2] matches protocol filters of each)."""
    experiments = experiment_list(workspace=workspace)
    if filters.q:
        experiments = experiments.filter(
            Q(name__icontains=filters.q) | Q(description__icontains=filters.q)
        )
    if filters.protocol:
        experiments = experiments.filter(
            Q(protocol=filters.protocol) | _varies("protocol", filters.protocol)
        )
    if filters.mechanism:
        m = filters.mechanism
        experiments = experiments.filter(
            Q(security=m) | Q(mechanisms__contains=[m]) | _varies("security", m)
        )
    if filters.device is not None:
        device = str(filters.device)
        experiments = experiments.filter(
            Q(devices__pk=filters.device)
            | Q(axes__contains=[{"values": [{"device_ids": [device]}]}])
        ).distinct()
    if filters.created_after is not None:
        experiments = experiments.filter(created_at__date__gte=filters.created_after)
    if filters.created_before is not None:
        experiments = experiments.filter(created_at__date__lte=filters.created_before)
    if filters.status:
        latest = Run.objects.filter(experiment=OuterRef("pk")).order_by("-queued_at", "-position")
        experiments = experiments.annotate(latest_status=Subquery(latest.values("status")[:1]))
        if filters.status == NEVER_RUN:
            experiments = experiments.filter(latest_status__isnull=True)
        else:
            experiments = experiments.filter(latest_status=filters.status)
    return experiments


def experiment_get(*, workspace: Workspace, experiment_id: UUID) -> Experiment:
    """The experiment if it is in the workspace; 404 otherwise (no existence leak)."""
    return get_object_or_404(experiment_list(workspace=workspace), pk=experiment_id)


def run_get(*, workspace: Workspace, run_id: UUID) -> Run:
    runs = Run.objects.filter(experiment__workspace=workspace).select_related("experiment")
    runs = runs.prefetch_related(
        Prefetch("run_devices", queryset=RunDevice.objects.select_related("device")),
        "transitions",
    )
    return get_object_or_404(runs, pk=run_id)


def device_unfinished_run_ids(*, device: Device, limit: int = 3) -> list[UUID]:
    """Up to `limit` of the device's queued or active runs (they refuse its revocation)."""
    return list(
        Run.objects.filter(run_devices__device=device)
        .exclude(status__in=FINISHED_STATUSES)
        .values_list("pk", flat=True)[:limit]
    )


@dataclass(frozen=True)
class RunPage:
    """What a run's page shows (experiments.apis.runs.RunOutputSerializer): the run, as
    run_get reads it, and its summary rows in the page's units. measurements.selectors.run_page
    fills the rows; a run not summarized yet (just started) has none."""

    run: Run
    summary: Sequence[Mapping[str, object]] = ()
    bench_summary: Sequence[Mapping[str, object]] = ()
    # Why a queued run has not started (run_waiting_for); None otherwise, and on shared pages
    # (it names the workspace's other runs).
    waiting_for: Mapping[str, object] | None = None


def run_kind(*, run_id: UUID | str) -> str:
    """The kind of the run's experiment."""
    return str(Run.objects.values_list("experiment__kind", flat=True).get(pk=run_id))


NO_WORKER_MESSAGE = (
    "Nothing holds it back: it starts when a worker picks it up (the scheduler runs every few "
    "seconds). If it stays queued, no worker is free or running: check `make worker`."
)
EXPERIMENT_BUSY_MESSAGE = "Waits for run {position} of this experiment to finish."
DEVICES_BUSY_MESSAGE = "Waits for {devices}."
DEVICE_BUSY_PART = "{device} (busy with run {position} of “{experiment}”)"


def run_waiting_for(*, run: Run) -> dict[str, object] | None:
    """What a queued run waits for, by the scheduler's own rule (experiments.queue):
    `reason` is `experiment` (an earlier run of its experiment is active), `devices` (some
    of its devices are busy in other runs; `blockers` names each device and run) or
    `worker` (nothing blocks it: no worker has started it yet). None unless queued."""
    if run.status != RunStatus.QUEUED:
        return None
    active = {
        r.pk: r for r in Run.objects.filter(status__in=ACTIVE_STATUSES).select_related("experiment")
    }
    by_experiment = {r.experiment_id: r for r in active.values()}
    by_device = {
        device_id: active[run_id]
        for device_id, run_id in RunDevice.objects.filter(run__in=active.keys()).values_list(
            "device_id", "run_id"
        )
    }
    for active_run in active.values():
        by_device.update(dict.fromkeys(target_device(active_run.spec), active_run))
    device_ids = [*run.run_devices.values_list("device_id", flat=True), *target_device(run.spec)]
    blockers = dispatch_blockers(
        experiment_id=run.experiment_id,
        device_ids=device_ids,
        active_by_experiment=by_experiment,
        active_by_device=by_device,
    )
    names = dict(Device.objects.filter(pk__in=blockers.device_runs).values_list("pk", "name"))
    rows = [
        {
            "device": names[device_id],
            "run_id": busy.pk,
            "run_position": busy.position + 1,
            "experiment_id": busy.experiment_id,
            "experiment_name": busy.experiment.name,
        }
        for device_id, busy in sorted(blockers.device_runs.items(), key=lambda i: names[i[0]])
    ]
    if rows:
        parts = [
            DEVICE_BUSY_PART.format(
                device=r["device"], position=r["run_position"], experiment=r["experiment_name"]
            )
            for r in rows
        ]
        return {
            "reason": "devices",
            "message": DEVICES_BUSY_MESSAGE.format(devices="; ".join(parts)),
            "blockers": rows,
        }
    if blockers.experiment_run is not None:
        busy = blockers.experiment_run
        row = {
            "device": None,
            "run_id": busy.pk,
            "run_position": busy.position + 1,
            "experiment_id": busy.experiment_id,
            "experiment_name": busy.experiment.name,
        }
        return {
            "reason": "experiment",
            "message": EXPERIMENT_BUSY_MESSAGE.format(position=busy.position + 1),
            "blockers": [row],
        }
    return {"reason": "worker", "message": NO_WORKER_MESSAGE, "blockers": []}
