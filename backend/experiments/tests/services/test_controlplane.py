from __future__ import annotations

import json
import time
from collections.abc import Mapping

import pytest

from core.testing.factories import DeviceFactory, ExperimentFactory
from devices.models import Device
from experiments.controlplane import handle_message
from experiments.models import Run, RunDevice, RunStatus


def _msg(device: Device, kind: str, body: Mapping[str, object]) -> tuple[str, bytes]:
    return f"iotsecbench/agents/{device.pk}/{kind}", json.dumps(body).encode()


@pytest.mark.django_db
def test_status_messages_set_online_and_ignore_older_ones(personas):
    device = DeviceFactory.create(workspace=personas.workspace, online=False)
    now = time.time()
    assert handle_message(*_msg(device, "status", {"state": "online", "ts": now - 10}))
    device.refresh_from_db()
    assert device.online is True
    # A retained "online" from before a newer "offline" arrives late: ignored.
    assert handle_message(*_msg(device, "status", {"state": "offline", "ts": now - 5}))
    assert not handle_message(*_msg(device, "status", {"state": "online", "ts": now - 9}))
    device.refresh_from_db()
    assert device.online is False


@pytest.mark.django_db
def test_a_status_stamped_in_the_far_future_pins_nothing(personas):
    """Seen as an attack: {"state": "offline", "ts": 32503680000} (year 3000) made every
    later real status look older, so the device stayed offline for good."""
    device = DeviceFactory.create(workspace=personas.workspace, online=True)
    assert handle_message(*_msg(device, "status", {"state": "offline", "ts": 32503680000}))
    device.refresh_from_db()
    assert device.online is False
    assert device.status_at is not None
    assert device.status_at.timestamp() <= time.time()
    # The real agent's next status (its own clock, now) applies.
    time.sleep(0.01)
    assert handle_message(*_msg(device, "status", {"state": "online", "ts": time.time()}))
    device.refresh_from_db()
    assert device.online is True
    # Timestamps no clock can hold are taken as now, not an error.
    assert handle_message(*_msg(device, "status", {"state": "offline", "ts": 1e300}))
    device.refresh_from_db()
    assert device.online is False


@pytest.mark.django_db
def test_heartbeat_moves_the_run_to_running_and_records_progress(personas):
    device = DeviceFactory.create(workspace=personas.workspace)
    run = Run.objects.create(
        experiment=ExperimentFactory.create(workspace=personas.workspace),
        status=RunStatus.PREPARING,
    )
    part = RunDevice.objects.create(run=run, device=device, total=100, status=RunStatus.PREPARING)
    body = {"ts": time.time(), "run_id": str(run.pk), "sent": 42, "received": 41, "total": 100}
    assert handle_message(*_msg(device, "heartbeat", body))
    part.refresh_from_db()
    run.refresh_from_db()
    assert (part.sent, part.received, part.status) == (42, 41, RunStatus.RUNNING)
    assert part.last_heartbeat_at is not None
    assert run.status == RunStatus.RUNNING


@pytest.mark.django_db
def test_job_failed_event_fails_the_run_with_the_agents_message(personas):
    device = DeviceFactory.create(workspace=personas.workspace, name="pi-7")
    run = Run.objects.create(
        experiment=ExperimentFactory.create(workspace=personas.workspace), status=RunStatus.RUNNING
    )
    part = RunDevice.objects.create(run=run, device=device, status=RunStatus.RUNNING)
    body = {"event": "job_failed", "job_id": str(part.job_id), "message": "broker refused"}
    assert handle_message(*_msg(device, "events", body))
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert run.error == "pi-7: broker refused"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("topic", "payload"),
    [
        ("iotsecbench/agents/not-a-uuid/status", b"{}"),
        ("iotsecbench/agents/00000000-0000-0000-0000-000000000000/status", b'{"state":"online"}'),
        ("other/topic", b"{}"),
    ],
)
def test_malformed_or_unknown_messages_are_dropped(topic, payload):
    assert handle_message(topic, payload) is False


@pytest.mark.django_db
def test_stale_runs_fail_naming_the_silent_device(personas, settings):
    from datetime import timedelta

    from django.utils import timezone

    from experiments.services.agent_events import runs_fail_stale

    device = DeviceFactory.create(workspace=personas.workspace, name="pi-9")
    run = Run.objects.create(
        experiment=ExperimentFactory.create(workspace=personas.workspace), status=RunStatus.RUNNING
    )
    RunDevice.objects.create(
        run=run,
        device=device,
        status=RunStatus.RUNNING,
        last_heartbeat_at=timezone.now()
        - timedelta(seconds=settings.RUN_HEARTBEAT_STALE_SECONDS + 1),
    )
    assert runs_fail_stale() == 1
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert "pi-9" in run.error
    assert "heartbeat" in run.error


@pytest.mark.django_db
def test_a_silent_device_that_had_measured_ends_partial_and_is_marked_offline(personas, settings):
    from datetime import timedelta

    from django.utils import timezone

    from experiments.services.agent_events import runs_fail_stale

    long_ago = timezone.now() - timedelta(seconds=settings.RUN_HEARTBEAT_STALE_SECONDS + 1)
    silent = DeviceFactory.create(
        workspace=personas.workspace, name="pi-s", online=True, last_seen_at=long_ago
    )
    alive = DeviceFactory.create(workspace=personas.workspace, name="pi-l", online=True)
    run = Run.objects.create(
        experiment=ExperimentFactory.create(workspace=personas.workspace), status=RunStatus.RUNNING
    )
    part = RunDevice.objects.create(
        run=run,
        device=silent,
        status=RunStatus.RUNNING,
        sent=812,
        total=2000,
        last_heartbeat_at=long_ago,
    )
    other = RunDevice.objects.create(
        run=run,
        device=alive,
        status=RunStatus.RUNNING,
        sent=900,
        total=2000,
        last_heartbeat_at=timezone.now(),
    )
    assert runs_fail_stale() == 1
    part.refresh_from_db()
    other.refresh_from_db()
    run.refresh_from_db()
    silent.refresh_from_db()
    assert part.status == RunStatus.PARTIAL
    assert "sent no heartbeat" in part.error
    assert "812 of 2000 messages measured on the device, none stored yet" in part.error
    assert silent.online is False
    # The other device measures on: the run is not over while it is.
    assert other.status == RunStatus.RUNNING
    assert run.status == RunStatus.RUNNING


@pytest.mark.django_db
def test_heartbeats_of_an_agent_done_with_the_run_do_not_keep_its_part_alive(personas):
    device = DeviceFactory.create(workspace=personas.workspace, name="pi-h")
    run = Run.objects.create(
        experiment=ExperimentFactory.create(workspace=personas.workspace), status=RunStatus.RUNNING
    )
    part = RunDevice.objects.create(run=run, device=device, status=RunStatus.RUNNING)
    beat = {"run_id": str(run.pk), "sent": 5, "received": 5, "total": 10}
    assert handle_message(*_msg(device, "heartbeat", {**beat, "phase": "uploading"}))
    part.refresh_from_db()
    seen = part.last_heartbeat_at
    assert seen is not None
    # The agent's upload failed for good: its heartbeats still name the run, phase "failed".
    assert handle_message(*_msg(device, "heartbeat", {**beat, "phase": "failed"})) is False
    part.refresh_from_db()
    assert part.last_heartbeat_at == seen
