"""The queue: runs of an experiment one after another, never two runs on one device, every
status change timestamped, cancel and retry."""

from __future__ import annotations

import itertools
import json
import queue
from typing import Any

import pytest

from core.testing.factories import DeviceFactory, ExperimentFactory
from experiments.errors import RunNotCancellable, RunNotRetryable
from experiments.models import Run, RunDevice, RunStatus, RunTransition
from experiments.services.scheduling import (
    experiment_start,
    run_cancel,
    run_fail,
    run_retry,
    runs_schedule,
)
from experiments.tests.services.test_jobs import _verify, pass_health_checks


@pytest.fixture
def quiet(monkeypatch):
    """No Celery kicks: the test calls the scheduler itself."""
    monkeypatch.setattr("django.db.transaction.on_commit", lambda fn, **kw: None)


def _matrix(workspace: Any, devices: list[Any], qos: tuple[int, ...] = (0, 1, 2)) -> Any:
    return ExperimentFactory.create(
        workspace=workspace,
        devices=devices,
        axes=[{"name": "QoS", "values": [{"qos": q} for q in qos]}],
    )


def _finish(run: Run) -> None:
    Run.objects.filter(pk=run.pk).update(status=RunStatus.DONE)


@pytest.mark.django_db
def test_runs_of_an_experiment_start_one_after_another(personas, quiet):
    device = DeviceFactory.create(workspace=personas.workspace)
    runs = experiment_start(experiment=_matrix(personas.workspace, [device]))

    assert runs_schedule() == [str(runs[0].pk)]
    assert runs_schedule() == []  # the first still holds the experiment
    _finish(runs[0])
    assert runs_schedule() == [str(runs[1].pk)]
    run_fail(run_id=runs[1].pk, message="broken")
    assert runs_schedule() == [str(runs[2].pk)]


@pytest.mark.django_db
def test_two_runs_never_use_one_device_at_the_same_time(personas, quiet):
    shared, other = (DeviceFactory.create(workspace=personas.workspace) for _ in range(2))
    a = experiment_start(experiment=_matrix(personas.workspace, [shared], qos=(1,)))[0]
    b = experiment_start(experiment=_matrix(personas.workspace, [shared, other], qos=(1,)))[0]
    c = experiment_start(experiment=_matrix(personas.workspace, [other], qos=(1,)))[0]

    assert runs_schedule() == [str(a.pk), str(c.pk)]  # b waits: it needs the shared device
    _finish(a)
    assert runs_schedule() == []  # c still holds the other device
    _finish(c)
    assert runs_schedule() == [str(b.pk)]


@pytest.mark.django_db
def test_every_status_change_is_timestamped_in_order(personas, quiet):
    device = DeviceFactory.create(workspace=personas.workspace)
    run = experiment_start(experiment=_matrix(personas.workspace, [device], qos=(1,)))[0]
    runs_schedule()
    Run.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING)
    Run.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING)  # no change, no row
    _finish(run)

    transitions = list(RunTransition.objects.filter(run=run))
    assert [t.status for t in transitions] == ["queued", "preparing", "running", "done"]
    assert all(a.at <= b.at for a, b in itertools.pairwise(transitions))


@pytest.mark.django_db
def test_cancelling_a_queued_run_frees_its_place_and_it_never_starts(personas, quiet):
    device = DeviceFactory.create(workspace=personas.workspace)
    runs = experiment_start(experiment=_matrix(personas.workspace, [device], qos=(0, 1)))
    run_cancel(run=runs[0], by="owner")

    assert runs_schedule() == [str(runs[1].pk)]
    runs[0].refresh_from_db()
    assert (runs[0].status, runs[0].error) == (RunStatus.CANCELLED, "Cancelled by owner.")
    assert set(RunDevice.objects.filter(run=runs[0]).values_list("status", flat=True)) == {
        RunStatus.CANCELLED
    }
    with pytest.raises(RunNotCancellable):
        run_cancel(run=runs[0], by="owner")


@pytest.mark.django_db(transaction=True)
def test_cancelling_an_active_run_sends_its_devices_a_signed_cancel_job(
    personas, django_capture_on_commit_callbacks
):
    device = DeviceFactory.create(workspace=personas.workspace)
    experiment = _matrix(personas.workspace, [device], qos=(1,))
    listener = _listen()
    try:
        with django_capture_on_commit_callbacks(execute=True):
            run = experiment_start(experiment=experiment)[0]
        pass_health_checks(listener, django_capture_on_commit_callbacks, 1)
        dispatched = _verify(listener.get(timeout=5))
        assert dispatched["kind"] == "messaging"
        with django_capture_on_commit_callbacks(execute=True):
            run_cancel(run=run, by="owner")
        cancel = _verify(listener.get(timeout=5))
    finally:
        listener.close()
    assert cancel["kind"] == "cancel"
    assert cancel["spec"] == {"job_id": dispatched["job_id"]}
    assert cancel["seq"] == dispatched["seq"] + 1
    assert Run.objects.get(pk=run.pk).status == RunStatus.CANCELLED


