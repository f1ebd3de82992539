from __future__ import annotations

import pytest

from core.exception_handlers import VALIDATION_MESSAGE
from core.testing.factories import DeviceFactory, ExperimentFactory
from experiments.models import Experiment, Run, RunDevice, RunStatus

PAPER_BASELINE = {
    "name": "MQTT QoS 1 baseline",
    "protocol": "mqtt",
    "qos": 1,
    "security": "none",
    "payload_size": 66,
    "message_count": 100,
    "measurement": "round_trip",
}


@pytest.mark.django_db
def test_create_experiment_stores_the_design_when_input_is_valid(personas, owner_client):
    devices = [DeviceFactory.create(workspace=personas.workspace) for _ in range(2)]
    payload = {**PAPER_BASELINE, "device_ids": [str(d.pk) for d in devices]}
    response = owner_client.post("/api/experiments/", payload, format="json")
    assert response.status_code == 201
    experiment = Experiment.objects.get(pk=response.json()["id"])
    assert (experiment.protocol, experiment.qos, experiment.payload_size) == ("mqtt", 1, 66)
    assert experiment.message_count == 100
    assert experiment.workspace == personas.workspace
    assert set(experiment.devices.all()) == set(devices)
    assert sorted(response.json()["device_ids"]) == sorted(str(d.pk) for d in devices)


