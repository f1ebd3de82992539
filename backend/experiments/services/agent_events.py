"""What the agents report about a run (progress, acceptance, readiness, network and clock
records, failures) and how a part and then its run settle; the sweep of silent devices.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from functools import partial
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from devices.models import Device
from experiments.kinds import kind_get
from experiments.models import FINISHED_STATUSES, Run, RunDevice, RunStatus
from experiments.services.scheduling import run_fail, schedule_soon
from experiments.services.targets import FAILED as TARGET_FAILED
from experiments.services.targets import (
    STARTING,
    TARGET_SILENT_MESSAGE,
    target_message,
    target_named,
    target_release,
)
from experiments.signals import run_done, run_needs_summary

logger = logging.getLogger(__name__)

DEVICE_STALE_MESSAGE = (
    "Device {name} sent no heartbeat for {seconds} s during the run; its agent may have died"
)
DEVICE_NEVER_STARTED_MESSAGE = (
    "Device {name} never accepted its job before the job expired; is its agent running and "
    "connected to the same broker?"
)
HEALTH_TIMEOUT_MESSAGE = (
    "{names} did not answer the health check before the run within {seconds} s; is the agent "
    "running, connected and up to date? Retry the run once it is."
)


# Heartbeat phases of an agent still busy with a run: measuring it, or uploading its log
# (for as long as its upload retries). A heartbeat in another phase (done, failed, idle) may
# still name its last run, and must not keep that run's part alive.
ALIVE_PHASES = ("running", "uploading")


def run_device_progress(
    *,
    device_id: UUID | str,
    run_id: UUID | str,
    sent: int,
    received: int,
    total: int,
    phase: str = "running",
) -> bool:
    """Apply a heartbeat's progress. Returns False when no active run part matches."""
    if phase not in ALIVE_PHASES:
        return False
    now = timezone.now()
    active = RunDevice.objects.filter(run_id=run_id, device_id=device_id).exclude(
        status__in=FINISHED_STATUSES
    )
    updated = active.update(sent=sent, received=received, total=total, last_heartbeat_at=now)
    if updated:
        active.filter(status=RunStatus.PREPARING).update(status=RunStatus.RUNNING)
        Run.objects.filter(pk=run_id, status=RunStatus.PREPARING).update(status=RunStatus.RUNNING)
    return updated == 1


def run_device_job_accepted(*, device_id: UUID | str, job_id: UUID | str) -> None:
    now = timezone.now()
    rd = RunDevice.objects.filter(job_id=job_id, device_id=device_id)
    rd.filter(status=RunStatus.PREPARING).update(status=RunStatus.RUNNING, last_heartbeat_at=now)
    run_ids = rd.values("run_id")
    Run.objects.filter(pk__in=run_ids, status=RunStatus.PREPARING).update(status=RunStatus.RUNNING)


def run_device_network_record(
    *, device_id: UUID | str, job_id: UUID | str, network: dict[str, Any]
) -> bool:
    """Keep the agent's proof that the run's network profile was enforced (its
    network_enforced event; docs/control-plane.md). False when no such job of the device."""
    return bool(
        RunDevice.objects.filter(job_id=job_id, device_id=device_id).update(network=network)
    )


def run_device_receiver_ready(*, device_id: UUID | str, job_id: UUID | str) -> bool:
    """A one-way receiver subscribed (its receiver_ready event). Once every device of the
    run is ready, the platform's controller starts sending (once: the run is claimed)."""
    from experiments.tasks import run_oneway_send_task

    now = timezone.now()
    with transaction.atomic():
        part = (
            RunDevice.objects.select_related("run")
            .filter(job_id=job_id, device_id=device_id)
            .exclude(status__in=FINISHED_STATUSES)
            .first()
        )
        if part is None:
            return False
        RunDevice.objects.filter(pk=part.pk).update(ready_at=now)
        waiting = RunDevice.objects.filter(run_id=part.run_id, ready_at__isnull=True).exists()
        if not waiting:
            claimed = Run.objects.filter(pk=part.run_id, controller_started_at__isnull=True).update(
                controller_started_at=now
            )
            if claimed:
                run_id = str(part.run_id)
                transaction.on_commit(partial(run_oneway_send_task.delay, run_id))
    return True


