"""Design files set a messaging design's addressing and targets (docs/experiment-design.md
"Topics and targets"), and export them only when the design sets them."""

from __future__ import annotations

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile

from core.testing.factories import DeviceFactory
from experiments.design_file import TARGET_DEVICE_UNKNOWN
from experiments.models import Experiment

HEAD = "format: iotsecbench-experiment/1\nname: addressed\ndevices: [pi-1]\n"


@pytest.fixture
def device(personas):
    return DeviceFactory.create(workspace=personas.workspace, name="pi-1")


def _import(client, text: str):
    upload = SimpleUploadedFile("design.yaml", text.encode(), content_type="application/yaml")
    return client.post("/api/experiments/import/", {"file": upload}, format="multipart")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("parameters", "stored"),
    [
        (
            "{protocol: mqtt, topic: test/d1, broker_url: 'mqtt://broker.example:1883'}",
            {"topic": "test/d1", "broker_url": "mqtt://broker.example:1883"},
        ),
        (
            "{protocol: mqttsn, topic_id_type: predefined, mqttsn_topic_id: 7,"
            " mqttsn_gateway: 'gw.example:10000'}",
            {"mqttsn_topic_id": 7, "mqttsn_gateway": "gw.example:10000"},
        ),
        (
            "{protocol: coap, coap_url: 'coap://coap.example:5683/echo'}",
            {"coap_url": "coap://coap.example:5683/echo"},
        ),
    ],
)
def test_a_design_file_sets_the_addressing_and_exports_it_back(
    owner_client, device, parameters, stored
):
    response = _import(owner_client, HEAD + f"parameters: {parameters}\n")

    assert response.status_code == 201, response.json()
    experiment = Experiment.objects.get(pk=response.json()["id"])
    for field, value in stored.items():
        assert getattr(experiment, field) == value, field
    exported = owner_client.get(f"/api/experiments/{experiment.pk}/design.yaml")
    document = yaml.safe_load(exported.content)
    assert {k: document["parameters"][k] for k in stored} == stored
    again = _import(owner_client, exported.content.decode())
    assert again.status_code == 201, again.json()
    assert {k: again.json()[k] for k in stored} == stored


@pytest.mark.django_db
def test_a_design_without_addressing_exports_none_of_its_fields(owner_client, device):
    response = _import(owner_client, HEAD + "parameters: {protocol: mqtt}\n")
    assert response.status_code == 201, response.json()

    exported = owner_client.get(f"/api/experiments/{response.json()['id']}/design.yaml")
    parameters = yaml.safe_load(exported.content)["parameters"]
    assert not {"topic", "mqttsn_topic_id", "broker_url", "coap_url", "mqttsn_gateway"} & set(
        parameters
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("parameters", "field", "words"),
    [
        ("{protocol: mqttsn, topic_id_type: predefined, mqttsn_topic_id: 70000}", "file", "70000"),
        ("{protocol: mqtt, topic: test/d1}", "topic", "On the platform's broker"),
        ("{protocol: coap, coap_url: 'coaps://h/echo'}", "coap_url", "coap://host"),
    ],
)
def test_a_bad_address_in_a_design_file_is_refused_with_its_reason(
    owner_client, device, parameters, field, words
):
    response = _import(owner_client, HEAD + f"parameters: {parameters}\n")

    assert response.status_code == 400
    assert words in " ".join(response.json()["extra"]["fields"][field])
    assert Experiment.objects.count() == 0


@pytest.mark.django_db
def test_a_target_device_is_exported_by_name_and_imported_into_another_workspace_by_name(
    owner_client, outsider_client, personas, device
):
    gateway = DeviceFactory.create(workspace=personas.workspace, name="gateway-pi")
    created = _import(
        owner_client, HEAD + "parameters: {protocol: mqttsn, target_device: gateway-pi}\n"
    )
    assert created.status_code == 201, created.json()
    assert Experiment.objects.get(pk=created.json()["id"]).target_device == gateway

    exported = owner_client.get(f"/api/experiments/{created.json()['id']}/design.yaml")
    assert yaml.safe_load(exported.content)["parameters"]["target_device"] == "gateway-pi"
    DeviceFactory.create(workspace=personas.outsider_workspace, name="pi-1")
    theirs = DeviceFactory.create(workspace=personas.outsider_workspace, name="gateway-pi")
    imported = _import(outsider_client, exported.content.decode())

    assert imported.status_code == 201, imported.json()
    assert imported.json()["target_device"] == str(theirs.pk)
    assert Experiment.objects.get(pk=imported.json()["id"]).workspace == personas.outsider_workspace


@pytest.mark.django_db
def test_a_target_device_no_device_of_the_workspace_is_named_is_a_400_naming_the_field(
    owner_client, device
):
    response = _import(owner_client, HEAD + "parameters: {protocol: mqttsn, target_device: gw-9}\n")

    assert response.status_code == 400
    assert response.json()["extra"]["fields"]["target_device"] == [
        TARGET_DEVICE_UNKNOWN.format(name="gw-9")
    ]
    assert Experiment.objects.count() == 0


@pytest.mark.django_db
def test_a_target_device_given_by_id_as_older_files_did_is_still_imported(
    owner_client, personas, device
):
    gateway = DeviceFactory.create(workspace=personas.workspace, name="gateway-pi")
    text = HEAD + f"parameters: {{protocol: coap, target_device: '{gateway.pk}'}}\n"

    response = _import(owner_client, text)

    assert response.status_code == 201, response.json()
    assert Experiment.objects.get(pk=response.json()["id"]).target_device == gateway
