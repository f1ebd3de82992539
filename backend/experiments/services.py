from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import Workspace
from core.mqtt import mqtt_publish_many
from devices.models import Device
from devices.services import device_next_job_seq
from devices.signing import job_envelope
from experiments.errors import (
    DeviceNotInWorkspace,
    DevicesOffline,
    NetworkProfileNotEnforceable,
    RunAlreadyActive,
    TlsBrokerNotConfigured,
)
from experiments.models import (
    FINISHED_STATUSES,
    SAMPLE_KINDS,
    Experiment,
    ExperimentKind,
    IntervalDistribution,
    MqttVersion,
    Protocol,
    Run,
    RunDevice,
    RunStatus,
    SrupSignature,
    Transport,
)
from netprofiles.models import DelayTable, NetworkProfile

logger = logging.getLogger(__name__)

DEVICE_NOT_IN_WORKSPACE_MESSAGE = "These devices are not in your workspace: {ids}."
DEVICES_OFFLINE_MESSAGE = (
    "These devices are offline: {names}. Start their agents (`iotsecbench-agent run`) and try "
    "again."
)
TLS_NOT_CONFIGURED_MESSAGE = (
    "This platform has no TLS broker: set MQTT_TLS_URL and MQTT_TLS_CA_FILE (make up does), "
    "or choose MQTT over TCP."
)
RUN_ALREADY_ACTIVE_MESSAGE = "This experiment already has a run in progress ({run_id})."
NOT_ENFORCEABLE_MESSAGE = (
    "The network profile “{profile}” cannot be enforced on every device, so the run would "
    "not be measured under it. {devices}. Run those agents as root on Linux with "
    "/dev/net/tun (docs/network-emulation.md), or choose other devices or no profile."
)
DEVICE_STALE_MESSAGE = "Device {name} sent no heartbeat for {seconds} s; its agent may have died."
DEVICE_NEVER_STARTED_MESSAGE = (
    "Device {name} never accepted its job before the job expired; is its agent running and "
    "connected to the same broker?"
)
# Records per upload request (~1.1 MB of CSV): large enough that per-chunk costs (request,
# transaction, bookkeeping) stay small next to the COPY itself (docs/benchmarks.md).
UPLOAD_CHUNK_RECORDS = 20_000
UPLOAD_CHUNK_SAMPLES = 5_000


@transaction.atomic
def experiment_create(
    *,
    workspace: Workspace,
    user: User | AnonymousUser | None,
    name: str,
    device_ids: Sequence[UUID],
    protocol: str,
    qos: int,
    security: str,
    payload_size: int,
    message_count: int,
    interval_ms: int,
    measurement: str,
    mqtt_version: str = MqttVersion.V311,
    transport: str = Transport.TCP,
    srup_signature: str = SrupSignature.RSA_2048,
    interval_distribution: str = IntervalDistribution.FIXED,
    kind: str = ExperimentKind.MESSAGING,
    mechanisms: Sequence[str] = (),
    data_sizes: Sequence[int] = (),
    repetitions: int = 100,
    window_ms: int = 2000,
    network_profile: NetworkProfile | None = None,
) -> Experiment:
    devices = list(Device.objects.filter(workspace=workspace, pk__in=device_ids))
    missing = sorted({str(i) for i in device_ids} - {str(d.pk) for d in devices})
    if missing:
        raise DeviceNotInWorkspace(
            DEVICE_NOT_IN_WORKSPACE_MESSAGE.format(ids=", ".join(missing)),
            extra={"fields": {"device_ids": [f"Unknown device {i}." for i in missing]}},
        )
    experiment = Experiment(
        workspace=workspace,
        created_by=user if isinstance(user, User) else None,
        name=name,
        protocol=protocol,
        qos=qos,
        security=security,
        payload_size=payload_size,
        message_count=message_count,
        interval_ms=interval_ms,
        measurement=measurement,
        mqtt_version=mqtt_version,
        transport=transport,
        srup_signature=srup_signature,
        interval_distribution=interval_distribution,
        kind=kind,
        mechanisms=list(mechanisms),
        data_sizes=list(data_sizes),
        repetitions=repetitions,
        window_ms=window_ms,
        network_profile=network_profile,
    )
    if transport != Transport.TCP and not (settings.MQTT_TLS_URL and settings.MQTT_TLS_CA_FILE):
        raise TlsBrokerNotConfigured(
            TLS_NOT_CONFIGURED_MESSAGE,
            extra={"fields": {"transport": [TLS_NOT_CONFIGURED_MESSAGE]}},
        )
    experiment.full_clean()
    experiment.save()
    experiment.devices.set(devices)
    return experiment