def run_device_clock_record(
    *, device_id: UUID | str, job_id: UUID | str, clock: dict[str, Any]
) -> bool:
    """Keep a one-way receiver's clock offsets to the platform, before and after the run."""
    return bool(RunDevice.objects.filter(job_id=job_id, device_id=device_id).update(clock=clock))


def run_device_fail(*, run_device: RunDevice, message: str) -> None:
    """A device's part ended early (its agent reported why, it went silent, or its records
    were refused): keep the reason and settle the part. What the device measured is never
    discarded, and the other devices' parts go on: the run ends when every part has. A
    message naming the address of the run's target device names the device too (a client
    whose target stopped answering: ``target_named``)."""
    run = Run.objects.filter(run_devices=run_device.pk).only("target").first()
    if run is not None:
        message = target_named(run=run, message=message)
    RunDevice.objects.filter(pk=run_device.pk).update(error=message, ended=True)
    run_device_settle(run_device_id=run_device.pk)


PART_PARTIAL_MESSAGE = "{done} of {total} planned {unit} measured and stored"
PART_WAITING_MESSAGE = (
    "{sent} of {total} {unit} measured on the device, none stored yet: its log stays on the "
    "device and is stored when its agent uploads it"
)


def _unit(run_device: RunDevice) -> str:
    return "samples" if kind_get(run_device.run.experiment.kind).samples else "messages"


@transaction.atomic
def run_device_settle(*, run_device_id: int) -> str:
    """Give a device's part the state its data says, then settle the run. Returns the part's
    status.

    - Every record it declared (its final chunk's total) stored: `done` when that is every
      planned record, else `partial` ("n of N measured", or the agent's reason).
    - Records declared but not all stored yet: `ingesting` (the chunks are on their way).
    - Ended without an upload (a failure report, or silence): `partial` when its heartbeats
      said it measured something (the log is on the device and is stored if it comes),
      `failed` when it measured nothing.
    Safe to call again at any time: late records move a part (and its run) on.
    """
    part = (
        RunDevice.objects.select_for_update()
        .select_related("run__experiment", "device")
        .get(pk=run_device_id)
    )
    unit = _unit(part)
    status, error = part.status, part.error
    declared = part.record_total
    if declared is not None and part.records_ingested >= declared:
        status = RunStatus.DONE if declared >= part.total else RunStatus.PARTIAL
        if declared == 0 and part.total > 0:
            status = RunStatus.FAILED
        if status == RunStatus.PARTIAL and not error:
            error = PART_PARTIAL_MESSAGE.format(done=declared, total=part.total, unit=unit)
    elif (declared is not None and not part.ended) or part.chunks.filter(
        status="received"
    ).exists():
        status = RunStatus.INGESTING  # its chunks are on their way into the database
    elif part.ended:
        measured = part.records_ingested > 0 or part.sent > 0
        status = RunStatus.PARTIAL if measured else RunStatus.FAILED
        waiting = PART_WAITING_MESSAGE.format(sent=part.sent, total=part.total, unit=unit)
        if part.sent > 0 and part.records_ingested == 0 and waiting not in error:
            error = f"{error} ({waiting})" if error else waiting
    if (status, error) != (part.status, part.error):
        RunDevice.objects.filter(pk=part.pk).update(status=status, error=error)
    if status in FINISHED_STATUSES:
        # Under the run's row lock: of two parts settling at once, the second to take it
        # sees both (READ COMMITTED reads what the first committed).
        run_settle(run_id=part.run_id)
    return str(status)


