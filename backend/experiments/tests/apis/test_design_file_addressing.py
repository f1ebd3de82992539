"""Design files set a messaging design's addressing and targets (docs/experiment-design.md
"Topics and targets"), and export them only when the design sets them."""

from __future__ import annotations

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile

from core.testing.factories import DeviceFactory
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
