from __future__ import annotations

import hashlib
import logging
import secrets
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

from Crypto.PublicKey import ECC, RSA
from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone
from iotsecbench_agent.errors import AgentError
from iotsecbench_agent.oneway.controller import OneWayController
from iotsecbench_agent.oneway.controller import Target as OneWayTarget
from iotsecbench_agent.runners.jobspec import LinkSpec
from iotsecbench_agent.security import registry as agent_registry
from iotsecbench_agent.srup.keys import load_key as load_srup_key

from accounts.models import Workspace
from core.mqtt import BrokerUnavailable, mqtt_publish_many
from devices.broker import controller_link_fields, seal_for_device
from devices.models import Device
from devices.services import device_health_check, device_next_job_seq, job_header
from devices.signing import job_envelope
from experiments import estimate
from experiments.describe import describe
from experiments.errors import (
    DeviceNotInWorkspace,
    DevicesOffline,
    NetworkProfileNotEnforceable,
    RunAlreadyActive,
    RunNotCancellable,
    RunNotRetryable,
    TlsBrokerNotConfigured,
)
from experiments.matrix import Cell, Matrix, run_order
from experiments.matrix import build as build_matrix
from experiments.matrix import label as matrix_label
from experiments.models import (
    ACTIVE_STATUSES,
    FINISHED_STATUSES,
    SAMPLE_KINDS,
    CoapMethod,
    CoapType,
    Experiment,
    ExperimentKind,
    IntervalDistribution,
    Measurement,
    MqttVersion,
    Protocol,
    Run,
    RunDevice,
    RunStatus,
    SrupSignature,
    TopicIdType,
    Transport,
)
from netprofiles.models import DelayTable, NetworkProfile

logger = logging.getLogger(__name__)

DEVICE_NOT_IN_WORKSPACE_MESSAGE = "These devices are not in your workspace, or were revoked: {ids}."
DEVICES_OFFLINE_MESSAGE = (
    "These devices are offline: {names}. Start their agents (`iotsecbench-agent run`) and try "
    "again."
)
TLS_NOT_CONFIGURED_MESSAGE = (
    "This platform has no TLS broker: set MQTT_TLS_URL and MQTT_TLS_CA_FILE (make up does), "
    "or choose MQTT over TCP."
)
RUN_ALREADY_ACTIVE_MESSAGE = (
    "This experiment already has runs queued or in progress (the next is {run_id}): wait for "
    "them to finish, or cancel them, before starting it again."
)
NOT_ENFORCEABLE_MESSAGE = (
    "The network profile “{profile}” cannot be enforced on every device, so the run would "
    "not be measured under it. {devices}. Run those agents as root on Linux with "
    "/dev/net/tun (docs/network-emulation.md), or choose other devices or no profile."
)
NOT_ENFORCED_WARNING = (
    "Network profiles cannot be enforced on every device of this design, so starting it "
    "would be refused: {devices}. Run those agents as root on Linux with /dev/net/tun "
    "(docs/network-emulation.md), or choose other devices or no profile."
)
DEVICE_STALE_MESSAGE = (
    "Device {name} sent no heartbeat for {seconds} s during the run; its agent may have died"
)
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
    coap_type: str = CoapType.CON,
    coap_method: str = CoapMethod.GET,
    topic_id_type: str = TopicIdType.NORMAL,
    interval_distribution: str = IntervalDistribution.FIXED,
    kind: str = ExperimentKind.MESSAGING,
    mechanisms: Sequence[str] = (),
    data_sizes: Sequence[int] = (),
    repetitions: int = 100,
    window_ms: int = 2000,
    network_profile: NetworkProfile | None = None,
    axes: Sequence[dict[str, Any]] = (),
    exclusions: Sequence[Cell] = (),
    repeats: int = 1,
    description: str = "",
    preset: str = "",
) -> Experiment:
    """Create a design. ``axes`` and ``exclusions`` are already checked and canonical
    (experiments.matrix.build, as the API's serializer does)."""
    axis_devices = {
        str(i) for axis in axes for value in axis["values"] for i in value.get("device_ids", ())
    }
    wanted = {str(i) for i in device_ids} | axis_devices
    devices_found = list(
        Device.objects.filter(workspace=workspace, pk__in=wanted, revoked_at__isnull=True)
    )
    devices = [d for d in devices_found if str(d.pk) in {str(i) for i in device_ids}]
    missing = sorted(wanted - {str(d.pk) for d in devices_found})
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
        coap_type=coap_type,
        coap_method=coap_method,
        topic_id_type=topic_id_type,
        interval_distribution=interval_distribution,
        kind=kind,
        mechanisms=list(mechanisms),
        data_sizes=list(data_sizes),
        repetitions=repetitions,
        window_ms=window_ms,
        network_profile=network_profile,
        axes=list(axes),
        exclusions=list(exclusions),
        repeats=repeats,
        description=description,
        preset=preset,
    )
    transports = {transport} | {
        value["transport"] for axis in axes for value in axis["values"] if "transport" in value
    }
    if transports != {Transport.TCP} and not (settings.MQTT_TLS_URL and settings.MQTT_TLS_CA_FILE):
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
    if experiment.protocol == Protocol.COAP:
        protocol_fields: dict[str, Any] = {
            "coap_type": experiment.coap_type,
            "coap_method": experiment.coap_method,
        }
    elif experiment.protocol == Protocol.MQTTSN:
        protocol_fields = {"topic_id_type": experiment.topic_id_type}
    else:
        protocol_fields = {}
    transport: dict[str, Any] = {"broker_url": settings.MQTT_DATA_URL, **protocol_fields}
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