@transaction.atomic
def run_settle(*, run_id: UUID | str) -> str:
    """Derive the run's final state from its parts once every part has ended: `done` when
    all are done, `failed` when all failed, `partial` otherwise (a cancelled run stays
    cancelled). Its summary is computed then, and again whenever late records change it.
    Returns the run's status."""
    run = Run.objects.select_for_update().get(pk=run_id)
    parts = list(RunDevice.objects.filter(run_id=run_id).select_related("device"))
    if run.status in (RunStatus.QUEUED, RunStatus.PREPARING) or not parts:
        return str(run.status)
    if any(p.status not in FINISHED_STATUSES for p in parts):
        return str(run.status)
    statuses = {p.status for p in parts}
    if run.status == RunStatus.CANCELLED or run.target.get("status") == TARGET_FAILED:
        # Ended by the user, or by its target device (the error says which and why).
        status, error = RunStatus(run.status), run.error
    elif statuses == {RunStatus.DONE}:
        status, error = RunStatus.DONE, ""
    else:
        status = RunStatus.FAILED if statuses == {RunStatus.FAILED} else RunStatus.PARTIAL
        error = "; ".join(
            f"{p.device.name}: {p.error}" for p in parts if p.status != RunStatus.DONE
        )
    stored = sum(p.records_ingested for p in parts)
    summarized = run.finished_at is not None and run.summarized_records == stored
    if status == run.status and error == run.error and summarized:
        return str(status)
    first = run.status not in FINISHED_STATUSES
    if first and status != RunStatus.FAILED:
        # Marks the summary step in the run's transitions, as before `done`.
        Run.objects.filter(pk=run_id).update(status=RunStatus.INGESTING)
    if not summarized:
        run_needs_summary.send(sender=Run, run_id=run_id)  # measurements.receivers
    Run.objects.filter(pk=run_id).update(
        status=status,
        error=error,
        summarized_records=stored,
        finished_at=run.finished_at or timezone.now(),
    )
    logger.info(
        "experiments.run_settled run=%s status=%s records=%s error=%s",
        run_id,
        status,
        stored,
        error,
    )
    if first:
        target_release(run_id=run_id)
        schedule_soon()  # its devices are free for the next queued run
    if status == RunStatus.DONE:
        run_done.send(sender=Run, run_id=run_id)  # results.receivers
    return str(status)


def runs_fail_stale(*, now: datetime | None = None) -> int:
    """End the parts of devices that went silent or never took their job, and fail runs
    whose devices never answered the health check before the run (beat task).

    Silence counts from the device's last heartbeat, or from when PostgreSQL last started if
    that is later: while the database was down no heartbeat could be written, and that is
    not the device's fault. A silent device is marked offline; its part ends partial when
    it had measured something (stored when its agent uploads), failed otherwise."""
    now = now or timezone.now()
    unanswered = Run.objects.filter(
        status=RunStatus.PREPARING,
        started_at__lt=now - timedelta(seconds=settings.HEALTH_CHECK_TIMEOUT_SECONDS),
        run_devices__status=RunStatus.QUEUED,
    ).distinct()
    for waiting in unanswered:
        unhealthy = [
            p.device.name
            for p in RunDevice.objects.filter(run=waiting).select_related("device")
            if p.device.health.get("run_id") != str(waiting.pk)
            or p.device.health.get("status") != "passed"
        ]
        if not unhealthy and waiting.target.get("status") == STARTING:
            target = Device.objects.get(pk=waiting.target["device_id"])
            message = target_message(
                TARGET_SILENT_MESSAGE,
                device=target,
                role=str(waiting.target.get("role")),
                seconds=settings.HEALTH_CHECK_TIMEOUT_SECONDS,
            )
            run_fail(run_id=waiting.pk, message=message)
            continue
        run_fail(
            run_id=waiting.pk,
            message=HEALTH_TIMEOUT_MESSAGE.format(
                names=", ".join(unhealthy), seconds=settings.HEALTH_CHECK_TIMEOUT_SECONDS
            ),
        )
    stale_after = timedelta(seconds=settings.RUN_HEARTBEAT_STALE_SECONDS)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_postmaster_start_time()")
        database_started = cursor.fetchone()[0]
    if database_started > now - stale_after:
        return 0  # the platform itself was deaf until just now: give heartbeats time
    never_started = RunDevice.objects.filter(
        status=RunStatus.PREPARING,
        run__started_at__lt=now - timedelta(seconds=settings.JOB_TTL_SECONDS) - stale_after,
    ).select_related("device")
    silent = (
        RunDevice.objects.filter(status=RunStatus.RUNNING)
        .filter(Q(last_heartbeat_at__lt=now - stale_after) | Q(last_heartbeat_at__isnull=True))
        .select_related("device")
    )
    failed = 0
    for rd in never_started:
        run_device_fail(
            run_device=rd, message=DEVICE_NEVER_STARTED_MESSAGE.format(name=rd.device.name)
        )
        failed += 1
    for rd in silent:
        message = DEVICE_STALE_MESSAGE.format(
            name=rd.device.name, seconds=settings.RUN_HEARTBEAT_STALE_SECONDS
        )
        Device.objects.filter(pk=rd.device_id, last_seen_at__lt=now - stale_after).update(
            online=False
        )
        run_device_fail(run_device=rd, message=message)
        failed += 1
    return failed
