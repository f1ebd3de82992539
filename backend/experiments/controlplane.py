"""What the platform does with each control-plane message from an agent (docs/control-plane.md §3).

`handle_message` is called by the `controlplane` management command for every message on
`iotsecbench/agents/+/{status,heartbeat,events}`. Malformed or unknown messages are logged
and dropped: one misbehaving agent must not stop the listener.
"""

from __future__ import annotations

import json
import logging
import uuid
from datetime import UTC, datetime
from typing import Any

from iotsecbench_contract import topics
from iotsecbench_contract.jobspec import TARGET_FAILED, TARGET_SERVING

from devices.models import Device
from devices.services import device_health_apply, device_seen, device_status_apply
from experiments.models import RunDevice
from experiments.services.agent_events import (
    run_device_clock_record,
    run_device_fail,
    run_device_job_accepted,
    run_device_network_record,
    run_device_progress,
    run_device_receiver_ready,
)
from experiments.services.jobs import run_health_answered
from experiments.services.targets import target_failed, target_serving, targets_offline

logger = logging.getLogger(__name__)

SUBSCRIPTIONS = topics.platform_subscriptions()


def _parse(topic: str, payload: bytes) -> tuple[str, str, dict[str, Any]] | None:
    agent = topics.device_of(topic)
    if agent is None:
        return None
    try:
        device_id = str(uuid.UUID(agent))
        body = json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(body, dict):
        return None
    return device_id, topic.rsplit("/", 1)[1], body


def _timestamp(body: dict[str, Any]) -> datetime:
    """The message's own time, never later than now: a status stamped in the future would
    otherwise outrank every real one after it (older statuses are ignored) and pin the
    device online or offline."""
    now = datetime.now(tz=UTC)
    ts = body.get("ts")
    if isinstance(ts, (int, float)) and not isinstance(ts, bool):
        try:
            return min(datetime.fromtimestamp(ts, tz=UTC), now)
        except (OverflowError, OSError, ValueError):
            return now
    return now


def handle_message(topic: str, payload: bytes) -> bool:
    """Apply one agent message. Returns False when it was dropped."""
    parsed = _parse(topic, payload)
    if parsed is None:
        logger.warning("controlplane.malformed topic=%s", topic)
        return False
    device_id, kind, body = parsed
    if not Device.objects.filter(pk=device_id, revoked_at__isnull=True).exists():
        logger.warning("controlplane.unknown_device device=%s", device_id)
        return False
    if kind == "status" and body.get("state") in ("online", "offline"):
        applied = device_status_apply(
            device_id=device_id, online=body["state"] == "online", at=_timestamp(body)
        )
        if applied and body["state"] == "offline":
            targets_offline(device_id=device_id)
        return applied
    if kind == "heartbeat":
        device_seen(device_id=device_id)
        run_id = body.get("run_id")
        if not run_id:
            return True
        return run_device_progress(
            device_id=device_id,
            run_id=run_id,
            sent=int(body.get("sent", 0)),
            received=int(body.get("received", 0)),
            total=int(body.get("total", 0)),
            phase=str(body.get("phase", "running")),
        )
    if kind == "events":
        return _handle_event(device_id, body)
    logger.warning("controlplane.unhandled topic=%s", topic)
    return False


def _handle_event(device_id: str, body: dict[str, Any]) -> bool:
    event = body.get("event")
    if event == "job_accepted" and body.get("job_id"):
        run_device_job_accepted(device_id=device_id, job_id=body["job_id"])
        return True
    if event == "job_failed" and body.get("job_id"):
        rd = (
            RunDevice.objects.select_related("device")
            .filter(job_id=body["job_id"], device_id=device_id)
            .first()
        )
        if rd is not None:
            run_device_fail(run_device=rd, message=str(body.get("message", "job failed")))
        return rd is not None
    if event == "network_enforced" and body.get("job_id") and isinstance(body.get("network"), dict):
        return run_device_network_record(
            device_id=device_id, job_id=body["job_id"], network=body["network"]
        )
    if event == "receiver_ready" and body.get("job_id"):
        return run_device_receiver_ready(device_id=device_id, job_id=body["job_id"])
    if event == "clock_offset" and body.get("job_id"):
        keys = ("before", "after", "applied_ms", "applied_uncertainty_ms")
        clock: dict[str, Any] = {k: body[k] for k in keys if k in body}
        return run_device_clock_record(device_id=device_id, job_id=body["job_id"], clock=clock)
    if event == "health_report" and body.get("job_id"):
        applied = device_health_apply(device_id=device_id, report=body)
        if applied:
            run_health_answered(device_id=device_id)
        return applied
    if event == TARGET_SERVING and body.get("job_id") and isinstance(body.get("address"), str):
        return target_serving(device_id=device_id, job_id=body["job_id"], address=body["address"])
    if event == TARGET_FAILED and body.get("job_id"):
        why = str(body.get("message", "no reason given"))
        return target_failed(device_id=device_id, job_id=body["job_id"], why=why)
    if event == "job_rejected":
        logger.warning(
            "controlplane.job_rejected device=%s reason=%s seq=%s",
            device_id,
            body.get("reason"),
            body.get("seq"),
        )
        return True
    return False
