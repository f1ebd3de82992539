"""Topics and targets as design parameters (issue #19 points 2 and 3,
experiments/addressing.py): bad values answer 400 naming the field; good ones reach each
device's job, resolved per device, with no secret and nothing of the platform's identity
for an external broker; the size model counts the chosen topic."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.testing.factories import DeviceFactory
from experiments.models import Experiment, Run, RunDevice
from experiments.services.jobs import _job_for
from results.services.size_model import message_parts
from results.services.sizes import run_address

EXTERNAL = "mqtt://127.0.0.1:1883"


@pytest.fixture
def devices(personas):
    return [DeviceFactory.create(workspace=personas.workspace) for _ in range(2)]


def _post(client: Any, devices: list[Any], **fields: Any) -> Any:
    body = {"name": "addressing", "device_ids": [str(d.pk) for d in devices], **fields}
    return client.post("/api/experiments/", body, format="json")


def _jobs(client: Any, experiment_id: str, monkeypatch: Any) -> list[dict[str, Any]]:
    monkeypatch.setattr("django.db.transaction.on_commit", lambda fn, **kw: None)
    assert client.post(f"/api/experiments/{experiment_id}/runs/").status_code == 201
    run = Run.objects.get(experiment_id=experiment_id)
    parts = RunDevice.objects.filter(run=run).select_related("run__experiment", "device")
    return [_job_for(p, seq=1, now=0.0) for p in parts.order_by("device__pk")]


BAD: list[tuple[dict[str, Any], str, str]] = [
    ({"protocol": "coap", "topic": "test/{device}"}, "topic", "MQTT runs"),
    ({"protocol": "srup", "topic": "test/{device}"}, "topic", "SRUP/<device id>"),
    ({"measurement": "one_way", "payload_size": 16, "topic": "t/{device}"}, "topic", "One-way"),
    ({"topic": "test/+/{device}"}, "topic", "wildcards"),
    ({"topic": "test/#"}, "topic", "wildcards"),
    ({"topic": "iotsecbench/data/{device}"}, "topic", "iotsecbench/"),
    ({"topic": "SRUP/{device}"}, "topic", "iotsecbench/"),
    ({"topic": "$SYS/{device}"}, "topic", "iotsecbench/"),
    ({"topic": "test/{run}/{device}"}, "topic", "placeholder"),
    ({"topic": "test//{device}"}, "topic", "empty levels"),
    ({"topic": "test/d1"}, "topic", "own topics"),
    ({"topic": "{device}/test"}, "topic", "own topics"),
    ({"topic": "a/b/c/d/e/f/{device}"}, "topic", "own topics"),
    ({"topic": "test/d1", "broker_url": EXTERNAL}, "topic", "2 devices would share"),
    (
        {"protocol": "mqttsn", "topic_id_type": "predefined", "mqttsn_topic_id": 0},
        "mqttsn_topic_id",
        "greater than or equal to 1",
    ),
    (
        {"protocol": "mqttsn", "topic_id_type": "predefined", "mqttsn_topic_id": 65535},
        "mqttsn_topic_id",
        "less than or equal to 65534",
    ),
    ({"protocol": "mqttsn", "mqttsn_topic_id": 7}, "mqttsn_topic_id", "predefined"),
    ({"mqttsn_topic_id": 7}, "mqttsn_topic_id", "predefined"),
    ({"broker_url": "udp://192.0.2.1:9999"}, "broker_url", "mqtt:// or mqtts://"),
    ({"broker_url": "mqtt://"}, "broker_url", "no host"),
    ({"broker_url": "mqtt://user:pw@broker.example"}, "broker_url", "no secrets"),
    ({"protocol": "coap", "broker_url": EXTERNAL}, "broker_url", "MQTT and SRUP"),
    (
        {"measurement": "one_way", "payload_size": 16, "broker_url": EXTERNAL},
        "broker_url",
        "One-way",
    ),
    ({"transport": "tls1.3", "broker_url": EXTERNAL}, "transport", "mqtts://"),
    ({"protocol": "coap", "coap_url": "http://192.0.2.1/echo"}, "coap_url", "coap://host"),
    ({"protocol": "coap", "coap_url": "coaps://192.0.2.1/echo"}, "coap_url", "coap://host"),
    ({"protocol": "coap", "coap_url": "coap://u:p@192.0.2.1/echo"}, "coap_url", "no secrets"),
    ({"protocol": "coap", "coap_url": "coap://192.0.2.1:0/echo"}, "coap_url", "coap://host"),
    ({"coap_url": "coap://192.0.2.1/echo"}, "coap_url", "CoAP runs"),
    ({"protocol": "mqttsn", "mqttsn_gateway": "192.0.2.1"}, "mqttsn_gateway", "host:port"),
    ({"protocol": "mqttsn", "mqttsn_gateway": "192.0.2.1:70000"}, "mqttsn_gateway", "host:port"),
    ({"protocol": "mqttsn", "mqttsn_gateway": "u@192.0.2.1:1884"}, "mqttsn_gateway", "host:port"),
    ({"protocol": "mqttsn", "mqttsn_gateway": "192.0.2.1:1884/x"}, "mqttsn_gateway", "host:port"),
    ({"mqttsn_gateway": "192.0.2.1:1884"}, "mqttsn_gateway", "MQTT-SN runs"),
    # IPv6: the address in brackets before a port; a bracketed host must be an IP address.
    ({"protocol": "mqttsn", "mqttsn_gateway": "2001:db8::1:1884"}, "mqttsn_gateway", "[addr]"),
    ({"protocol": "mqttsn", "mqttsn_gateway": "[pi-2]:1884"}, "mqttsn_gateway", "[addr]"),
    ({"protocol": "coap", "coap_url": "coap://[pi-2]:5683/echo"}, "coap_url", "coap://[addr]"),
    ({"protocol": "coap", "coap_url": "coap://::1:5683/echo"}, "coap_url", "coap://[addr]"),
    ({"protocol": "coap", "coap_path": "echo", "coap_url": "coap://[pi-2]/"}, "coap_url", "[addr]"),
    ({"broker_url": "mqtt://[pi-2]:1883"}, "broker_url", "in brackets"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("fields", "field", "words"), BAD)
def test_a_bad_topic_or_target_is_a_400_naming_the_field(
    owner_client, devices, fields, field, words
):
    response = _post(owner_client, devices, **fields)
    assert response.status_code == 400, response.json()
    messages = response.json()["extra"]["fields"][field]
    assert any(words in m for m in messages), messages
    assert not Experiment.objects.exists()


@pytest.mark.django_db
def test_a_device_topic_on_the_platforms_broker_is_each_devices_own(
    owner_client, devices, monkeypatch
):
    created = _post(owner_client, devices, topic="bench/{device}")
    assert created.status_code == 201, created.json()
    assert created.json()["topic"] == "bench/{device}"
    jobs = _jobs(owner_client, created.json()["id"], monkeypatch)
    assert [j["spec"]["topic"] for j in jobs] == [
        f"bench/{d.pk}" for d in sorted(devices, key=lambda d: d.pk)
    ]
    assert all("broker_external" not in j["spec"] for j in jobs)


@pytest.mark.django_db
def test_the_papers_literal_topic_goes_to_an_external_broker_without_platform_identity(
    owner_client, devices, monkeypatch
):
    created = _post(owner_client, devices[:1], topic="test/d1", broker_url=EXTERNAL, payload_size=1)
    assert created.status_code == 201, created.json()
    (job,) = _jobs(owner_client, created.json()["id"], monkeypatch)
    spec = job["spec"]
    assert spec["topic"] == "test/d1"
    assert spec["broker_url"] == EXTERNAL
    assert spec["broker_external"] is True
    assert not {"ca_cert", "client_cert", "client_key", "tls_version"} & set(spec)
    assert "@" not in json.dumps(job)

    run = Run.objects.get(experiment_id=created.json()["id"])
    assert run_address(run=run) == "test/d1"
    parts = message_parts(spec=run.spec, address=run_address(run=run))
    # QoS 1, MQTT 3.1.1: fixed header 2 + topic length 2 + "test/d1" 7 + packet id 2 + 1 byte.
    assert sum(parts.values()) == 14


@pytest.mark.django_db
def test_a_literal_topic_for_one_device_per_run_is_accepted_and_a_device_topic_for_many(
    owner_client, devices
):
    assert _post(owner_client, devices, topic="t/{device}", broker_url=EXTERNAL).status_code == 201
    assert _post(owner_client, devices[:1], topic="t", broker_url=EXTERNAL).status_code == 201


@pytest.mark.django_db
def test_a_given_predefined_topic_id_replaces_the_drawn_one(owner_client, devices, monkeypatch):
    created = _post(
        owner_client, devices, protocol="mqttsn", topic_id_type="predefined", mqttsn_topic_id=4242
    )
    assert created.status_code == 201, created.json()
    jobs = _jobs(owner_client, created.json()["id"], monkeypatch)
    assert [j["spec"]["mqttsn_topic_id"] for j in jobs] == [4242, 4242]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "fields",
    [
        {"protocol": "coap", "coap_url": "coap://192.0.2.1:5683/echo/a"},
        {"protocol": "mqttsn", "mqttsn_gateway": "192.0.2.1:1884"},
        {"protocol": "mqttsn", "mqttsn_gateway": "[2001:db8::1]:1884"},
        {"protocol": "mqttsn", "mqttsn_gateway": "[::1]:1884"},
        {"protocol": "coap", "coap_url": "coap://[::1]:5683/echo"},
        {"protocol": "coap", "coap_url": "coap://[2001:db8::1]/sensors/t"},
    ],
)
def test_an_external_coap_server_or_gateway_reaches_every_job(
    owner_client, devices, monkeypatch, fields
):
    created = _post(owner_client, devices, **fields)
    assert created.status_code == 201, created.json()
    jobs = _jobs(owner_client, created.json()["id"], monkeypatch)
    field = "coap_url" if "coap_url" in fields else "mqttsn_gateway"
    assert [j["spec"][field] for j in jobs] == [fields[field]] * 2
