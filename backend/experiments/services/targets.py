"""A run's target device: another enrolled device of the workspace that serves the run, as
the MQTT-SN paper's gateway Pi (role ``gateway``) or a CoAP server (role ``server``)
(docs/experiment-design.md "Topics and targets").

The life of a target, kept in ``Run.target``:

1. The run is prepared as any other (its clients are health-checked); the target must be
   online (experiments.services.jobs.run_prepare).
2. Before the clients' jobs, the target gets a signed ``serve`` job (``target_dispatch``):
   its role, the platform's data broker (the gateway's upstream, with the target's own
   credentials added on the device: no secret in the job), the CoAP path or the MQTT-SN
   predefined topic ids, and the design's ``target_host`` if any. ``status: starting``.
3. The agent answers ``target_serving`` with the address it listens on ("host:port": its
   address on the route to the broker, or target_host): ``status: serving``, and the
   clients' jobs go out with it as their ``mqttsn_gateway`` or ``coap_url``
   (``target_serving``). Or it answers ``target_failed``: the run fails saying so.
4. When the run ends, however it ends, the serve job is cancelled (``target_release``).
   A target that goes offline while the run is active fails the run saying so
   (``targets_offline``), and so does one that never answers (experiments.services.
   agent_events.runs_fail_stale).
5. A target that stays online but stops answering is seen by its clients only (device-agent
   runners/target_watch.py): a client ends its part with a message naming the target's
   address, and ``target_named`` adds the target device's name to it.
"""

from __future__ import annotations

import logging
import time
from functools import partial
from typing import Any
from uuid import UUID, uuid4

from django.db import transaction
from iotsecbench_contract import topics
from iotsecbench_contract.jobspec import SERVE

from core.mqtt import BrokerUnavailable, mqtt_publish_many
from devices.models import Device
from devices.services import device_next_job_seq, job_header
from devices.signing import job_envelope
from experiments.models import ACTIVE_STATUSES, FINISHED_STATUSES, Protocol, Run, RunDevice
from experiments.services.scheduling import _publish_cancel, run_fail

logger = logging.getLogger(__name__)

STARTING = "starting"
SERVING = "serving"
FAILED = "failed"
RELEASED = "released"
ROLES = {Protocol.MQTTSN: "gateway", Protocol.COAP: "server"}
ROLE_NAMES = {"gateway": "MQTT-SN gateway", "server": "CoAP server"}

TARGET_OFFLINE_MESSAGE = (
    "Target device {name} (the run's {role}) is offline. Start its agent again and retry the run."
)
TARGET_WENT_OFFLINE_MESSAGE = (
    "Target device {name} (the run's {role}) went offline during the run; the clients were "
    "stopped. Start its agent again and retry the run."
)
TARGET_FAILED_MESSAGE = "Target device {name} could not serve as the run's {role}: {why}"
TARGET_SILENT_MESSAGE = (
    "Target device {name} did not start serving as the run's {role} within {seconds} s; is "
    "its agent running, connected and up to date?"
)


TARGET_NAMED_MESSAGE = "{message} (target device {name}, the run's {role})"


def target_named(*, run: Run, message: str) -> str:
    """A client's failure that names the address its run's target device serves at (e.g. "the
    run's MQTT-SN gateway at 10.0.0.5:10000 stopped answering") names the device too;
    any other message is returned as it is."""
    address = run.target.get("address")
    if not address or str(address) not in message:
        return message
    device = Device.objects.filter(pk=run.target.get("device_id")).first()
    if device is None:
        return message
    role = str(run.target.get("role"))
    return target_message(TARGET_NAMED_MESSAGE, device=device, role=role, message=message)


def target_role(spec: dict[str, Any]) -> str:
    return ROLES[Protocol(spec["protocol"])]


def target_message(template: str, *, device: Device, role: str, **more: Any) -> str:
    return template.format(name=device.name, role=ROLE_NAMES.get(role, role), **more)


def target_waiting(run: Run) -> bool:
    """Whether the run's clients wait for its target device (not serving yet)."""
    return bool(run.spec.get("target_device")) and run.target.get("status") != SERVING


