"""A run served by another enrolled device (experiments.services.targets), through the real
Mosquitto on 127.0.0.1:1883: the target gets a signed serve job before the clients, the
clients get the address it reports, it is released when the run ends, and a target that
is offline, fails or goes away ends the run saying so."""

from __future__ import annotations

import json
import queue
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.utils import timezone

from core.testing.factories import DeviceFactory, ExperimentFactory
from devices.models import Device
from experiments.controlplane import handle_message
from experiments.models import Run, RunDevice, RunStatus
from experiments.selectors import run_waiting_for
from experiments.services.agent_events import runs_fail_stale
from experiments.services.scheduling import run_cancel, run_start, runs_schedule
from experiments.services.targets import target_named
from experiments.tests.services.test_jobs import _verify, jobs_listener, pass_health_checks

__all__ = ["jobs_listener"]  # the fixture, used by name

ADDRESS = "192.0.2.7:40123"


@pytest.fixture
def lab(personas):
    client = DeviceFactory.create(workspace=personas.workspace, name="client-pi")
    gateway = DeviceFactory.create(workspace=personas.workspace, name="gateway-pi")
    return client, gateway


def _event(device: Device, body: dict[str, Any], capture: Any) -> bool:
    with capture(execute=True):
        return handle_message(f"iotsecbench/agents/{device.pk}/events", json.dumps(body).encode())


def _start(lab: Any, listener: Any, capture: Any, **design: Any) -> tuple[Run, dict[str, Any]]:
    client, gateway = lab
    experiment = ExperimentFactory.create(
        workspace=client.workspace, devices=[client], target_device=gateway, **design
    )
    with capture(execute=True):
        run = run_start(experiment=experiment)
    pass_health_checks(listener, capture, 1)
    serve = _verify(listener.get(timeout=5))
    return run, serve


def _serving(lab: Any, listener: Any, capture: Any) -> tuple[Run, dict[str, Any], dict[str, Any]]:
    """An MQTT-SN run whose gateway device answered serving at ADDRESS: the run, the serve
    job and the client's job."""
    _, gateway = lab
    run, serve = _start(lab, listener, capture, protocol="mqttsn")
    serving = {"event": "target_serving", "job_id": serve["job_id"], "address": ADDRESS}
    assert _event(gateway, serving, capture)
    return run, serve, _verify(listener.get(timeout=5))


@pytest.mark.django_db(transaction=True)
def test_the_gateway_device_serves_first_and_the_client_is_sent_to_its_address(
    lab, jobs_listener, django_capture_on_commit_callbacks
):
    client, gateway = lab
    run, serve = _start(lab, jobs_listener, django_capture_on_commit_callbacks, protocol="mqttsn")
    assert (serve["device_id"], serve["kind"], serve["run_id"]) == (
        str(gateway.pk),
        "serve",
        str(run.pk),
    )
    assert serve["spec"] == {"role": "gateway", "broker_url": settings.MQTT_DATA_URL}
    assert "@" not in serve["spec"]["broker_url"]  # the device adds its own credentials
    with pytest.raises(queue.Empty):  # the client waits for the gateway
        jobs_listener.get(timeout=0.5)

    serving = {"event": "target_serving", "job_id": serve["job_id"], "address": ADDRESS}
    assert _event(gateway, serving, django_capture_on_commit_callbacks)
    job = _verify(jobs_listener.get(timeout=5))
    assert job["device_id"] == str(client.pk)
    assert job["spec"]["mqttsn_gateway"] == ADDRESS
    # A topic the gateway's own broker identity may publish: its last level is its id.
    assert job["spec"]["topic"] == f"iotsecbench/data/{run.pk}/{client.pk}/{gateway.pk}"
    assert not {"target_device", "target_host"} & set(job["spec"])
    run.refresh_from_db()
    assert run.target["status"] == "serving"
    assert run.target["address"] == ADDRESS

    with django_capture_on_commit_callbacks(execute=True):
        run_cancel(run=run, by="owner")
    cancels = {_verify(jobs_listener.get(timeout=5))["device_id"]: None for _ in range(2)}
    assert set(cancels) == {str(client.pk), str(gateway.pk)}
    run.refresh_from_db()
    assert run.target["status"] == "released"


@pytest.mark.django_db(transaction=True)
def test_a_coap_server_device_gets_the_path_and_the_designs_host(
    lab, jobs_listener, django_capture_on_commit_callbacks
):
    _, gateway = lab
    _, serve = _start(
        lab,
        jobs_listener,
        django_capture_on_commit_callbacks,
        protocol="coap",
        coap_path="bench/srv",
        target_host="pi-2.lab",
    )
    assert serve["spec"]["role"] == "server"
    assert serve["spec"]["coap_path"] == "bench/srv"
    assert serve["spec"]["advertise_host"] == "pi-2.lab"
    serving = {"event": "target_serving", "job_id": serve["job_id"], "address": "pi-2.lab:5999"}
    assert _event(gateway, serving, django_capture_on_commit_callbacks)
    job = _verify(jobs_listener.get(timeout=5))
    assert job["spec"]["coap_url"] == "coap://pi-2.lab:5999"
    assert job["spec"]["coap_path"] == "bench/srv"


