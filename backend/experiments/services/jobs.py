"""A started run's preparing step (health checks) and its signed jobs, built and published to
the devices.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import partial
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import transaction
from iotsecbench_contract.benchspec import CipherBenchSpec, ThroughputSpec
from iotsecbench_contract.jobspec import (
    RECORDS,
    SAMPLES,
    DataTopic,
    NetworkProfileJob,
    Upload,
)
from iotsecbench_contract.topics import data_topic, jobs_topic

from core.mqtt import mqtt_publish_many
from devices.models import Device
from devices.services import device_health_check, device_next_job_seq, job_header
from devices.signing import job_envelope
from experiments.addressing import resolve_topic
from experiments.models import (
    ExperimentKind,
    Measurement,
    Protocol,
    Run,
    RunDevice,
    RunStatus,
    TopicIdType,
)
from experiments.services.oneway import _one_way_job
from experiments.services.scheduling import run_fail
from experiments.services.targets import (
    SERVING,
    TARGET_OFFLINE_MESSAGE,
    target_dispatch,
    target_message,
    target_role,
    target_waiting,
)
from netprofiles.models import DelayTable

logger = logging.getLogger(__name__)

# Records per upload request (~1.1 MB of CSV): large enough that per-chunk costs (request,
# transaction, bookkeeping) stay small next to the COPY itself (docs/benchmarks.md).
UPLOAD_CHUNK_RECORDS = 20_000
UPLOAD_CHUNK_SAMPLES = 5_000
DEVICE_OFFLINE_AT_START_MESSAGE = (
    "{names} went offline before the run could start. Start the agent(s) again and retry the run."
)
HEALTH_FAILED_MESSAGE = (
    "{name} failed its health check before the run ({why}). Open it on the Devices page, fix "
    "what failed, then retry the run."
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
    target_id = run.spec.get("target_device")
    if target_id:
        target = Device.objects.get(pk=target_id)
        if not target.online or target.revoked_at is not None:
            role = target_role(run.spec)
            run_fail(
                run_id=run.pk,
                message=target_message(TARGET_OFFLINE_MESSAGE, device=target, role=role),
            )
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


def run_dispatch(*, run_id: UUID | str) -> int:
    """Sign and publish the job of every device of the run not dispatched yet.

    Idempotent: a retry after a broker failure publishes only the devices still pending, and
    each publish gets a fresh sequence number (an agent never sees a seq twice).
    Returns the number of jobs published.
    """
    run = Run.objects.get(pk=run_id)
    if run.status != RunStatus.PREPARING:
        return 0  # not started by the scheduler yet, or already cancelled/failed
    if target_waiting(run):
        # The target device serves first; its target_serving event dispatches again.
        target_dispatch(run_id=run.pk, spec=_serve_spec(run))
        return 0
    pending = list(
        RunDevice.objects.filter(run=run, status=RunStatus.QUEUED).select_related("run__experiment")
    )
    for run_device in pending:
        seq = device_next_job_seq(device_id=str(run_device.device_id))
        job = _job_for(run_device, seq=seq, now=time.time())
        topic = jobs_topic(str(run_device.device_id))
        mqtt_publish_many([(topic, job_envelope(job), 1, False)])
        RunDevice.objects.filter(pk=run_device.pk, status=RunStatus.QUEUED).update(
            status=RunStatus.PREPARING, job_seq=seq
        )
        logger.info(
            "experiments.job_dispatched run=%s device=%s seq=%s", run.pk, run_device.device_id, seq
        )
    return len(pending)


def _job_for(run_device: RunDevice, *, seq: int, now: float) -> dict[str, Any]:
    """The signed-to-be job of one device's part: the header, then what its benchmark kind
    puts in ``spec`` and ``upload`` (BENCHMARK_KINDS)."""
    run = run_device.run
    kind = BENCHMARK_KINDS[run.experiment.kind]
    job = job_header(
        device_id=str(run_device.device_id),
        seq=seq,
        job_id=str(run_device.job_id),
        run_id=str(run.pk),
        kind=run.experiment.kind,
        now=now,
    )
    job["spec"] = kind.spec(run_device)
    run_url = f"{settings.PLATFORM_PUBLIC_URL}/api/agent/runs/{run.pk}"
    job["upload"] = Upload(run_url=run_url, what=kind.upload, chunk=kind.chunk).to_dict()
    return job


@dataclass(frozen=True)
class BenchmarkKind:
    """How the platform builds one benchmark kind's jobs: the part's ``spec`` and what its
    agent uploads (records or samples, in chunks of ``chunk``)."""

    spec: Callable[[RunDevice], dict[str, Any]]
    upload: str
    chunk: int


def _messaging_spec(run_device: RunDevice) -> dict[str, Any]:
    """A messaging part: the design's fields, the part's data topic, the network profile
    with its tables, and a one-way receiver's fields."""
    run = run_device.run
    spec: dict[str, Any] = dict(run.spec)
    spec.update(_data_topic(run, str(run_device.device_id)).to_dict())
    if "network_profile" in run.spec:
        spec["network_profile"] = _network_profile_job(run.spec["network_profile"]).to_dict()
    if run.spec.get("measurement") == Measurement.ONE_WAY:
        spec.update(_one_way_job(run, run_device).to_dict())
    if spec.pop("target_device", None) is not None:
        spec.pop("target_host", None)
        spec.update(_target_address(run))
    return spec


