"""Queueing a design's runs and starting them one after another; cancelling, retrying and
failing a run.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from functools import partial
from typing import Any
from uuid import UUID, uuid4

from django.db import connection, transaction
from django.utils import timezone
from iotsecbench_contract import topics

from core.mqtt import BrokerUnavailable, mqtt_publish_many
from devices.models import Device
from devices.services import device_next_job_seq, job_header
from devices.signing import job_envelope
from experiments.describe import describe
from experiments.errors import DevicesOffline, RunAlreadyActive, RunNotCancellable, RunNotRetryable
from experiments.matrix import build as build_matrix
from experiments.matrix import label as matrix_label
from experiments.matrix import order_seed_draw, run_order
from experiments.models import (
    ACTIVE_STATUSES,
    FINISHED_STATUSES,
    Experiment,
    Run,
    RunDevice,
    RunStatus,
)
from experiments.queue import dispatch_blockers, target_device
from experiments.services.designs import (
    _controller_secrets,
    _design,
    _experiment_spec,
    _planned_total,
    _require_enforceable,
)
from netprofiles.models import NetworkProfile

logger = logging.getLogger(__name__)

DEVICES_OFFLINE_MESSAGE = (
    "These devices are offline: {names}. Start their agents (`iotsecbench-agent run`) and try "
    "again."
)
RUN_ALREADY_ACTIVE_MESSAGE = (
    "This experiment already has runs queued or in progress (the next is {run_id}): wait for "
    "them to finish, or cancel them, before starting it again."
)


def _no_check(parameter: str, value: Any) -> Any:
    return value


@transaction.atomic
def experiment_start(*, experiment: Experiment) -> list[Run]:
    """Queue every run of the experiment's matrix (each combination x repeats, in
    matrix.run_order: shuffled within each repeat block by the experiment's order seed, or
    by a fresh one recorded on the runs when it has none). The scheduler (runs_schedule)
    starts them one after another, never two on one device at a time. Refused, before
    anything is queued, while runs of the experiment are queued or active, when a device is
    offline, or when a network profile cannot be enforced on a device."""
    from experiments.tasks import runs_schedule_task

    # Lock the experiment so two clicks cannot queue the matrix twice.
    Experiment.objects.select_for_update().get(pk=experiment.pk)
    active = experiment.runs.exclude(status__in=FINISHED_STATUSES).order_by("position").first()
    if active is not None:
        raise RunAlreadyActive(RUN_ALREADY_ACTIVE_MESSAGE.format(run_id=active.pk))
    matrix = build_matrix(experiment.axes, experiment.exclusions, _no_check)
    base_devices = list(experiment.devices.order_by("name"))
    device_sets = {
        tuple(sorted(str(i) for i in cell["device_ids"]))
        for cell in matrix.cells
        if "device_ids" in cell
    }
    all_ids = {str(d.pk) for d in base_devices} | {i for ids in device_sets for i in ids}
    devices = {str(d.pk): d for d in Device.objects.filter(pk__in=all_ids).order_by("name")}
    offline = sorted(d.name for d in devices.values() if not d.online)
    if offline:
        raise DevicesOffline(
            DEVICES_OFFLINE_MESSAGE.format(names=", ".join(offline)), extra={"devices": offline}
        )
    profile_ids = {str(c["network_profile"]) for c in matrix.cells if c.get("network_profile")}
    profiles = {str(p.pk): p for p in NetworkProfile.objects.filter(pk__in=profile_ids)}
    names = {**{k: d.name for k, d in devices.items()}, **{k: p.name for k, p in profiles.items()}}
    now = timezone.now()
    runs: list[Run] = []
    parts: list[RunDevice] = []
    seed = experiment.order_seed if experiment.order_seed is not None else order_seed_draw()
    for position, (repeat, cell) in enumerate(run_order(matrix.cells, experiment.repeats, seed)):
        design = _design(experiment, cell, profiles)
        run_devices = (
            [devices[str(i)] for i in sorted(cell["device_ids"], key=lambda i: devices[i].name)]
            if "device_ids" in cell
            else base_devices
        )
        if design.network_profile is not None:
            _require_enforceable(design.network_profile, run_devices)
        run = Run(
            experiment=experiment,
            spec=_experiment_spec(design),
            controller=_controller_secrets(design),
            cell=cell,
            cell_label=matrix_label(cell, lambda p, v: describe(p, v, names))
            if matrix.axes
            else "",
            repeat=repeat,
            position=position,
            order_seed=seed,
            queued_at=now,
        )
        runs.append(run)
        total = _planned_total(design)
        parts.extend(RunDevice(run=run, device=d, total=total, facts=d.facts) for d in run_devices)
    Run.objects.bulk_create(runs)
    RunDevice.objects.bulk_create(parts)
    transaction.on_commit(lambda: runs_schedule_task.delay())
    return runs


def run_start(*, experiment: Experiment) -> Run:
    """Queue the experiment's runs (experiment_start); the first of them."""
    return experiment_start(experiment=experiment)[0]