@transaction.atomic
def target_dispatch(*, run_id: UUID | str, spec: dict[str, Any]) -> bool:
    """Send the run's target device its serve job with ``spec`` (once). Returns whether a
    job was published."""
    run = Run.objects.select_for_update().get(pk=run_id)
    if run.target.get("job_id") or run.status in FINISHED_STATUSES:
        return False
    device_id = str(run.spec["target_device"])
    job_id = str(uuid4())
    header = job_header(
        device_id=device_id,
        seq=device_next_job_seq(device_id=device_id),
        job_id=job_id,
        run_id=str(run.pk),
        kind=SERVE,
        now=time.time(),
    )
    job = {**header, "spec": spec}
    run.target = {"device_id": device_id, "role": spec["role"], "job_id": job_id}
    run.target["status"] = STARTING
    Run.objects.filter(pk=run.pk).update(target=run.target)
    message = (topics.jobs_topic(device_id), job_envelope(job), 1, False)
    transaction.on_commit(partial(mqtt_publish_many, [message]))
    logger.info("experiments.target_dispatched run=%s device=%s", run.pk, device_id)
    return True


def target_serving(*, device_id: UUID | str, job_id: str, address: str) -> bool:
    """The target serves at ``address``: the run's clients' jobs go out."""
    from experiments.tasks import run_dispatch_task

    with transaction.atomic():
        run = _run_of(device_id, job_id)
        if run is None or run.target.get("status") != STARTING:
            return False
        run.target.update(status=SERVING, address=address)
        Run.objects.filter(pk=run.pk).update(target=run.target)
        transaction.on_commit(partial(run_dispatch_task.delay, str(run.pk)))
    logger.info("experiments.target_serving run=%s address=%s", run.pk, address)
    return True


def target_failed(*, device_id: UUID | str, job_id: str, why: str) -> bool:
    """The target could not serve (or stopped): the run fails saying so."""
    with transaction.atomic():
        run = _run_of(device_id, job_id)
        if run is None or run.target.get("status") in (FAILED, RELEASED):
            return False
        device = Device.objects.get(pk=device_id)
        role = str(run.target.get("role"))
        message = target_message(TARGET_FAILED_MESSAGE, device=device, role=role, why=why)
        run_target_fail(run=run, message=message)
    return True


def targets_offline(*, device_id: UUID | str) -> int:
    """A device went offline: fail the active runs it serves as their target."""
    runs = Run.objects.filter(target__device_id=str(device_id), status__in=ACTIVE_STATUSES).exclude(
        target__status__in=[FAILED, RELEASED]
    )
    failed = 0
    for run in runs:
        device = Device.objects.get(pk=device_id)
        role = str(run.target.get("role"))
        message = target_message(TARGET_WENT_OFFLINE_MESSAGE, device=device, role=role)
        with transaction.atomic():
            run_target_fail(run=run, message=message)
        failed += 1
    return failed


def run_target_fail(*, run: Run, message: str) -> None:
    """Fail a run because of its target: the clients are told to stop (what they measured
    is still uploaded and kept), the target's serve job is cancelled."""
    run_fail(run_id=run.pk, message=message)
    parts = list(
        RunDevice.objects.filter(run=run, job_seq__isnull=False).exclude(
            status__in=FINISHED_STATUSES
        )
    )
    Run.objects.filter(pk=run.pk).update(target={**run.target, "status": FAILED})
    transaction.on_commit(partial(_publish_cancel, run.pk, parts))
    transaction.on_commit(partial(_cancel_serving, run.pk, run.target))


def target_release(*, run_id: UUID | str) -> None:
    """The run ended: its target stops serving (a cancel job for the serve job)."""
    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=run_id)
        if not run.target.get("job_id") or run.target.get("status") in (FAILED, RELEASED):
            return
        target = dict(run.target)
        Run.objects.filter(pk=run.pk).update(target={**target, "status": RELEASED})
        transaction.on_commit(partial(_cancel_serving, run.pk, target))


def _cancel_serving(run_id: UUID, target: dict[str, Any]) -> None:
    device_id = str(target["device_id"])
    header = job_header(
        device_id=device_id,
        seq=device_next_job_seq(device_id=device_id),
        job_id=str(uuid4()),
        run_id=str(run_id),
        kind="cancel",
        now=time.time(),
    )
    job = {**header, "spec": {"job_id": str(target["job_id"])}}
    try:
        mqtt_publish_many([(topics.jobs_topic(device_id), job_envelope(job), 1, False)])
    except BrokerUnavailable as exc:
        logger.warning("experiments.target_release_not_sent run=%s error=%s", run_id, exc.message)


def _run_of(device_id: UUID | str, job_id: str) -> Run | None:
    return (
        Run.objects.select_for_update()
        .filter(target__job_id=str(job_id), target__device_id=str(device_id))
        .first()
    )
