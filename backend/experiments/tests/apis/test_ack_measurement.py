"""Measurement ``ack`` (issue #19 point 4): a design whose messages are acknowledged is
accepted and its jobs carry it; one without an acknowledgement answers 400 on the field to
change, with how to fix it."""

from __future__ import annotations

from typing import Any

import pytest

from core.testing.factories import DeviceFactory
from experiments.models import Experiment, Run
from experiments.rules import (
    ACK_COAP_ONE_BLOCK,
    ACK_NEEDS_CON,
    ACK_NEEDS_MQTTSN_QOS_1,
    ACK_NEEDS_QOS,
    ACK_PROTOCOLS,
    COAP_BLOCK_BYTES,
)
from experiments.services.jobs import _job_for

ACK_DESIGN = {
    "name": "MQTT vs CoAP: publish to PUBACK",
    "protocol": "mqtt",
    "qos": 1,
    "security": "aes-128-cbc",
    "payload_size": 66,
    "message_count": 100,
    "measurement": "ack",
}


def _create(client: Any, personas: Any, **overrides: Any) -> Any:
    device = DeviceFactory.create(workspace=personas.workspace)
    body = {**ACK_DESIGN, "device_ids": [str(device.pk)], **overrides}
    return client.post("/api/experiments/", body, format="json")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "overrides",
    [
        {"qos": 1},
        {"qos": 2},
        {"protocol": "coap", "coap_type": "con", "qos": 0},
        {"protocol": "mqttsn", "qos": 1},
    ],
    ids=["mqtt-qos1-puback", "mqtt-qos2-pubcomp", "coap-con-ack", "mqttsn-qos1-puback"],
)
def test_ack_design_is_created_when_its_messages_are_acknowledged(
    personas, owner_client, overrides
):
    response = _create(owner_client, personas, **overrides)

    assert response.status_code == 201, response.json()
    assert response.json()["measurement"] == "ack"
    assert Experiment.objects.get(pk=response.json()["id"]).measurement == "ack"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"qos": 0}, "qos", ACK_NEEDS_QOS.format(qos=0)),
        ({"protocol": "coap", "coap_type": "non"}, "coap_type", ACK_NEEDS_CON),
        ({"protocol": "srup", "security": "none"}, "measurement", ACK_PROTOCOLS),
        ({"protocol": "mqttsn", "qos": 0}, "qos", ACK_NEEDS_MQTTSN_QOS_1.format(qos=0)),
        (
            {"protocol": "mqttsn", "qos": -1, "topic_id_type": "short"},
            "qos",
            ACK_NEEDS_MQTTSN_QOS_1.format(qos=-1),
        ),
        (
            {"protocol": "coap", "coap_type": "con", "payload_size": 1008},
            "payload_size",
            # aes-128-cbc: a 16-byte IV, then at least one byte of PKCS#7 padding to a
            # multiple of 16: 1,007 bytes make 1,024, 1,008 make 1,040.
            ACK_COAP_ONE_BLOCK.format(block=COAP_BLOCK_BYTES, mechanism="aes-128-cbc", fits=1007),
        ),
    ],
    ids=["qos0", "coap-non", "srup", "mqttsn-qos0", "mqttsn-qos-1", "coap-over-one-block"],
)
def test_ack_design_without_an_acknowledgement_answers_400_on_the_field_to_change(
    personas, owner_client, overrides, field, message
):
    response = _create(owner_client, personas, **overrides)

    assert response.status_code == 400
    fields = response.json()["extra"]["fields"]
    assert list(fields) == [field]
    if message is not None:
        assert fields[field] == [message]
    assert Experiment.objects.count() == 0


@pytest.mark.django_db
def test_qos_0_refusal_names_the_field_and_how_to_fix_it(personas, owner_client):
    response = _create(owner_client, personas, qos=0)

    text = response.json()["extra"]["fields"]["qos"][0]
    assert "QoS 0 has no acknowledgement" in text
    assert "set qos to 1 or 2" in text


@pytest.mark.django_db
def test_ack_run_sends_the_agent_a_job_measuring_ack(personas, owner_client, monkeypatch):
    monkeypatch.setattr("experiments.services.jobs.mqtt_publish_many", lambda msgs: None)
    experiment = _create(owner_client, personas, qos=2).json()
    run = Run.objects.get(
        pk=owner_client.post(f"/api/experiments/{experiment['id']}/runs/").json()["id"]
    )

    job = _job_for(run.run_devices.get(), seq=1, now=0.0)
    assert (job["spec"]["measurement"], job["spec"]["qos"]) == ("ack", 2)
    assert job["spec"]["security"] == "aes-128-cbc"
    assert job["spec"]["topic"].startswith(f"iotsecbench/data/{run.pk}/")


@pytest.mark.django_db
def test_srup_ack_refusal_says_why_srup_has_no_acknowledgement_of_its_own(personas, owner_client):
    response = _create(owner_client, personas, protocol="srup", security="none")

    text = response.json()["extra"]["fields"]["measurement"][0]
    assert "SRUP adds no acknowledgement of its own" in text
    assert "MQTT-SN (PUBLISH to PUBACK at QoS 1)" in text