def _design(experiment: Experiment, cell: Cell, profiles: dict[str, NetworkProfile]) -> Experiment:
    """The experiment as one run of its matrix sees it: a fresh, unsaved copy with the
    cell's values in place of the fixed ones (device_ids are the caller's)."""
    design = Experiment(
        **{f.attname: getattr(experiment, f.attname) for f in Experiment._meta.concrete_fields}
    )
    for parameter, value in cell.items():
        if parameter == "network_profile":
            design.network_profile = None if value is None else profiles[str(value)]
        elif parameter != "device_ids":
            setattr(design, parameter, value)
    if "network_profile" not in cell:
        design.network_profile = experiment.network_profile
    return design


def _no_check(parameter: str, value: Any) -> Any:
    return value


@transaction.atomic
def experiment_start(*, experiment: Experiment) -> list[Run]:
    """Queue every run of the experiment's matrix (each combination x repeats, in
    matrix.run_order). The scheduler (runs_schedule) starts them one after another, never
    two on one device at a time. Refused, before anything is queued, while runs of the
    experiment are queued or active, when a device is offline, or when a network profile
    cannot be enforced on a device."""
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
    for position, (repeat, cell) in enumerate(run_order(matrix.cells, experiment.repeats)):
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


def _require_enforceable(profile: NetworkProfile, devices: Sequence[Device]) -> None:
    unable = _unable_to_enforce(devices)
    if unable:
        raise NetworkProfileNotEnforceable(
            NOT_ENFORCEABLE_MESSAGE.format(profile=profile.name, devices=_reasons(unable)),
            extra={"devices": sorted(unable)},
        )


def _unable_to_enforce(devices: Iterable[Device]) -> dict[str, str]:
    """{device name: why it cannot enforce a network profile} for those that cannot."""
    return {d.name: reason for d in devices if (reason := _cannot_enforce(d)) is not None}


def _reasons(unable: Mapping[str, str]) -> str:
    return "; ".join(f"{name}: {why}" for name, why in unable.items())


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
        busy_experiments = set(
            Run.objects.filter(status__in=ACTIVE_STATUSES).values_list("experiment_id", flat=True)
        )
        busy_devices = set(
            RunDevice.objects.filter(run__status__in=ACTIVE_STATUSES).values_list(
                "device_id", flat=True
            )
        )
        queued = Run.objects.filter(status=RunStatus.QUEUED).order_by("queued_at", "position")
        for run in queued.prefetch_related("run_devices"):
            devices = {rd.device_id for rd in run.run_devices.all()}
            if run.experiment_id in busy_experiments or devices & busy_devices:
                continue
            claimed = Run.objects.filter(pk=run.pk, status=RunStatus.QUEUED).update(
                status=RunStatus.PREPARING, started_at=timezone.now()
            )
            if claimed:
                busy_experiments.add(run.experiment_id)
                busy_devices |= devices
                started.append(str(run.pk))
        for run_id in started:
            logger.info("experiments.run_started run=%s", run_id)
            transaction.on_commit(partial(run_prepare_task.delay, run_id))
    return started