# pg_advisory_xact_lock key: one scheduler at a time, across workers and hosts.
SCHEDULER_LOCK = 0x10753CB


def runs_schedule() -> list[str]:
    """Start every queued run that can start now, oldest first: a run starts when no other
    run of its experiment is active (runs of an experiment execute one after another) and
    none of its devices is in an active run of any experiment. Queued runs are rows, so a
    restart of the worker or the backend loses none: the next call (after every finished
    run, and every few seconds from beat) picks them up. Returns the ids started."""
    from experiments.tasks import run_prepare_task

    started: list[str] = []
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [SCHEDULER_LOCK])
        busy_experiments: dict[UUID, UUID] = dict(
            Run.objects.filter(status__in=ACTIVE_STATUSES).values_list("experiment_id", "pk")
        )
        busy_devices: dict[UUID, UUID] = dict(
            RunDevice.objects.filter(run__status__in=ACTIVE_STATUSES).values_list(
                "device_id", "run_id"
            )
        )
        for active_id, active_spec in Run.objects.filter(status__in=ACTIVE_STATUSES).values_list(
            "pk", "spec"
        ):
            busy_devices.update(dict.fromkeys(target_device(active_spec), active_id))
        queued = Run.objects.filter(status=RunStatus.QUEUED).order_by("queued_at", "position")
        for run in queued.prefetch_related("run_devices"):
            devices = {rd.device_id for rd in run.run_devices.all()} | target_device(run.spec)
            if dispatch_blockers(
                experiment_id=run.experiment_id,
                device_ids=devices,
                active_by_experiment=busy_experiments,
                active_by_device=busy_devices,
            ):
                continue
            claimed = Run.objects.filter(pk=run.pk, status=RunStatus.QUEUED).update(
                status=RunStatus.PREPARING, started_at=timezone.now()
            )
            if claimed:
                busy_experiments[run.experiment_id] = run.pk
                busy_devices.update(dict.fromkeys(devices, run.pk))
                started.append(str(run.pk))
        for run_id in started:
            logger.info("experiments.run_started run=%s", run_id)
            transaction.on_commit(partial(run_prepare_task.delay, run_id))
    return started


def schedule_soon() -> None:
    """Ask the worker to start what can start, once the current transaction commits."""
    from experiments.tasks import runs_schedule_task

    transaction.on_commit(lambda: runs_schedule_task.delay())


def run_fail(*, run_id: UUID | str, message: str) -> bool:
    """Mark a run failed (unless it already finished). Returns whether it changed."""
    changed = (
        Run.objects.filter(pk=run_id)
        .exclude(status__in=FINISHED_STATUSES)
        .update(status=RunStatus.FAILED, error=message, finished_at=timezone.now())
    )
    if changed:
        logger.warning("experiments.run_failed run=%s error=%s", run_id, message)
        _release_target(run_id)
        schedule_soon()  # its devices are free for the next queued run
    return changed == 1


