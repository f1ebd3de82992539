"""A throughput design names the UDP receiver of its packets (``target_url``, e.g. the
MQTT-SN paper's gateway Pi): checked as the agent checks it (udp://host:port), refused for
the other kinds, frozen into the run as the job spec's ``target`` and sent to the device in
its signed job (real Mosquitto); exported and imported by design files."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile

from core.testing.factories import DeviceFactory
from experiments.addressing import TARGET_URL_FORM, TARGET_URL_THROUGHPUT_ONLY
from experiments.models import Experiment, Run
from experiments.services.scheduling import run_start
from experiments.tests.services.test_jobs import _verify, jobs_listener, pass_health_checks

__all__ = ["jobs_listener"]  # the fixture, used by name

THROUGHPUT = {
    "name": "MQTT-SN paper, Figure 5",
    "kind": "throughput",
    "mechanisms": ["none", "aes-128-cbc"],
    "data_sizes": [16, 64],
    "repetitions": 2,
    "window_ms": 2000,
}


def _body(personas: Any, **fields: Any) -> dict[str, Any]:
    device = DeviceFactory.create(workspace=personas.workspace)
    return {**THROUGHPUT, "device_ids": [str(device.pk)], **fields}


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url",
    ["udp://gateway-pi.local:9999", "udp://192.168.4.1:9999", "udp://[2001:db8::5]:9999"],
)
def test_a_throughput_design_stores_its_receiver(personas, owner_client, url):
    response = owner_client.post(
        "/api/experiments/", _body(personas, target_url=url), format="json"
    )

    assert response.status_code == 201, response.json()
    assert response.json()["target_url"] == url
    assert Experiment.objects.get(pk=response.json()["id"]).target_url == url


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url",
    [
        "udp://gateway-pi:0",
        "udp://gateway-pi",
        "udp://gateway-pi:70000",
        "tcp://gateway-pi:9999",
        "udp://user@gateway-pi:9999",
        "udp://user:secret@gateway-pi:9999",
        "udp://gateway-pi:9999/sink",
        "udp://gateway-pi:9999?x=1",
        "udp://2001:db8::5:9999",
        "udp://[gateway-pi]:9999",
        "gateway-pi:9999",
    ],
)
def test_a_receiver_not_udp_host_port_is_a_400_naming_target_url(personas, owner_client, url):
    response = owner_client.post(
        "/api/experiments/", _body(personas, target_url=url), format="json"
    )

    assert response.status_code == 400, response.json()
    assert response.json()["extra"]["fields"] == {"target_url": [TARGET_URL_FORM]}
    assert Experiment.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("kind", "fields"),
    [
        ("messaging", {"protocol": "mqttsn"}),
        ("cipher_bench", {"mechanisms": ["null"], "data_sizes": [16]}),
    ],
)
def test_a_receiver_for_another_kind_is_a_400_naming_target_url(
    personas, owner_client, kind, fields
):
    device = DeviceFactory.create(workspace=personas.workspace)
    body = {
        "name": "not throughput",
        "kind": kind,
        **fields,
        "target_url": "udp://192.168.4.1:9999",
        "device_ids": [str(device.pk)],
    }

    response = owner_client.post("/api/experiments/", body, format="json")

    assert response.status_code == 400, response.json()
    message = TARGET_URL_THROUGHPUT_ONLY.format(kind=kind)
    assert response.json()["extra"]["fields"] == {"target_url": [message]}
    assert Experiment.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_the_receiver_goes_to_the_device_as_the_job_specs_target(
    personas, owner_client, jobs_listener, django_capture_on_commit_callbacks
):
    created = owner_client.post(
        "/api/experiments/", _body(personas, target_url="udp://192.168.4.1:9999"), format="json"
    )
    assert created.status_code == 201, created.json()
    experiment = Experiment.objects.get(pk=created.json()["id"])

    with django_capture_on_commit_callbacks(execute=True):
        run = run_start(experiment=experiment)
    pass_health_checks(jobs_listener, django_capture_on_commit_callbacks, 1)
    job = _verify(jobs_listener.get(timeout=5))

    assert job["run_id"] == str(run.pk)
    assert job["kind"] == "throughput"
    assert job["spec"]["target"] == "udp://192.168.4.1:9999"
    assert job["spec"]["mechanisms"] == ["none", "aes-128-cbc"]
    assert Run.objects.get(pk=run.pk).spec["target"] == "udp://192.168.4.1:9999"


@pytest.mark.django_db(transaction=True)
def test_a_design_without_a_receiver_sends_no_target(
    personas, owner_client, jobs_listener, django_capture_on_commit_callbacks
):
    created = owner_client.post("/api/experiments/", _body(personas), format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["target_url"] == ""

    with django_capture_on_commit_callbacks(execute=True):
        run = run_start(experiment=Experiment.objects.get(pk=created.json()["id"]))
    pass_health_checks(jobs_listener, django_capture_on_commit_callbacks, 1)
    job = _verify(jobs_listener.get(timeout=5))

    assert "target" not in job["spec"]
    assert "target" not in Run.objects.get(pk=run.pk).spec


def _import(client: Any, text: str) -> Any:
    upload = SimpleUploadedFile("design.yaml", text.encode(), content_type="application/yaml")
    return client.post("/api/experiments/import/", {"file": upload}, format="multipart")


@pytest.mark.django_db
def test_a_design_file_sets_the_receiver_and_exports_it_back(personas, owner_client):
    DeviceFactory.create(workspace=personas.workspace, name="client-pi")
    text = (
        "format: iotsecbench-experiment/1\nname: gateway\nkind: throughput\n"
        "devices: [client-pi]\n"
        "parameters: {mechanisms: [none], data_sizes: [16], repetitions: 2,"
        " target_url: 'udp://192.168.4.1:9999'}\n"
    )

    response = _import(owner_client, text)

    assert response.status_code == 201, response.json()
    experiment = Experiment.objects.get(pk=response.json()["id"])
    assert experiment.target_url == "udp://192.168.4.1:9999"
    exported = owner_client.get(f"/api/experiments/{experiment.pk}/design.yaml")
    assert yaml.safe_load(exported.content)["parameters"]["target_url"] == (
        "udp://192.168.4.1:9999"
    )
    again = _import(owner_client, exported.content.decode())
    assert again.status_code == 201, again.json()
    assert again.json()["target_url"] == "udp://192.168.4.1:9999"


@pytest.mark.django_db
def test_a_throughput_design_without_a_receiver_exports_no_target_url(personas, owner_client):
    created = owner_client.post("/api/experiments/", _body(personas), format="json")

    exported = owner_client.get(f"/api/experiments/{created.json()['id']}/design.yaml")

    assert "target_url" not in yaml.safe_load(exported.content)["parameters"]