def schedule_soon() -> None:
    """Ask the worker to start what can start, once the current transaction commits."""
    from experiments.tasks import runs_schedule_task

    transaction.on_commit(lambda: runs_schedule_task.delay())


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
        messages.append((f"iotsecbench/agents/{part.device_id}/jobs", job_envelope(job), 1, False))
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
        retry_of=run,
    )
    total = RunDevice.objects.filter(run=run).values_list("total", flat=True).first() or 0
    RunDevice.objects.bulk_create(
        RunDevice(run=retry, device=d, total=total, facts=d.facts) for d in devices
    )
    schedule_soon()
    return retry


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
    job = job_header(
        device_id=device_id,
        seq=seq,
        job_id=str(run_device.job_id),
        run_id=str(run.pk),
        kind=run.experiment.kind,
        now=now,
    )
    if run.experiment.kind in SAMPLE_KINDS:
        job["spec"] = run.spec
        job["upload"] = {"url": f"{base_url}/samples/", "chunk_samples": UPLOAD_CHUNK_SAMPLES}
    else:
        # SRUP's round-trip topic is SRUP/<device id>, derived by the agent
        # (device-agent/docs/srup.md); a one-way receiver listens where the platform's
        # controller sends (run_oneway_send).
        one_way = run.spec.get("measurement") == Measurement.ONE_WAY
        srup = run.spec.get("protocol") == Protocol.SRUP and not one_way
        topic = {} if srup else {"topic": f"iotsecbench/data/{run.pk}/{device_id}"}
        if run.spec.get("protocol") == Protocol.MQTTSN:
            topic = _mqttsn_topic(run.spec, f"{run.pk}/{device_id}", topic["topic"])
        job["spec"] = {**run.spec, **topic}
        if "network_profile" in run.spec:
            job["spec"]["network_profile"] = _network_profile_job(run.spec["network_profile"])
        if one_way:
            job["spec"].update(_one_way_job(run, run_device))
        job["upload"] = {"url": f"{base_url}/records/", "chunk_records": UPLOAD_CHUNK_RECORDS}
    return job


# How long a one-way receiver waits at most, beyond the schedule's expected length.
ONE_WAY_DEADLINE_SLACK_S = 60


# SRUP's signatures as the agent registry's signature mechanisms (the same keys).
_SRUP_MECHANISMS = {
    SrupSignature.RSA_2048: "rsa-2048-pkcs1v15",
    SrupSignature.RSA_4096: "rsa-4096-pkcs1v15",
    SrupSignature.ED25519: "ed25519",
}


def _signing_key(mechanism: str) -> RSA.RsaKey | ECC.EccKey:
    """A fresh private key for a signature mechanism of the agent registry."""
    info = agent_registry.describe(mechanism)
    if info.name.startswith("rsa-"):
        return RSA.generate(info.key_bits)
    return ECC.generate(curve="ed25519" if info.name == "ed25519" else "P-256")


def _controller_secrets(design: Experiment) -> dict[str, Any]:
    """A one-way run's keys, made per run and never shown by the API (Run.controller): the
    payload key the platform secures with and the devices unsecure with (for a signature,
    a key pair: the devices get its public half), or the SRUP controller's key pair and
    sender id."""
    if design.kind != ExperimentKind.MESSAGING or design.measurement != Measurement.ONE_WAY:
        return {}
    if design.protocol == Protocol.SRUP:
        key = _signing_key(_SRUP_MECHANISMS[SrupSignature(design.srup_signature)])
        return {
            "srup_private_key": _pem(key.export_key(format="PEM")),
            "srup_public_key": _pem(key.public_key().export_key(format="PEM")),
            "srup_controller_id": f"{secrets.randbits(64):016x}",
        }
    if design.security in ("none", "null"):
        return {}
    info = agent_registry.describe(design.security)
    if info.kind == "signature":
        # The controller signs; the devices get the public key only (security_key).
        pair = _signing_key(info.name)
        return {
            "security_key": pair.public_key().export_key(format="DER").hex(),
            "security_private_key": pair.export_key(format="DER").hex(),
        }
    return {"security_key": secrets.token_hex(info.key_bytes or 32)}