def _experiment_spec(experiment: Experiment) -> dict[str, Any]:
    if experiment.kind in SAMPLE_KINDS:
        spec: dict[str, Any] = {
            "mechanisms": list(experiment.mechanisms),
            "data_sizes": list(experiment.data_sizes),
            "repetitions": experiment.repetitions,
        }
        if experiment.kind == ExperimentKind.THROUGHPUT:
            spec["window_ms"] = experiment.window_ms
        return spec
    transport: dict[str, Any] = {"broker_url": settings.MQTT_URL}
    if experiment.transport != Transport.TCP:
        transport = {
            "broker_url": settings.MQTT_TLS_URL,
            "tls_version": experiment.transport.removeprefix("tls"),
            "ca_cert": Path(settings.MQTT_TLS_CA_FILE).read_text(),
        }
    if experiment.protocol == Protocol.SRUP:
        transport["srup_signature"] = experiment.srup_signature
    network: dict[str, Any] = {}
    if experiment.network_profile is not None:
        # Frozen with the run: editing the profile later never changes what a run meant.
        # The measured tables it names are added to each job at dispatch (_job_for).
        profile = experiment.network_profile
        network = {
            "network_profile": {"id": str(profile.pk), "name": profile.name, "spec": profile.spec}
        }
    return {
        **transport,
        **network,
        "transport": experiment.transport,
        "protocol": experiment.protocol,
        "mqtt_version": experiment.mqtt_version,
        "qos": experiment.qos,
        "security": experiment.security,  # a mechanism name of experiments.catalogue
        "payload_size": experiment.payload_size,
        "message_count": experiment.message_count,
        "interval_ms": experiment.interval_ms,
        "interval_distribution": experiment.interval_distribution,
        # One seed per run, kept in the spec: the same schedule can be replayed anywhere.
        "interval_seed": secrets.randbits(32),
        "measurement": experiment.measurement,
        "timeout_ms": 5000,
    }


@transaction.atomic
def run_start(*, experiment: Experiment) -> Run:
    """Create a run of the experiment and queue its dispatch to the devices."""
    from experiments.tasks import run_dispatch_task

    # Lock the experiment so two clicks cannot start two runs at once.
    Experiment.objects.select_for_update().get(pk=experiment.pk)
    active = experiment.runs.exclude(status__in=FINISHED_STATUSES).first()
    if active is not None:
        raise RunAlreadyActive(RUN_ALREADY_ACTIVE_MESSAGE.format(run_id=active.pk))
    devices = list(experiment.devices.order_by("name"))
    offline = [d.name for d in devices if not d.online]
    if offline:
        raise DevicesOffline(
            DEVICES_OFFLINE_MESSAGE.format(names=", ".join(offline)), extra={"devices": offline}
        )
    if experiment.network_profile is not None:
        unable = {d.name: reason for d in devices if (reason := _cannot_enforce(d)) is not None}
        if unable:
            raise NetworkProfileNotEnforceable(
                NOT_ENFORCEABLE_MESSAGE.format(
                    profile=experiment.network_profile.name,
                    devices="; ".join(f"{name}: {why}" for name, why in unable.items()),
                ),
                extra={"devices": sorted(unable)},
            )
    run = Run(experiment=experiment, spec=_experiment_spec(experiment))
    run.full_clean()
    run.save()
    RunDevice.objects.bulk_create(
        RunDevice(run=run, device=d, total=_planned_total(experiment), facts=d.facts)
        for d in devices
    )
    transaction.on_commit(lambda: run_dispatch_task.delay(str(run.pk)))
    return run


