"""GET /api/runs/<id>/sizes/: one message of a run, byte by byte."""

from __future__ import annotations

import pytest
from conftest import client_for

from core.testing.factories import ExperimentFactory
from experiments.models import ExperimentKind, Run, RunStatus
from results.apis.sizes import NO_DELIVERED_MESSAGES_MESSAGE
from results.services.size_model import COMPONENTS
from results.tests.conftest import MS, messaging_spec

AES_SPEC = messaging_spec(security="aes-128-cbc", qos=1, payload_size=66)
# MQTT 3.1.1 QoS 1 to the 90-byte data topic, body 16 + 66 + 14 = 96:
# 1 + 2 (remaining 192) + 2 + 90 + 2 + 96 = 193 bytes of TCP payload.
AES_WIRE = 193


@pytest.mark.django_db
def test_sizes_answer_the_breakdown_of_a_message_from_measured_wire_bytes(make_run, personas):
    made = make_run({"pi-a": [MS, MS, None], "pi-b": [MS]}, spec=AES_SPEC, wire_bytes=AES_WIRE)
    response = client_for(personas.teammate).get(f"/api/runs/{made.run.pk}/sizes/")

    assert response.status_code == 200
    body = response.json()
    assert (body["run_id"], body["protocol"], body["security"], body["qos"]) == (
        str(made.run.pk),
        "mqtt",
        "aes-128-cbc",
        1,
    )
    assert (body["messages"], body["wire_bytes_median"]) == (3, AES_WIRE)
    assert (body["plaintext_bytes"], body["residual_bytes"], body["model_agrees"]) == (
        AES_WIRE,
        0,
        True,
    )
    assert body["warning"] is None
    by_key = {c["key"]: (c["bytes"], c["basis"]) for c in body["components"] if c["bytes"]}
    assert by_key == {
        "link": (14, "assumed"),
        "ip": (20, "assumed"),
        "tcp": (32, "assumed"),
        "mqtt_header": (7, "spec"),
        "topic": (90, "spec"),
        "iv": (16, "spec"),
        "payload": (66, "spec"),
        "padding": (14, "spec"),
    }
    assert body["frame_bytes"] == AES_WIRE + 66
    assert len(body["components"]) == len(COMPONENTS)  # every component: runs stack alike
    assert any("FCS" in a for a in body["assumptions"])


# The runs (#19): 64-byte payloads without payload security, whose measured bytes the
# old model (MQTT over TCP for every run) called wrong.
COAP_SPEC = messaging_spec(protocol="coap", coap_type="con", coap_method="get", payload_size=64)
MQTTSN_SPEC = messaging_spec(protocol="mqttsn", topic_id_type="normal", payload_size=64)


@pytest.mark.django_db
def test_sizes_of_a_coap_run_are_its_request_datagram_over_udp(make_run, owner_client):
    # 4 (header) + 2 (aiocoap's token) + 5 (Uri-Path "echo") + 1 (0xFF) + 64 = 76 bytes.
    made = make_run({"pi-a": [MS, MS]}, spec=COAP_SPEC, wire_bytes=76)
    body = owner_client.get(f"/api/runs/{made.run.pk}/sizes/").json()

    assert (body["model_agrees"], body["warning"]) == (True, None)
    by_key = {c["key"]: (c["bytes"], c["basis"]) for c in body["components"] if c["bytes"]}
    assert by_key == {
        "link": (14, "assumed"),
        "ip": (20, "assumed"),
        "udp": (8, "assumed"),
        "coap_header": (4, "spec"),
        "coap_token": (2, "measured"),
        "coap_options": (5, "spec"),
        "payload_marker": (1, "spec"),
        "payload": (64, "spec"),
    }
    assert body["frame_bytes"] == 76 + 14 + 20 + 8
    assert any("UDP: 8-byte header, once per datagram" in a for a in body["assumptions"])
    assert not any("TCP:" in a for a in body["assumptions"])