def _pem(exported: str | bytes) -> str:
    """pycryptodome exports RSA PEM as bytes and ECC PEM as text."""
    return exported.decode() if isinstance(exported, bytes) else exported


def _one_way_job(run: Run, part: RunDevice) -> dict[str, Any]:
    """What a one-way receiver needs besides the shared spec (docs/control-plane.md §5).
    A shared payload key goes sealed to the device's broker key (devices/broker.py), so
    only that device reads it; a signature's public key goes as it is."""
    spec = run.spec
    devices = RunDevice.objects.filter(run=run).count()
    expected_s = spec["message_count"] * devices * spec["interval_ms"] / 1000
    fields: dict[str, Any] = {
        "time_url": f"{settings.PLATFORM_PUBLIC_URL}/api/agent/time/",
        "oneway_deadline_s": 2 * expected_s + ONE_WAY_DEADLINE_SLACK_S,
    }
    controller = run.controller
    key = controller.get("security_key")
    # With a signature's private half beside it, the key is the public half: no secret.
    if key is not None and "security_private_key" not in controller:
        context = f"{run.pk}/{part.device_id}"
        sealed = seal_for_device(part.device, bytes.fromhex(key), context=context)
        fields.update({"security_key": key} if sealed is None else {"security_key_sealed": sealed})
    elif key is not None:
        fields["security_key"] = key
    if "srup_public_key" in controller:
        fields["srup_controller_public_key"] = controller["srup_public_key"]
        fields["srup_controller_id"] = controller["srup_controller_id"]
    return fields


ONE_WAY_SEND_FAILED_MESSAGE = "The platform could not send the one-way messages: {error}"


def oneway_targets(run: Run) -> list[OneWayTarget]:
    """What the controller of a one-way run sends to, device by device, and how it secures
    the messages: the run's shared key, a payload signature's private key, or the SRUP
    controller's signer."""
    spec, controller = run.spec, run.controller
    signer = None
    if spec["protocol"] == Protocol.SRUP:
        signer = load_srup_key(
            spec["srup_signature"], controller["srup_private_key"].encode(), slot="controller"
        ).signer
    secret = controller.get("security_private_key", controller.get("security_key"))
    key = bytes.fromhex(secret) if secret is not None else None
    return [
        OneWayTarget(
            topic=f"iotsecbench/data/{run.pk}/{part.device_id}",
            security=spec["security"] if signer is None else "none",
            key=key,
            srup_signer=signer,
        )
        for part in RunDevice.objects.filter(run=run).order_by("device__name")
    ]


def run_oneway_send(*, run_id: UUID | str) -> int:
    """The controller of a one-way run (device-agent oneway/controller.py): sends each
    device its messages, in random device order at the design's intervals, then the END
    markers; stops early when the run is cancelled or fails. Returns the messages sent.

    A lost broker connection is ridden out within ``reconnect_budget_s`` (default 30 s):
    the messages that fell due meanwhile are skipped (their devices record them lost),
    logged per device; past the budget the run fails."""
    run = Run.objects.get(pk=run_id)
    if run.status in FINISHED_STATUSES:
        return 0
    spec, controller = run.spec, run.controller
    targets = oneway_targets(run)
    sender = controller.get("srup_controller_id")
    link_fields = (
        "broker_url",
        "mqtt_version",
        "qos",
        "tls_version",
        "ca_cert",
        "reconnect_budget_s",
    )
    link = LinkSpec.parse(controller_link_fields({k: spec[k] for k in link_fields if k in spec}))
    stop = threading.Event()
    watcher = threading.Thread(target=_stop_when_finished, args=(run.pk, stop), daemon=True)
    watcher.start()
    try:
        results = OneWayController(
            link,
            targets,
            message_count=spec["message_count"],
            payload_size=spec["payload_size"],
            interval_ms=float(spec["interval_ms"]),
            interval_distribution=spec["interval_distribution"],
            interval_seed=spec.get("interval_seed"),
            srup_sender_id=int(sender, 16) if sender is not None else None,
            stop=stop,
            run_id=str(run.pk),
        ).run()
    except (AgentError, ValueError) as exc:
        run_fail(run_id=run.pk, message=ONE_WAY_SEND_FAILED_MESSAGE.format(error=exc))
        return 0
    finally:
        stop.set()
    sent = sum(r.sent for r in results)
    skipped = sum(len(r.skipped) for r in results)
    logger.info("experiments.oneway_sent run=%s messages=%d skipped=%d", run.pk, sent, skipped)
    for result in results:
        if result.skipped:
            # Fell due while the broker connection was lost: never sent, recorded lost.
            logger.info(
                "experiments.oneway_skipped run=%s topic=%s skipped=%d",
                run.pk,
                result.topic,
                len(result.skipped),
            )
    return sent