def _cannot_enforce(device: Device) -> str | None:
    """Why the device cannot enforce a network profile, from the facts its agent reported
    at start (docs/control-plane.md §2); None when some backend can, or when an older agent
    did not say (the agent then refuses the run itself, before sending anything)."""
    backends = device.facts.get("network_emulation")
    if not isinstance(backends, dict) or not backends:
        return None
    if any(isinstance(b, dict) and b.get("available") for b in backends.values()):
        return None
    reasons = [str(b.get("reason")) for _, b in sorted(backends.items()) if isinstance(b, dict)]
    return " / ".join(r for r in reasons if r) or "no network emulation backend works there"


def _planned_total(experiment: Experiment) -> int:
    """What the device's progress counts up to: messages, or benchmark repetitions."""
    if experiment.kind in SAMPLE_KINDS:
        # Two operations per mechanism and size: encrypt+decrypt or sign+verify (cipher
        # benchmark), or the secure-only and the send window (throughput).
        return 2 * len(experiment.mechanisms) * len(experiment.data_sizes) * experiment.repetitions
    return experiment.message_count


def _job_for(run_device: RunDevice, *, seq: int, now: float) -> dict[str, Any]:
    run = run_device.run
    device_id = str(run_device.device_id)
    base_url = f"{settings.PLATFORM_PUBLIC_URL}/api/agent/runs/{run.pk}"
    job: dict[str, Any] = {
        "v": 1,
        "device_id": device_id,
        "seq": seq,
        "issued_at": now,
        "expires_at": now + settings.JOB_TTL_SECONDS,
        "job_id": str(run_device.job_id),
        "run_id": str(run.pk),
        "kind": run.experiment.kind,
    }
    if run.experiment.kind in SAMPLE_KINDS:
        job["spec"] = run.spec
        job["upload"] = {"url": f"{base_url}/samples/", "chunk_samples": UPLOAD_CHUNK_SAMPLES}
    else:
        # SRUP's topic is SRUP/<device id>, derived by the agent (device-agent/docs/srup.md).
        srup = run.spec.get("protocol") == Protocol.SRUP
        topic = {} if srup else {"topic": f"iotsecbench/data/{run.pk}/{device_id}"}
        job["spec"] = {**run.spec, **topic}
        if "network_profile" in run.spec:
            job["spec"]["network_profile"] = _network_profile_job(run.spec["network_profile"])
        job["upload"] = {"url": f"{base_url}/records/", "chunk_records": UPLOAD_CHUNK_RECORDS}
    return job


def _network_profile_job(frozen: dict[str, Any]) -> dict[str, Any]:
    """The run's network profile as the agent takes it (docs/control-plane.md): with the
    values of every measured table its spec names, so an installed agent needs no copy."""
    names = {
        direction.get("table")
        for direction in frozen.get("spec", {}).values()
        if isinstance(direction, dict) and direction.get("table")
    }
    tables = {t.name: list(t.values) for t in DelayTable.objects.filter(name__in=names)}
    return {"name": frozen["name"], "spec": frozen["spec"], "tables": tables}