def _target_address(run: Run) -> dict[str, str]:
    """Where a client of a run with a target device is sent: the address its serve job
    reported (experiments.services.targets)."""
    if run.target.get("status") != SERVING:
        raise RuntimeError(f"run {run.pk}: its target device is not serving")
    address = str(run.target["address"])
    if run.spec["protocol"] == Protocol.COAP:
        return {"coap_url": f"coap://{address}"}
    return {"mqttsn_gateway": address}


def _serve_spec(run: Run) -> dict[str, Any]:
    """The target device's serve job: its role, the platform's data broker (a gateway's
    upstream; the device adds its own credentials), the CoAP path, the MQTT-SN predefined
    topic ids of every client, the design's target_host."""
    role = target_role(run.spec)
    spec: dict[str, Any] = {"role": role, "broker_url": run.spec["broker_url"]}
    if run.spec.get("coap_path"):
        spec["coap_path"] = run.spec["coap_path"]
    if run.spec.get("target_host"):
        spec["advertise_host"] = run.spec["target_host"]
    if "reconnect_budget_s" in run.spec:
        spec["reconnect_budget_s"] = run.spec["reconnect_budget_s"]
    if run.spec.get("topic_id_type") == TopicIdType.PREDEFINED:
        clients = RunDevice.objects.filter(run=run).values_list("device_id", flat=True)
        topics = [_data_topic(run, str(device_id)) for device_id in clients]
        spec["predefined"] = {str(t.mqttsn_topic_id): t.topic for t in topics}
    return spec


def _sample_spec(
    parse: Callable[[Mapping[str, Any]], CipherBenchSpec | ThroughputSpec],
) -> Callable[[RunDevice], dict[str, Any]]:
    """A sample kind's part: the run's frozen spec through the kind's contract dataclass
    (docs/control-plane.md §7, §8), its fields in the frozen spec's order (as stored)."""

    def spec(run_device: RunDevice) -> dict[str, Any]:
        frozen = run_device.run.spec
        fields = parse(frozen).to_dict()
        return {key: fields[key] for key in sorted(fields, key=_order(frozen))}

    return spec


def _order(frozen: Mapping[str, Any]) -> Callable[[str], int]:
    keys = list(frozen)
    return lambda key: keys.index(key) if key in keys else len(keys)


BENCHMARK_KINDS: dict[str, BenchmarkKind] = {
    ExperimentKind.MESSAGING: BenchmarkKind(_messaging_spec, RECORDS, UPLOAD_CHUNK_RECORDS),
    ExperimentKind.CIPHER_BENCH: BenchmarkKind(
        _sample_spec(CipherBenchSpec.parse), SAMPLES, UPLOAD_CHUNK_SAMPLES
    ),
    ExperimentKind.THROUGHPUT: BenchmarkKind(
        _sample_spec(ThroughputSpec.parse), SAMPLES, UPLOAD_CHUNK_SAMPLES
    ),
}


def _data_topic(run: Run, device_id: str) -> DataTopic:
    """SRUP's round-trip topic is SRUP/<device id>, derived by the agent
    (device-agent/docs/srup.md); a one-way receiver listens where the platform's controller
    sends (run_oneway_send)."""
    one_way = run.spec.get("measurement") == Measurement.ONE_WAY
    if run.spec.get("protocol") == Protocol.SRUP and not one_way:
        return DataTopic(topic=None)
    if run.spec.get("topic"):  # the design's own (experiments.addressing)
        return DataTopic(topic=resolve_topic(run.spec["topic"], device_id))
    topic = data_topic(run.pk, device_id)
    if run.spec.get("target_device"):
        # The target gateway's broker identity publishes it: a topic whose last level is
        # the gateway's own id (devices.broker.data_topics), one per client.
        topic = f"{topic}/{run.spec['target_device']}"
    if run.spec.get("protocol") == Protocol.MQTTSN:
        return _mqttsn_topic(run.spec, f"{run.pk}/{device_id}", topic)
    return DataTopic(topic=topic)


_SHORT_TOPIC_CHARS = "0123456789abcdefghijklmnopqrstuvwxyz"


def _mqttsn_topic(spec: dict[str, Any], key: str, topic: str) -> DataTopic:
    """The MQTT-SN topic of one device's part (device-agent/docs/mqttsn.md): a normal
    topic is registered by name; a short one is two characters and a predefined one an id
    (1..65534), both drawn from the run and device so that two parts rarely share one (a
    clash would only mix two devices' echoes on a shared broker, never the wire format)."""
    digest = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")
    given = spec.get("mqttsn_topic_id")
    if spec.get("topic_id_type") == TopicIdType.SHORT:
        first, second = divmod(digest % len(_SHORT_TOPIC_CHARS) ** 2, len(_SHORT_TOPIC_CHARS))
        return DataTopic(topic=_SHORT_TOPIC_CHARS[first] + _SHORT_TOPIC_CHARS[second])
    if spec.get("topic_id_type") == TopicIdType.PREDEFINED:
        chosen = given if isinstance(given, int) else 1 + digest % 65534
        return DataTopic(topic=topic, mqttsn_topic_id=chosen)
    return DataTopic(topic=topic)


def _network_profile_job(frozen: dict[str, Any]) -> NetworkProfileJob:
    """The run's network profile as the agent takes it (docs/control-plane.md): with the
    values of every measured table its spec names, so an installed agent needs no copy."""
    profile = NetworkProfileJob(name=frozen["name"], spec=frozen["spec"])
    tables = DelayTable.objects.filter(name__in=profile.table_names())
    return replace(profile, tables={t.name: list(t.values) for t in tables})