@pytest.mark.django_db
def test_create_experiment_answers_field_errors_when_values_are_out_of_range(
    personas, owner_client
):
    payload = {**PAPER_BASELINE, "qos": 3, "payload_size": 0, "device_ids": []}
    response = owner_client.post("/api/experiments/", payload, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "validation_error"
    assert body["message"] == VALIDATION_MESSAGE
    assert set(body["extra"]["fields"]) == {"qos", "payload_size", "device_ids"}
    assert Experiment.objects.count() == 0


@pytest.mark.django_db
def test_create_experiment_answers_400_when_a_device_is_in_another_workspace(
    personas, owner_client
):
    foreign = DeviceFactory.create(workspace=personas.outsider_workspace)
    payload = {**PAPER_BASELINE, "device_ids": [str(foreign.pk)]}
    response = owner_client.post("/api/experiments/", payload, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "device_not_in_workspace"
    assert Experiment.objects.count() == 0


@pytest.mark.django_db
def test_create_experiment_answers_400_not_500_when_body_is_garbage(personas, owner_client):
    response = owner_client.post("/api/experiments/", "{not json", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["code"] == "parse_error"


@pytest.mark.django_db
def test_outsider_gets_404_for_another_workspaces_experiment(personas, outsider_client):
    experiment = ExperimentFactory.create(workspace=personas.workspace)
    assert outsider_client.get(f"/api/experiments/{experiment.pk}/").status_code == 404
    assert outsider_client.post(f"/api/experiments/{experiment.pk}/runs/").status_code == 404
    assert outsider_client.get("/api/experiments/").json() == []


@pytest.mark.django_db
def test_teammate_sees_the_workspaces_experiment(personas):
    from conftest import client_for

    experiment = ExperimentFactory.create(workspace=personas.workspace)
    response = client_for(personas.teammate).get(f"/api/experiments/{experiment.pk}/")
    assert response.status_code == 200


@pytest.mark.django_db
def test_experiment_endpoints_require_login(anonymous_client):
    assert anonymous_client.get("/api/experiments/").status_code == 401
    assert anonymous_client.post("/api/experiments/", {}, format="json").status_code == 401


@pytest.mark.django_db
def test_start_run_answers_409_when_a_device_is_offline(personas, owner_client):
    online = DeviceFactory.create(workspace=personas.workspace, name="a", online=True)
    offline = DeviceFactory.create(workspace=personas.workspace, name="b", online=False)
    experiment = ExperimentFactory.create(workspace=personas.workspace, devices=[online, offline])
    response = owner_client.post(f"/api/experiments/{experiment.pk}/runs/")
    assert response.status_code == 409
    assert response.json()["code"] == "devices_offline"
    assert response.json()["extra"] == {"devices": ["b"]}
    assert Run.objects.count() == 0


@pytest.mark.django_db
def test_start_run_creates_one_part_per_device_and_refuses_a_second_active_run(
    personas, owner_client, monkeypatch
):
    published: list[str] = []
    monkeypatch.setattr(
        "experiments.services.jobs.mqtt_publish_many",
        lambda msgs: published.extend(m[0] for m in msgs),
    )
    devices = [DeviceFactory.create(workspace=personas.workspace) for _ in range(2)]
    experiment = ExperimentFactory.create(workspace=personas.workspace, devices=devices)
    response = owner_client.post(f"/api/experiments/{experiment.pk}/runs/")
    assert response.status_code == 201
    run = Run.objects.get(pk=response.json()["id"])
    assert run.spec["qos"] == 1
    assert run.spec["message_count"] == 100
    parts = RunDevice.objects.filter(run=run)
    assert {p.device_id for p in parts} == {d.pk for d in devices}
    assert all(p.total == 100 and p.facts == {"hostname": "pi", "cpu_cores": 4} for p in parts)
    again = owner_client.post(f"/api/experiments/{experiment.pk}/runs/")
    assert again.status_code == 409
    assert again.json()["code"] == "run_already_active"
    assert run.status == RunStatus.QUEUED


@pytest.mark.django_db
def test_run_spec_carries_mqtt_version_interval_distribution_and_a_seed(
    personas, owner_client, monkeypatch
):
    monkeypatch.setattr("experiments.services.jobs.mqtt_publish_many", lambda msgs: None)
    device = DeviceFactory.create(workspace=personas.workspace)
    body = {
        **PAPER_BASELINE,
        "mqtt_version": "5",
        "interval_ms": 500,
        "interval_distribution": "exponential",
        "device_ids": [str(device.pk)],
    }
    experiment = owner_client.post("/api/experiments/", body, format="json").json()
    assert (experiment["mqtt_version"], experiment["interval_distribution"]) == ("5", "exponential")
    first = Run.objects.get(
        pk=owner_client.post(f"/api/experiments/{experiment['id']}/runs/").json()["id"]
    )
    assert first.spec["mqtt_version"] == "5"
    assert first.spec["interval_distribution"] == "exponential"
    assert isinstance(first.spec["interval_seed"], int)
    bad = owner_client.post(
        "/api/experiments/", {**body, "interval_distribution": "gaussian"}, format="json"
    )
    assert bad.status_code == 400
    assert "interval_distribution" in bad.json()["extra"]["fields"]


@pytest.mark.django_db
def test_tls_experiment_is_refused_on_the_transport_field_without_a_tls_broker(
    personas, owner_client, settings
):
    from experiments.services.designs import TLS_NOT_CONFIGURED_MESSAGE

    settings.MQTT_TLS_URL = ""
    device = DeviceFactory.create(workspace=personas.workspace)
    body = {**PAPER_BASELINE, "transport": "tls1.3", "device_ids": [str(device.pk)]}
    response = owner_client.post("/api/experiments/", body, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "tls_broker_not_configured"
    assert response.json()["extra"]["fields"] == {"transport": [TLS_NOT_CONFIGURED_MESSAGE]}
    assert Experiment.objects.count() == 0


@pytest.mark.django_db
def test_tls_run_spec_points_at_the_tls_broker_with_its_ca_and_version(
    personas, owner_client, settings, tmp_path, monkeypatch
):
    monkeypatch.setattr("experiments.services.jobs.mqtt_publish_many", lambda msgs: None)
    ca = tmp_path / "ca.crt"
    ca.write_text("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
    settings.MQTT_TLS_URL = "mqtts://127.0.0.1:8883"
    settings.MQTT_TLS_CA_FILE = str(ca)
    device = DeviceFactory.create(workspace=personas.workspace)
    body = {**PAPER_BASELINE, "transport": "tls1.2", "device_ids": [str(device.pk)]}
    experiment = owner_client.post("/api/experiments/", body, format="json").json()
    run_id = owner_client.post(f"/api/experiments/{experiment['id']}/runs/").json()["id"]
    spec = Run.objects.get(pk=run_id).spec
    assert spec["broker_url"] == "mqtts://127.0.0.1:8883"
    assert spec["tls_version"] == "1.2"
    assert spec["ca_cert"] == ca.read_text()
    assert spec["transport"] == "tls1.2"


@pytest.mark.django_db
def test_srup_run_spec_carries_the_signature_and_srup_refuses_payload_security(
    personas, owner_client, monkeypatch
):
    from experiments.rules import SRUP_SIGNS_ITSELF

    monkeypatch.setattr("experiments.services.jobs.mqtt_publish_many", lambda msgs: None)
    device = DeviceFactory.create(workspace=personas.workspace)
    body = {
        **PAPER_BASELINE,
        "protocol": "srup",
        "srup_signature": "ed25519",
        "device_ids": [str(device.pk)],
    }
    refused = owner_client.post(
        "/api/experiments/", {**body, "security": "aes-128-cbc"}, format="json"
    )
    assert refused.status_code == 400
    assert refused.json()["extra"]["fields"] == {"security": [SRUP_SIGNS_ITSELF]}
    experiment = owner_client.post("/api/experiments/", body, format="json").json()
    assert (experiment["protocol"], experiment["srup_signature"]) == ("srup", "ed25519")
    run_id = owner_client.post(f"/api/experiments/{experiment['id']}/runs/").json()["id"]
    spec = Run.objects.get(pk=run_id).spec
    assert (spec["protocol"], spec["srup_signature"], spec["security"]) == (
        "srup",
        "ed25519",
        "none",
    )
    mqtt = owner_client.post("/api/experiments/", {**body, "protocol": "mqtt"}, format="json")
    mqtt_run = owner_client.post(f"/api/experiments/{mqtt.json()['id']}/runs/").json()["id"]
    assert "srup_signature" not in Run.objects.get(pk=mqtt_run).spec