@pytest.mark.django_db
def test_sizes_of_an_mqttsn_run_are_its_publish_to_the_gateway_over_udp(make_run, owner_client):
    # Length 1 + MsgType 1 + Flags 1 + TopicId 2 + MsgId 2 + 64 = 71 bytes.
    made = make_run({"pi-a": [MS]}, spec=MQTTSN_SPEC, wire_bytes=71)
    body = owner_client.get(f"/api/runs/{made.run.pk}/sizes/").json()

    assert (body["model_agrees"], body["residual_bytes"]) == (True, 0)
    by_key = {c["key"]: c["bytes"] for c in body["components"] if c["bytes"]}
    assert by_key == {
        "link": 14,
        "ip": 20,
        "udp": 8,
        "mqttsn_header": 5,
        "topic_id": 2,
        "payload": 64,
    }


@pytest.mark.django_db
def test_sizes_of_a_one_way_srup_run_count_the_data_topic_it_was_sent_on(make_run, owner_client):
    # One way, the platform publishes SRUP on the device's 90-byte data topic, not SRUP/<id>:
    # 1 + 2 (remaining 282) + 2 + 90 + 2 + 30 + 36 + 64 + 66 = 293 bytes.
    spec = messaging_spec(protocol="srup", srup_signature="ed25519", measurement="one_way")
    made = make_run({"pi-a": [MS]}, spec=spec, wire_bytes=293)
    body = owner_client.get(f"/api/runs/{made.run.pk}/sizes/").json()

    assert (body["model_agrees"], body["residual_bytes"]) == (True, 0)
    assert {c["key"]: c["bytes"] for c in body["components"]}["topic"] == 90


@pytest.mark.django_db
def test_sizes_flag_measured_bytes_below_the_model(make_run, owner_client):
    made = make_run({"pi-a": [MS]}, spec=AES_SPEC, wire_bytes=AES_WIRE - 1)
    body = owner_client.get(f"/api/runs/{made.run.pk}/sizes/").json()
    assert body["residual_bytes"] == -1
    assert body["model_agrees"] is False
    assert "1 fewer" in body["warning"]


@pytest.mark.django_db
def test_sizes_answer_400_when_no_message_was_delivered(make_run, owner_client):
    made = make_run({"pi-a": [None, None]})
    response = owner_client.get(f"/api/runs/{made.run.pk}/sizes/")
    assert response.status_code == 400
    assert response.json() == {
        "message": NO_DELIVERED_MESSAGES_MESSAGE.format(run_id=made.run.pk),
        "code": "run_has_no_delivered_messages",
        "extra": {},
    }


@pytest.mark.django_db
def test_sizes_answer_400_for_a_cipher_benchmark(personas, owner_client):
    experiment = ExperimentFactory.create(
        workspace=personas.workspace, kind=ExperimentKind.CIPHER_BENCH
    )
    run = Run.objects.create(experiment=experiment, status=RunStatus.DONE, spec={})
    response = owner_client.get(f"/api/runs/{run.pk}/sizes/")
    assert response.status_code == 400
    assert response.json()["code"] == "run_has_no_round_trips"


@pytest.mark.django_db
def test_sizes_are_404_outside_the_workspace_and_401_anonymous(
    make_run, outsider_client, anonymous_client
):
    made = make_run({"pi-a": [MS]})
    outsider = outsider_client.get(f"/api/runs/{made.run.pk}/sizes/")
    assert outsider.status_code == 404
    assert outsider.json()["code"] == "not_found"
    assert anonymous_client.get(f"/api/runs/{made.run.pk}/sizes/").status_code == 401


@pytest.mark.django_db
def test_sizes_of_the_papers_plain_mqtt_action_show_srups_frame_beside_it(make_run, owner_client):
    spec = messaging_spec(
        protocol="mqtt", qos=1, payload_size=1, topic="test/d1", broker_url="mqtt://10.0.0.5"
    )
    made = make_run({"pi-a": [MS]}, spec=spec, wire_bytes=14)
    body = owner_client.get(f"/api/runs/{made.run.pk}/sizes/").json()

    assert (body["wire_bytes_median"], body["frame_bytes"], body["model_agrees"]) == (14, 80, True)
    (srup,) = body["reference_frames"]
    assert (srup["protocol"], srup["socket_bytes"], srup["frame_bytes"]) == ("srup", 380, 446)
    assert srup["paper_frame_bytes"] == 430
