"""Dispatch publishes signed jobs through the real Mosquitto on 127.0.0.1:1883."""

from __future__ import annotations

import base64
import json
import queue
import threading
import time
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from Crypto.Signature import eddsa
from django.conf import settings
from paho.mqtt.enums import CallbackAPIVersion

from core.mqtt import broker_address
from core.testing.factories import DeviceFactory, ExperimentFactory
from devices.signing import job_public_key_b64
from experiments.controlplane import handle_message
from experiments.models import Run, RunDevice, RunStatus
from experiments.services.jobs import run_dispatch
from experiments.services.scheduling import run_start, runs_schedule


@pytest.fixture
def jobs_listener():
    """Subscribe to every agent's jobs topic on the real broker; yield a queue of messages."""
    received: queue.Queue[mqtt.MQTTMessage] = queue.Queue()
    subscribed = threading.Event()
    address = broker_address(settings.MQTT_URL)
    client = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2)
    client.on_connect = lambda c, *a: c.subscribe("iotsecbench/agents/+/jobs", qos=1)
    client.on_subscribe = lambda *a: subscribed.set()
    client.on_message = lambda c, u, m: received.put(m)
    client.connect(address.host, address.port)
    client.loop_start()
    assert subscribed.wait(5), "could not subscribe on the test broker"
    yield received
    client.disconnect()
    client.loop_stop()


def _verify(message: mqtt.MQTTMessage) -> dict[str, Any]:
    envelope = json.loads(message.payload)
    assert envelope["alg"] == "ed25519"
    payload = base64.b64decode(envelope["payload"])
    key = eddsa.import_public_key(base64.b64decode(job_public_key_b64()))
    eddsa.new(key, "rfc8032").verify(payload, base64.b64decode(envelope["sig"]))
    job: dict[str, Any] = json.loads(payload)
    return job


@pytest.mark.django_db(transaction=True)
def test_dispatch_publishes_a_signed_job_with_growing_seq_to_each_device(
    personas, jobs_listener, django_capture_on_commit_callbacks
):
    devices = [DeviceFactory.create(workspace=personas.workspace) for _ in range(2)]
    experiment = ExperimentFactory.create(workspace=personas.workspace, devices=devices)
    with django_capture_on_commit_callbacks(execute=True):
        run = run_start(experiment=experiment)
    # Before its job, every device passes a fresh health check.
    checks = pass_health_checks(jobs_listener, django_capture_on_commit_callbacks, len(devices))
    assert {c["seq"] for c in checks} == {1}
    assert {c["run_id"] for c in checks} != {str(run.pk)}  # a check is not the run's job

    jobs = {}
    for _ in devices:
        message = jobs_listener.get(timeout=5)
        job = _verify(message)
        assert message.topic == f"iotsecbench/agents/{job['device_id']}/jobs"
        jobs[job["device_id"]] = job
    assert set(jobs) == {str(d.pk) for d in devices}
    for job in jobs.values():
        assert job["run_id"] == str(run.pk)
        assert job["seq"] == 2
        assert time.time() < job["expires_at"] <= time.time() + settings.JOB_TTL_SECONDS + 1
        assert job["spec"]["qos"] == 1
        assert job["spec"]["topic"] == f"iotsecbench/data/{run.pk}/{job['device_id']}"
        assert job["upload"]["url"].endswith(f"/api/agent/runs/{run.pk}/records/")
    run.refresh_from_db()
    assert run.status == RunStatus.PREPARING
    assert set(RunDevice.objects.filter(run=run).values_list("status", "job_seq")) == {
        (RunStatus.PREPARING, 2)
    }

    # A second run of the same devices gets the next sequence numbers.
    Run.objects.filter(pk=run.pk).update(status=RunStatus.DONE)
    with django_capture_on_commit_callbacks(execute=True):
        run_start(experiment=experiment)
    pass_health_checks(jobs_listener, django_capture_on_commit_callbacks, len(devices))
    seqs = {_verify(jobs_listener.get(timeout=5))["seq"] for _ in devices}
    assert seqs == {4}


def pass_health_checks(
    listener: Any, capture: Any, count: int, status: str = "passed"
) -> list[dict[str, Any]]:
    """Take ``count`` health_check jobs off the broker and answer each as its agent would
    (a health_report event through the control-plane handler)."""
    checks = [_verify(listener.get(timeout=5)) for _ in range(count)]
    for check in checks:
        assert check["kind"] == "health_check"
        report = {
            "event": "health_report",
            "job_id": check["job_id"],
            "status": status,
            "checks": [{"name": "crypto_selftest", "ok": status == "passed", "detail": "82"}],
        }
        with capture(execute=True):
            topic = f"iotsecbench/agents/{check['device_id']}/events"
            assert handle_message(topic, json.dumps(report).encode())
    return checks


@pytest.mark.django_db(transaction=True)
def test_dispatch_twice_publishes_nothing_more(personas, jobs_listener, monkeypatch):
    monkeypatch.setattr("django.db.transaction.on_commit", lambda fn, **kw: None)
    device = DeviceFactory.create(workspace=personas.workspace)
    run = run_start(
        experiment=ExperimentFactory.create(workspace=personas.workspace, devices=[device])
    )
    assert run_dispatch(run_id=run.pk) == 0  # queued: only a run the scheduler started goes out
    assert runs_schedule() == [str(run.pk)]
    assert run_dispatch(run_id=run.pk) == 1
    assert run_dispatch(run_id=run.pk) == 0
    jobs_listener.get(timeout=5)
    with pytest.raises(queue.Empty):
        jobs_listener.get(timeout=0.5)