def _release_target(run_id: UUID | str) -> None:
    """A run that ended stops its target device serving (experiments.services.targets,
    which imports this module: imported here)."""
    from experiments.services.targets import target_release

    target_release(run_id=run_id)


RUN_NOT_CANCELLABLE_MESSAGE = "Run {run_id} is already {status}; there is nothing to cancel."
CANCELLED_MESSAGE = "Cancelled by {user}."
RUN_NOT_RETRYABLE_MESSAGE = (
    "Run {run_id} is {status}; only a failed, partial or cancelled run can be retried."
)


@transaction.atomic
def run_cancel(*, run: Run, by: str) -> Run:
    """Cancel a queued or active run. An active run's agents are told to stop (a signed
    cancel job); what they measured until then is still uploaded and kept."""
    run = Run.objects.select_for_update().get(pk=run.pk)
    if run.status in FINISHED_STATUSES:
        raise RunNotCancellable(
            RUN_NOT_CANCELLABLE_MESSAGE.format(run_id=run.pk, status=run.status)
        )
    was_active = run.status in ACTIVE_STATUSES
    message = CANCELLED_MESSAGE.format(user=by)
    Run.objects.filter(pk=run.pk).update(
        status=RunStatus.CANCELLED, error=message, finished_at=timezone.now()
    )
    active_parts = list(RunDevice.objects.filter(run=run).exclude(status__in=FINISHED_STATUSES))
    RunDevice.objects.filter(pk__in=[p.pk for p in active_parts]).update(
        status=RunStatus.CANCELLED, error=message
    )
    if was_active:
        dispatched = [p for p in active_parts if p.job_seq is not None]
        transaction.on_commit(lambda: _publish_cancel(run.pk, dispatched))
        _release_target(run.pk)
    schedule_soon()
    run.refresh_from_db()
    return run


def _publish_cancel(run_id: UUID, parts: Sequence[RunDevice]) -> None:
    """Tell each device to stop the run's job (docs/control-plane.md: kind "cancel")."""
    messages = []
    now = time.time()
    for part in parts:
        header = job_header(
            device_id=str(part.device_id),
            seq=device_next_job_seq(device_id=str(part.device_id)),
            job_id=str(uuid4()),
            run_id=str(run_id),
            kind="cancel",
            now=now,
        )
        job = {**header, "spec": {"job_id": str(part.job_id)}}
        messages.append((topics.jobs_topic(str(part.device_id)), job_envelope(job), 1, False))
    if messages:
        try:
            mqtt_publish_many(messages)
        except BrokerUnavailable as exc:
            logger.warning("experiments.cancel_not_sent run=%s error=%s", run_id, exc.message)


@transaction.atomic
def run_retry(*, run: Run) -> Run:
    """Queue a failed or cancelled run again: the same frozen spec (same seed, same
    profile as frozen), the same devices, at the back of the queue."""
    run = Run.objects.select_for_update().get(pk=run.pk)
    if run.status not in (RunStatus.FAILED, RunStatus.PARTIAL, RunStatus.CANCELLED):
        raise RunNotRetryable(RUN_NOT_RETRYABLE_MESSAGE.format(run_id=run.pk, status=run.status))
    devices = list(Device.objects.filter(run_devices__run=run).order_by("name"))
    offline = [d.name for d in devices if not d.online]
    if offline:
        raise DevicesOffline(
            DEVICES_OFFLINE_MESSAGE.format(names=", ".join(offline)), extra={"devices": offline}
        )
    retry = Run.objects.create(
        experiment_id=run.experiment_id,
        spec=run.spec,
        controller=run.controller,  # a one-way run's keys go with its spec
        cell=run.cell,
        cell_label=run.cell_label,
        repeat=run.repeat,
        position=run.position,
        order_seed=run.order_seed,
        retry_of=run,
    )
    total = RunDevice.objects.filter(run=run).values_list("total", flat=True).first() or 0
    RunDevice.objects.bulk_create(
        RunDevice(run=retry, device=d, total=total, facts=d.facts) for d in devices
    )
    schedule_soon()
    return retry
