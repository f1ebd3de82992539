"""One-way runs: what their receivers get in the job, and the platform's controller that sends
them the messages.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import replace
from uuid import UUID

from django.conf import settings
from iotsecbench_agent.errors import AgentError
from iotsecbench_agent.oneway.controller import OneWayController
from iotsecbench_agent.oneway.controller import Target as OneWayTarget
from iotsecbench_agent.srup.keys import load_key as load_srup_key
from iotsecbench_contract.jobspec import LinkSpec, OneWayReceiverFields
from iotsecbench_contract.topics import data_topic

from devices.broker import controller_link_fields, seal_for_device
from experiments.models import FINISHED_STATUSES, Protocol, Run, RunDevice
from experiments.services.scheduling import run_fail

logger = logging.getLogger(__name__)

# How long a one-way receiver waits at most, beyond the schedule's expected length.
ONE_WAY_DEADLINE_SLACK_S = 60
ONE_WAY_SEND_FAILED_MESSAGE = "The platform could not send the one-way messages: {error}"


def _one_way_job(run: Run, part: RunDevice) -> OneWayReceiverFields:
    """What a one-way receiver needs besides the shared spec (docs/control-plane.md §5).
    A shared payload key goes sealed to the device's broker key (devices/broker.py), so
    only that device reads it; a signature's public key goes as it is."""
    spec = run.spec
    devices = RunDevice.objects.filter(run=run).count()
    expected_s = spec["message_count"] * devices * spec["interval_ms"] / 1000
    fields = OneWayReceiverFields(
        time_url=f"{settings.PLATFORM_PUBLIC_URL}/api/agent/time/",
        deadline_s=2 * expected_s + ONE_WAY_DEADLINE_SLACK_S,
    )
    controller = run.controller
    key = controller.get("security_key")
    # With a signature's private half beside it, the key is the public half: no secret.
    if key is not None and "security_private_key" not in controller:
        context = f"{run.pk}/{part.device_id}"
        sealed = seal_for_device(part.device, bytes.fromhex(key), context=context)
        if sealed is None:
            fields = replace(fields, security_key=key)
        else:
            fields = replace(fields, security_key_sealed=sealed)
    elif key is not None:
        fields = replace(fields, security_key=key)
    if "srup_public_key" in controller:
        fields = replace(
            fields,
            srup_controller_public_key=controller["srup_public_key"],
            srup_controller_id=controller["srup_controller_id"],
        )
    return fields


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
            topic=data_topic(run.pk, part.device_id),
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