def _stop_when_finished(run_id: UUID, stop: threading.Event) -> None:
    from django.db import close_old_connections

    try:
        while not stop.wait(1.0):
            status = Run.objects.values_list("status", flat=True).get(pk=run_id)
            if status in FINISHED_STATUSES:
                stop.set()
    finally:
        close_old_connections()


_SHORT_TOPIC_CHARS = "0123456789abcdefghijklmnopqrstuvwxyz"


def _mqttsn_topic(spec: dict[str, Any], key: str, topic: str) -> dict[str, Any]:
    """The MQTT-SN topic of one device's part (device-agent/docs/mqttsn.md): a normal
    topic is registered by name; a short one is two characters and a predefined one an id
    (1..65534), both drawn from the run and device so that two parts rarely share one (a
    clash would only mix two devices' echoes on a shared broker, never the wire format)."""
    digest = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")
    if spec.get("topic_id_type") == TopicIdType.SHORT:
        first, second = divmod(digest % len(_SHORT_TOPIC_CHARS) ** 2, len(_SHORT_TOPIC_CHARS))
        return {"topic": _SHORT_TOPIC_CHARS[first] + _SHORT_TOPIC_CHARS[second]}
    if spec.get("topic_id_type") == TopicIdType.PREDEFINED:
        return {"topic": topic, "mqttsn_topic_id": 1 + digest % 65534}
    return {"topic": topic}


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
    if run.status != RunStatus.PREPARING:
        return 0  # not started by the scheduler yet, or already cancelled/failed
    pending = list(
        RunDevice.objects.filter(run=run, status=RunStatus.QUEUED).select_related("run__experiment")
    )
    for run_device in pending:
        seq = device_next_job_seq(device_id=str(run_device.device_id))
        job = _job_for(run_device, seq=seq, now=time.time())
        topic = f"iotsecbench/agents/{run_device.device_id}/jobs"
        mqtt_publish_many([(topic, job_envelope(job), 1, False)])
        RunDevice.objects.filter(pk=run_device.pk, status=RunStatus.QUEUED).update(
            status=RunStatus.PREPARING, job_seq=seq
        )
        logger.info(
            "experiments.job_dispatched run=%s device=%s seq=%s", run.pk, run_device.device_id, seq
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
        schedule_soon()  # its devices are free for the next queued run
    return changed == 1


DEVICE_OFFLINE_AT_START_MESSAGE = (
    "{names} went offline before the run could start. Start the agent(s) again and retry the run."
)


HEALTH_FAILED_MESSAGE = (
    "{name} failed its health check before the run ({why}). Open it on the Devices page, fix "
    "what failed, then retry the run."
)
HEALTH_TIMEOUT_MESSAGE = (
    "{names} did not answer the health check before the run within {seconds} s; is the agent "
    "running, connected and up to date? Retry the run once it is."
)


def run_prepare(*, run_id: UUID | str) -> int:
    """The run's preparing step, once the scheduler started it: every device must be online
    and pass a fresh health check (devices.services.device_health_check) before its job goes
    out; run_health_answered continues when the answers arrive. Returns the number of
    checks asked for."""
    run = Run.objects.get(pk=run_id)
    if run.status != RunStatus.PREPARING:
        return 0
    devices = list(Device.objects.filter(run_devices__run=run).order_by("name"))
    offline = [d.name for d in devices if not d.online]
    if offline:
        message = DEVICE_OFFLINE_AT_START_MESSAGE.format(names=", ".join(offline))
        run_fail(run_id=run.pk, message=message)
        return 0
    for device in devices:
        device_health_check(device=device, run_id=str(run.pk))
    return len(devices)


def run_health_answered(*, device_id: UUID | str) -> None:
    """A device answered a health check: if a preparing run waits for it, fail the run when
    the device failed (saying what failed), or dispatch it once every device passed."""
    from experiments.tasks import run_dispatch_task

    health = Device.objects.values_list("health", flat=True).get(pk=device_id)
    run_id = health.get("run_id")
    if not run_id:
        return
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=run_id, status=RunStatus.PREPARING)
        if not run.exists():
            return
        parts = list(RunDevice.objects.filter(run_id=run_id).select_related("device"))
        if any(p.status != RunStatus.QUEUED for p in parts):
            return  # already dispatched
        for part in parts:
            answer = part.device.health
            if answer.get("run_id") == run_id and answer.get("status") == "failed":
                failed = [c for c in answer.get("checks", []) if not c.get("ok")]
                why = "; ".join(f"{c['name']}: {c['detail']}" for c in failed)
                message = HEALTH_FAILED_MESSAGE.format(
                    name=part.device.name, why=why or answer.get("error") or "no detail"
                )
                run_fail(run_id=run_id, message=message)
                return
        if all(
            p.device.health.get("run_id") == run_id and p.device.health.get("status") == "passed"
            for p in parts
        ):
            transaction.on_commit(partial(run_dispatch_task.delay, run_id))