def run_dispatch(*, run_id: UUID | str) -> int:
    """Sign and publish the job of every device of the run not dispatched yet.

    Idempotent: a retry after a broker failure publishes only the devices still pending, and
    each publish gets a fresh sequence number (an agent never sees a seq twice).
    Returns the number of jobs published.
    """
    run = Run.objects.get(pk=run_id)
    if run.status in FINISHED_STATUSES:
        return 0
    pending = list(
        RunDevice.objects.filter(run=run, status=RunStatus.PENDING).select_related(
            "run__experiment"
        )
    )
    for run_device in pending:
        seq = device_next_job_seq(device_id=str(run_device.device_id))
        job = _job_for(run_device, seq=seq, now=time.time())
        topic = f"iotsecbench/agents/{run_device.device_id}/jobs"
        mqtt_publish_many([(topic, job_envelope(job), 1, False)])
        RunDevice.objects.filter(pk=run_device.pk, status=RunStatus.PENDING).update(
            status=RunStatus.DISPATCHED, job_seq=seq
        )
        logger.info(
            "experiments.job_dispatched run=%s device=%s seq=%s", run.pk, run_device.device_id, seq
        )
    Run.objects.filter(pk=run.pk, status=RunStatus.PENDING).update(
        status=RunStatus.DISPATCHED, started_at=timezone.now()
    )
    return len(pending)


def run_fail(*, run_id: UUID | str, message: str) -> bool:
    """Mark a run failed (unless it already finished). Returns whether it changed."""
    changed = (
        Run.objects.filter(pk=run_id)
        .exclude(status__in=FINISHED_STATUSES)
        .update(status=RunStatus.FAILED, error=message, finished_at=timezone.now())
    )
    if changed:
        logger.warning("experiments.run_failed run=%s error=%s", run_id, message)
    return changed == 1


def run_device_fail(*, run_device: RunDevice, message: str) -> None:
    """A device's part failed: the run fails with it, naming the device."""
    RunDevice.objects.filter(pk=run_device.pk).exclude(status__in=FINISHED_STATUSES).update(
        status=RunStatus.FAILED, error=message
    )
    run_fail(run_id=run_device.run_id, message=f"{run_device.device.name}: {message}")


def run_device_progress(
    *, device_id: UUID | str, run_id: UUID | str, sent: int, received: int, total: int
) -> bool:
    """Apply a heartbeat's progress. Returns False when no active run part matches."""
    now = timezone.now()
    active = RunDevice.objects.filter(run_id=run_id, device_id=device_id).exclude(
        status__in=FINISHED_STATUSES
    )
    updated = active.update(sent=sent, received=received, total=total, last_heartbeat_at=now)
    if updated:
        active.filter(status=RunStatus.DISPATCHED).update(status=RunStatus.RUNNING)
        Run.objects.filter(pk=run_id, status=RunStatus.DISPATCHED).update(status=RunStatus.RUNNING)
    return updated == 1


def run_device_job_accepted(*, device_id: UUID | str, job_id: UUID | str) -> None:
    now = timezone.now()
    rd = RunDevice.objects.filter(job_id=job_id, device_id=device_id)
    rd.filter(status=RunStatus.DISPATCHED).update(status=RunStatus.RUNNING, last_heartbeat_at=now)
    run_ids = rd.values("run_id")
    Run.objects.filter(pk__in=run_ids, status=RunStatus.DISPATCHED).update(status=RunStatus.RUNNING)


def run_device_network_record(
    *, device_id: UUID | str, job_id: UUID | str, network: dict[str, Any]
) -> bool:
    """Keep the agent's proof that the run's network profile was enforced (its
    network_enforced event; docs/control-plane.md). False when no such job of the device."""
    return bool(
        RunDevice.objects.filter(job_id=job_id, device_id=device_id).update(network=network)
    )


def runs_fail_stale(*, now: datetime | None = None) -> int:
    """Fail runs whose devices went silent or never took their job (beat task)."""
    now = now or timezone.now()
    stale_after = timedelta(seconds=settings.RUN_HEARTBEAT_STALE_SECONDS)
    never_started = RunDevice.objects.filter(
        status=RunStatus.DISPATCHED,
        run__started_at__lt=now - timedelta(seconds=settings.JOB_TTL_SECONDS) - stale_after,
    ).select_related("device")
    silent = (
        RunDevice.objects.filter(
            status=RunStatus.RUNNING,
        )
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
        run_device_fail(run_device=rd, message=message)
        failed += 1
    return failed