class _listen:
    """The agents' jobs topics on the real broker, as a queue."""

    def __init__(self) -> None:
        import queue
        import threading

        import paho.mqtt.client as mqtt
        from django.conf import settings
        from paho.mqtt.enums import CallbackAPIVersion

        from core.mqtt import broker_address

        self.messages: queue.Queue[mqtt.MQTTMessage] = queue.Queue()
        subscribed = threading.Event()
        address = broker_address(settings.MQTT_URL)
        self.client = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2)
        self.client.on_connect = lambda c, *a: c.subscribe("iotsecbench/agents/+/jobs", qos=1)
        self.client.on_subscribe = lambda *a: subscribed.set()
        self.client.on_message = lambda c, u, m: self.messages.put(m)
        self.client.connect(address.host, address.port)
        self.client.loop_start()
        assert subscribed.wait(5)

    def get(self, timeout: float):
        return self.messages.get(timeout=timeout)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.mark.django_db
def test_retry_queues_the_same_spec_on_the_same_devices_again(personas, quiet):
    device = DeviceFactory.create(workspace=personas.workspace)
    run = experiment_start(experiment=_matrix(personas.workspace, [device], qos=(2,)))[0]
    with pytest.raises(RunNotRetryable):
        run_retry(run=run)
    run_fail(run_id=run.pk, message="agent died")

    retry = run_retry(run=run)

    assert (retry.status, retry.retry_of_id, retry.cell, retry.spec) == (
        RunStatus.QUEUED,
        run.pk,
        {"qos": 2},
        json.loads(json.dumps(Run.objects.get(pk=run.pk).spec)),
    )
    assert list(RunDevice.objects.filter(run=retry).values_list("device_id", flat=True)) == [
        device.pk
    ]
    assert runs_schedule() == [str(retry.pk)]


@pytest.mark.django_db(transaction=True)
def test_a_device_that_fails_its_health_check_is_not_given_the_run(
    personas, django_capture_on_commit_callbacks
):
    device = DeviceFactory.create(workspace=personas.workspace, name="pi-sick")
    listener = _listen()
    try:
        with django_capture_on_commit_callbacks(execute=True):
            run = experiment_start(experiment=_matrix(personas.workspace, [device], qos=(1,)))[0]
        pass_health_checks(listener, django_capture_on_commit_callbacks, 1, status="failed")
        with pytest.raises(queue.Empty):
            listener.get(timeout=0.5)  # no run job went out
    finally:
        listener.close()
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert run.error.startswith("pi-sick failed its health check before the run (crypto_selftest")
    assert "retry the run" in run.error


@pytest.mark.django_db
def test_a_run_whose_devices_never_answer_the_health_check_fails_saying_so(personas, quiet):
    from datetime import timedelta

    from django.utils import timezone

    from experiments.services.agent_events import runs_fail_stale
    from experiments.services.jobs import run_prepare

    device = DeviceFactory.create(workspace=personas.workspace, name="pi-mute")
    run = experiment_start(experiment=_matrix(personas.workspace, [device], qos=(1,)))[0]
    runs_schedule()
    assert run_prepare(run_id=run.pk) == 1  # the check went out; nobody answers

    runs_fail_stale(now=timezone.now() + timedelta(seconds=61))

    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert run.error.startswith(
        "pi-mute did not answer the health check before the run within 60 s"
    )


@pytest.mark.django_db
def test_a_retried_one_way_run_keeps_the_keys_its_spec_was_made_with(personas, quiet):
    device = DeviceFactory.create(workspace=personas.workspace)
    experiment = ExperimentFactory.create(
        workspace=personas.workspace,
        devices=[device],
        measurement="one_way",
        security="aes-128-cbc",
        payload_size=16,
    )
    run = experiment_start(experiment=experiment)[0]
    run_fail(run_id=run.pk, message="agent died")

    retry = run_retry(run=run)

    assert retry.controller == run.controller
    assert len(bytes.fromhex(retry.controller["security_key"])) == 16


@pytest.mark.django_db
def test_runs_are_dispatched_in_the_shuffled_order_their_seed_gives(personas, quiet):
    from experiments.matrix import run_order

    device = DeviceFactory.create(workspace=personas.workspace)
    experiment = ExperimentFactory.create(
        workspace=personas.workspace,
        devices=[device],
        axes=[{"name": "Size", "values": [{"payload_size": n} for n in (16, 32, 64, 128, 256)]}],
        repeats=2,
        order_seed=42,
    )
    experiment_start(experiment=experiment)

    dispatched = []
    while started := runs_schedule():
        run = Run.objects.get(pk=started[0])
        dispatched.append((run.repeat, run.cell))
        _finish(run)

    expected = run_order([{"payload_size": n} for n in (16, 32, 64, 128, 256)], 2, seed=42)
    assert dispatched == expected
    assert [c["payload_size"] for _, c in dispatched[:5]] != [16, 32, 64, 128, 256]
    assert set(Run.objects.filter(experiment=experiment).values_list("order_seed", flat=True)) == {
        42
    }


@pytest.mark.django_db
def test_a_start_without_a_seed_records_the_one_it_drew_and_that_seed_reproduces_it(
    personas, quiet
):
    from experiments.matrix import run_order

    device = DeviceFactory.create(workspace=personas.workspace)
    cells = [{"qos": q} for q in (0, 1, 2)]
    experiment = ExperimentFactory.create(
        workspace=personas.workspace,
        devices=[device],
        axes=[{"name": "QoS", "values": cells}],
        repeats=3,
    )
    runs = experiment_start(experiment=experiment)

    rows = list(Run.objects.filter(experiment=experiment).order_by("position"))
    (seed,) = {r.order_seed for r in rows}
    assert seed is not None
    assert [(r.repeat, r.cell) for r in rows] == run_order(cells, 3, seed=seed)
    assert [r.pk for r in rows] == [r.pk for r in runs]
