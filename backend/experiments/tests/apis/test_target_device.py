"""Another enrolled device as a run's target (issue #19 point 3, `target_device`): only a
device of the design's own workspace, answered like an unknown id otherwise (no leak);
bad combinations are 400s naming the field."""

from __future__ import annotations

from typing import Any

import pytest

from core.testing.factories import DeviceFactory
from experiments.models import Experiment


@pytest.fixture
def lab(personas):
    client = DeviceFactory.create(workspace=personas.workspace, name="client-pi")
    gateway = DeviceFactory.create(workspace=personas.workspace, name="gateway-pi")
    outsider = DeviceFactory.create(workspace=personas.outsider_workspace, name="theirs")
    return client, gateway, outsider


def _post(http: Any, devices: list[Any], **fields: Any) -> Any:
    body = {"name": "two pis", "device_ids": [str(d.pk) for d in devices], **fields}
    return http.post("/api/experiments/", body, format="json")


@pytest.mark.django_db
@pytest.mark.parametrize("protocol", ["mqttsn", "coap"])
def test_the_owner_names_a_device_of_the_workspace_as_the_runs_target(owner_client, lab, protocol):
    client, gateway, _ = lab
    created = _post(owner_client, [client], protocol=protocol, target_device=str(gateway.pk))
    assert created.status_code == 201, created.json()
    assert created.json()["target_device"] == str(gateway.pk)
    assert Experiment.objects.get().target_device == gateway


@pytest.mark.django_db
def test_another_workspaces_device_is_refused_exactly_like_an_unknown_one(owner_client, lab):
    client, _, theirs = lab
    unknown = "00000000-0000-4000-8000-000000000000"
    answers = [
        _post(owner_client, [client], protocol="mqttsn", target_device=device_id)
        for device_id in (str(theirs.pk), unknown)
    ]
    assert [a.status_code for a in answers] == [400, 400]
    messages = [a.json()["extra"]["fields"]["target_device"] for a in answers]
    assert messages == [[f"Unknown device {theirs.pk}."], [f"Unknown device {unknown}."]]
    assert "theirs" not in str(answers[0].json())
    assert not Experiment.objects.exists()


@pytest.mark.django_db
def test_an_outsider_cannot_name_the_workspaces_device_from_their_own(outsider_client, lab):
    _, gateway, theirs = lab
    answer = _post(outsider_client, [theirs], protocol="coap", target_device=str(gateway.pk))
    assert answer.status_code == 400
    assert answer.json()["extra"]["fields"]["target_device"] == [f"Unknown device {gateway.pk}."]
    assert "gateway-pi" not in str(answer.json())


BAD: list[tuple[dict[str, Any], str, str]] = [
    ({"protocol": "mqtt"}, "target_device", "CoAP and MQTT-SN runs"),
    ({"protocol": "srup"}, "target_device", "CoAP and MQTT-SN runs"),
    ({"protocol": "mqttsn", "mqttsn_gateway": "192.0.2.1:1884"}, "mqttsn_gateway", "serves"),
    ({"protocol": "coap", "coap_url": "coap://192.0.2.1/echo"}, "coap_url", "serves"),
    ({"protocol": "coap", "target_host": "pi 2"}, "target_host", "host name or IP"),
    ({"protocol": "coap", "target_host": "pi:5683/x"}, "target_host", "host name or IP"),
    # A ":" makes it an IPv6 address, which it must then be (no port, no brackets).
    ({"protocol": "coap", "target_host": "pi-2:5683"}, "target_host", "IPv6 address"),
    ({"protocol": "coap", "target_host": "[2001:db8::5]"}, "target_host", "without brackets"),
]


@pytest.mark.django_db
@pytest.mark.parametrize("host", ["::1", "2001:db8::5", "10.0.0.5", "pi-2.lab"])
def test_a_target_host_may_be_an_ipv6_address(owner_client, lab, host):
    client, gateway, _ = lab
    answer = _post(
        owner_client, [client], protocol="mqttsn", target_device=str(gateway.pk), target_host=host
    )
    assert answer.status_code == 201, answer.json()
    assert answer.json()["target_host"] == host


@pytest.mark.django_db
@pytest.mark.parametrize(("fields", "field", "words"), BAD)
def test_a_target_that_cannot_serve_the_design_is_a_400_naming_the_field(
    owner_client, lab, fields, field, words
):
    client, gateway, _ = lab
    answer = _post(owner_client, [client], target_device=str(gateway.pk), **fields)
    assert answer.status_code == 400, answer.json()
    assert any(words in m for m in answer.json()["extra"]["fields"][field])


@pytest.mark.django_db
def test_the_target_cannot_be_one_of_the_runs_clients(owner_client, lab):
    client, gateway, _ = lab
    answer = _post(owner_client, [client, gateway], protocol="coap", target_device=str(gateway.pk))
    assert answer.status_code == 400
    assert "cannot also be one of" in answer.json()["extra"]["fields"]["target_device"][0]


@pytest.mark.django_db
def test_a_target_host_needs_a_target_device(owner_client, lab):
    client, _, _ = lab
    answer = _post(owner_client, [client], protocol="coap", target_host="10.0.0.2")
    assert answer.status_code == 400
    assert "name the target_device" in answer.json()["extra"]["fields"]["target_host"][0]


@pytest.mark.django_db
def test_one_predefined_topic_id_cannot_serve_several_clients_of_one_gateway(owner_client, lab):
    client, gateway, _ = lab
    second = DeviceFactory.create(workspace=client.workspace)
    fields = {"protocol": "mqttsn", "topic_id_type": "predefined", "mqttsn_topic_id": 5}
    answer = _post(owner_client, [client, second], target_device=str(gateway.pk), **fields)
    assert answer.status_code == 400
    assert "share the target gateway" in answer.json()["extra"]["fields"]["mqttsn_topic_id"][0]
    assert _post(owner_client, [client], target_device=str(gateway.pk), **fields).status_code == 201


@pytest.mark.django_db
def test_the_plan_refuses_another_workspaces_target_as_creating_does(owner_client, lab):
    client, _, theirs = lab
    body = {
        "name": "plan",
        "device_ids": [str(client.pk)],
        "protocol": "coap",
        "target_device": str(theirs.pk),
    }
    answer = owner_client.post("/api/experiments/plan/", body, format="json")
    assert answer.status_code == 400
    assert answer.json()["extra"]["fields"]["target_device"] == [f"Unknown device {theirs.pk}."]