@pytest.mark.django_db(transaction=True)
def test_a_target_that_cannot_serve_fails_the_run_saying_so(
    lab, jobs_listener, django_capture_on_commit_callbacks
):
    _, gateway = lab
    run, serve = _start(lab, jobs_listener, django_capture_on_commit_callbacks, protocol="mqttsn")
    failed = {"event": "target_failed", "job_id": serve["job_id"], "message": "port in use"}
    assert _event(gateway, failed, django_capture_on_commit_callbacks)
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert run.error == (
        "Target device gateway-pi could not serve as the run's MQTT-SN gateway: port in use"
    )
    assert set(RunDevice.objects.filter(run=run).values_list("job_seq", flat=True)) == {None}
    # A late serving answer changes nothing.
    serving = {"event": "target_serving", "job_id": serve["job_id"], "address": ADDRESS}
    assert not _event(gateway, serving, django_capture_on_commit_callbacks)


@pytest.mark.django_db(transaction=True)
def test_an_offline_target_fails_the_run_before_any_job(
    lab, jobs_listener, django_capture_on_commit_callbacks
):
    client, gateway = lab
    Device.objects.filter(pk=gateway.pk).update(online=False)
    experiment = ExperimentFactory.create(
        workspace=client.workspace, devices=[client], target_device=gateway, protocol="coap"
    )
    with django_capture_on_commit_callbacks(execute=True):
        run = run_start(experiment=experiment)
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert run.error.startswith("Target device gateway-pi (the run's CoAP server) is offline.")
    with pytest.raises(queue.Empty):
        jobs_listener.get(timeout=0.5)


@pytest.mark.django_db(transaction=True)
def test_a_target_going_offline_during_the_run_fails_it_and_stops_the_clients(
    lab, jobs_listener, django_capture_on_commit_callbacks
):
    client, gateway = lab
    run, serve, client_job = _serving(lab, jobs_listener, django_capture_on_commit_callbacks)

    offline = json.dumps({"state": "offline", "ts": 4e9}).encode()
    with django_capture_on_commit_callbacks(execute=True):
        assert handle_message(f"iotsecbench/agents/{gateway.pk}/status", offline)
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert "gateway-pi (the run's MQTT-SN gateway) went offline during the run" in run.error
    stops = [_verify(jobs_listener.get(timeout=5)) for _ in range(2)]
    by_device = {s["device_id"]: s for s in stops}
    assert by_device[str(client.pk)]["spec"] == {"job_id": client_job["job_id"]}
    assert by_device[str(gateway.pk)]["spec"] == {"job_id": serve["job_id"]}
    assert {s["kind"] for s in stops} == {"cancel"}


@pytest.mark.django_db(transaction=True)
def test_a_client_giving_up_on_a_silent_target_ends_the_run_naming_the_target_device(
    lab, jobs_listener, django_capture_on_commit_callbacks
):
    client, _ = lab
    run, _, client_job = _serving(lab, jobs_listener, django_capture_on_commit_callbacks)
    accepted = {"event": "job_accepted", "job_id": client_job["job_id"]}
    assert _event(client, accepted, django_capture_on_commit_callbacks)
    # What the client's agent reports (device-agent runners/target_watch.py).
    silent = (
        f"the run's MQTT-SN gateway at {ADDRESS} stopped answering: no answer to the last 20 "
        "messages in a row, for 100.4 s (is it stalled, or its port blocked?)"
    )
    failed = {"event": "job_failed", "job_id": client_job["job_id"], "message": silent}
    assert _event(client, failed, django_capture_on_commit_callbacks)
    part = RunDevice.objects.get(run=run, device=client)
    assert part.error == f"{silent} (target device gateway-pi, the run's MQTT-SN gateway)"
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED  # nothing uploaded in this test: nothing measured
    assert "target device gateway-pi" in run.error
    assert run.target["status"] == "released"

    # A failure that does not name the target's address is left as the agent wrote it.
    assert target_named(run=run, message="disk full") == "disk full"


@pytest.mark.django_db(transaction=True)
def test_a_target_that_never_answers_fails_the_run_naming_it(
    lab, jobs_listener, django_capture_on_commit_callbacks
):
    run, _ = _start(lab, jobs_listener, django_capture_on_commit_callbacks, protocol="coap")
    timeout = timedelta(seconds=settings.HEALTH_CHECK_TIMEOUT_SECONDS + 1)
    Run.objects.filter(pk=run.pk).update(started_at=timezone.now() - timeout)
    with django_capture_on_commit_callbacks(execute=True):
        runs_fail_stale()
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert run.error.startswith(
        "Target device gateway-pi did not start serving as the run's CoAP server within"
    )


@pytest.mark.django_db
def test_a_target_is_a_busy_device_for_the_scheduler_both_ways(lab, monkeypatch):
    monkeypatch.setattr("django.db.transaction.on_commit", lambda fn, **kw: None)
    client, gateway = lab
    other = DeviceFactory.create(workspace=client.workspace, name="other-pi")
    measuring = ExperimentFactory.create(workspace=client.workspace, devices=[gateway])
    served = ExperimentFactory.create(
        workspace=client.workspace, devices=[client], target_device=gateway, protocol="coap"
    )
    first = run_start(experiment=measuring)
    waiting = run_start(experiment=served)
    assert runs_schedule() == [str(first.pk)]  # the gateway measures: the served run waits
    assert _blocked_by(waiting) == ["gateway-pi"]

    Run.objects.filter(pk=first.pk).update(status=RunStatus.DONE)
    assert runs_schedule() == [str(waiting.pk)]
    # Now the gateway serves: a run measuring on it waits for the served run.
    again = run_start(
        experiment=ExperimentFactory.create(workspace=client.workspace, devices=[gateway, other])
    )
    assert runs_schedule() == []
    assert _blocked_by(again) == ["gateway-pi"]


def _blocked_by(run: Run) -> list[str]:
    waiting: Any = run_waiting_for(run=run)
    return [blocker["device"] for blocker in waiting["blockers"]]