def run_device_fail(*, run_device: RunDevice, message: str) -> None:
    """A device's part ended early (its agent reported why, it went silent, or its records
    were refused): keep the reason and settle the part. What the device measured is never
    discarded, and the other devices' parts go on: the run ends when every part has."""
    RunDevice.objects.filter(pk=run_device.pk).update(error=message, ended=True)
    run_device_settle(run_device_id=run_device.pk)


PART_PARTIAL_MESSAGE = "{done} of {total} planned {unit} measured and stored"
PART_WAITING_MESSAGE = (
    "{sent} of {total} {unit} measured on the device, none stored yet: its log stays on the "
    "device and is stored when its agent uploads it"
)


def _unit(run_device: RunDevice) -> str:
    return "samples" if run_device.run.experiment.kind in SAMPLE_KINDS else "messages"


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
        if part.sent > part.records_ingested and "none stored yet" not in error:
            waiting = PART_WAITING_MESSAGE.format(sent=part.sent, total=part.total, unit=unit)
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
    from measurements.services.summary import summarize
    from results.tasks import run_round_trips_warm_task  # results reads measurements

    run = Run.objects.select_for_update().get(pk=run_id)
    parts = list(RunDevice.objects.filter(run_id=run_id).select_related("device"))
    if run.status in (RunStatus.QUEUED, RunStatus.PREPARING) or not parts:
        return str(run.status)
    if any(p.status not in FINISHED_STATUSES for p in parts):
        return str(run.status)
    statuses = {p.status for p in parts}
    if run.status == RunStatus.CANCELLED:
        status, error = RunStatus.CANCELLED, run.error
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
        summarize(run_id=run_id)
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
        schedule_soon()  # its devices are free for the next queued run
    if status == RunStatus.DONE:
        # The results pages read a completed run's round trips from a cache; fill it now
        # rather than on the first view (docs/results.md).
        transaction.on_commit(partial(run_round_trips_warm_task.delay, str(run_id)))
    return str(status)


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
    estimated_seconds: float
    warnings: list[str]


PLAN_RUNS_LISTED = 200


def design_plan(*, workspace: Workspace, attrs: dict[str, Any], matrix: Matrix) -> DesignPlan:
    """The runs a checked design expands to (``attrs``: the API's validated design), each
    with its label and estimated duration (experiments.estimate), and the warnings."""
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
    devices = {str(d.pk): d for d in Device.objects.filter(workspace=workspace, pk__in=device_ids)}
    names = {
        **{k: d.name for k, d in devices.items()},
        **{k: p.name for k, p in profiles.items()},
    }
    designs: list[dict[str, Any]] = []
    runs: list[PlannedRun] = []
    total = 0.0
    for position, (repeat, cell) in enumerate(run_order(matrix.cells, attrs["repeats"])):
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
