"""Interleaved mode (issue #20 point 3): a design whose runs alternate mechanisms message by
message is accepted for MQTT and CoAP round trips and its jobs carry the rotation; every
other design answers 400 on the field to change, with how to fix it."""

from __future__ import annotations

from typing import Any

import pytest
from iotsecbench_contract.interleave import DUPLICATE, parse_interleave

from core.testing.factories import DeviceFactory
from experiments.models import Experiment, Run
from experiments.rules import (
    INTERLEAVE_MEASUREMENT,
    INTERLEAVE_MESSAGING_ONLY,
    INTERLEAVE_PROTOCOLS,
    INTERLEAVE_SECURITY,
    INTERLEAVE_SECURITY_AXIS,
)
from experiments.services.jobs import _job_for

ROTATION = ["none", "null", "aes-128-cbc"]
DESIGN = {
    "name": "Securing cost, interleaved",
    "protocol": "mqtt",
    "qos": 1,
    "security": "none",
    "interleave_mechanisms": ROTATION,
    "payload_size": 1024,
    "message_count": 99,
}


def _create(client: Any, personas: Any, **overrides: Any) -> Any:
    device = DeviceFactory.create(workspace=personas.workspace)
    body = {**DESIGN, "device_ids": [str(device.pk)], **overrides}
    return client.post("/api/experiments/", body, format="json")


@pytest.mark.django_db
@pytest.mark.parametrize("protocol", ["mqtt", "coap"])
def test_interleaved_design_is_created_for_mqtt_and_coap_round_trips(
    personas, owner_client, protocol
):
    response = _create(owner_client, personas, protocol=protocol)

    assert response.status_code == 201, response.json()
    assert response.json()["interleave_mechanisms"] == ROTATION
    assert Experiment.objects.get().interleave_mechanisms == ROTATION


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"interleave_mechanisms": ["aes-128-cbc"]}, "interleave_mechanisms", "2 to 8"),
        ({"interleave_mechanisms": ["none", "rot13"]}, "interleave_mechanisms", "rot13"),
        ({"interleave_mechanisms": ["none", "null", "none"]}, "interleave_mechanisms", DUPLICATE),
        ({"protocol": "srup"}, "interleave_mechanisms", INTERLEAVE_PROTOCOLS),
        (
            {"protocol": "mqttsn", "qos": 1, "payload_size": 66},
            "interleave_mechanisms",
            INTERLEAVE_PROTOCOLS,
        ),
        ({"measurement": "ack"}, "measurement", INTERLEAVE_MEASUREMENT),
        ({"measurement": "one_way"}, "measurement", INTERLEAVE_MEASUREMENT),
        ({"security": "aes-128-cbc"}, "security", INTERLEAVE_SECURITY),
        (
            {"axes": [{"parameter": "security", "values": ["none", "null"]}]},
            "interleave_mechanisms",
            INTERLEAVE_SECURITY_AXIS,
        ),
        (
            {"kind": "cipher_bench", "mechanisms": ["aes-128-cbc"], "data_sizes": [16]},
            "interleave_mechanisms",
            INTERLEAVE_MESSAGING_ONLY.format(kind="cipher_bench"),
        ),
    ],
    ids=[
        "one",
        "unknown",
        "duplicate",
        "srup",
        "mqttsn",
        "ack",
        "one-way",
        "security",
        "security-axis",
        "cipher-bench",
    ],
)
def test_interleaved_design_answers_400_naming_the_field_to_change(
    personas, owner_client, overrides, field, message
):
    response = _create(owner_client, personas, **overrides)

    assert response.status_code == 400, response.json()
    fields = response.json()["extra"]["fields"]
    assert list(fields) == [field]
    assert any(message.lower() in text.lower() for text in fields[field]), fields
    assert Experiment.objects.count() == 0


@pytest.mark.django_db
def test_interleaved_run_sends_the_agent_a_job_with_its_rotation(
    personas, owner_client, monkeypatch
):
    monkeypatch.setattr("experiments.services.jobs.mqtt_publish_many", lambda msgs: None)
    experiment = _create(owner_client, personas).json()
    run = Run.objects.get(
        pk=owner_client.post(f"/api/experiments/{experiment['id']}/runs/").json()["id"]
    )

    spec = _job_for(run.run_devices.get(), seq=1, now=0.0)["spec"]
    assert spec["interleave_mechanisms"] == ROTATION
    assert spec["security"] == "none"
    # What the agent parses: the contract's check of the same job.
    assert parse_interleave(spec) == tuple(ROTATION)


@pytest.mark.django_db
def test_design_that_does_not_interleave_freezes_no_rotation(personas, owner_client, monkeypatch):
    monkeypatch.setattr("experiments.services.jobs.mqtt_publish_many", lambda msgs: None)
    experiment = _create(owner_client, personas, interleave_mechanisms=[]).json()
    run = Run.objects.get(
        pk=owner_client.post(f"/api/experiments/{experiment['id']}/runs/").json()["id"]
    )

    assert "interleave_mechanisms" not in run.spec
