"""The CoAP resource path as a design parameter (issue #19 point 2, `coap_path`,
experiments/addressing.py): a bad path is a 400 naming the field; a good one reaches every
device's job and the size model counts its Uri-Path options."""

from __future__ import annotations

from typing import Any

import pytest
from iotsecbench_contract import framing

from core.testing.factories import DeviceFactory
from experiments.addressing import coap_request_uri
from experiments.models import Experiment, Run, RunDevice
from experiments.services.jobs import _job_for
from results.services.size_model import message_parts
from results.services.sizes import run_address


@pytest.fixture
def devices(personas):
    return [DeviceFactory.create(workspace=personas.workspace) for _ in range(2)]


def _post(client: Any, devices: list[Any], **fields: Any) -> Any:
    body = {"name": "coap path", "device_ids": [str(d.pk) for d in devices], **fields}
    return client.post("/api/experiments/", body, format="json")


BAD: list[tuple[dict[str, Any], str]] = [
    ({"coap_path": "/echo"}, "leading /"),
    ({"coap_path": "echo/"}, "no empty segments"),
    ({"coap_path": "a//b"}, "no empty segments"),
    ({"coap_path": "echo?x=1"}, "no query"),
    ({"coap_path": "echo#top"}, "fragment"),
    ({"coap_path": "with space"}, "RFC 3986"),
    ({"coap_path": "bad%zz"}, "%XX"),
    ({"coap_path": "x", "coap_url": "coap://192.0.2.1:5683/echo"}, "give the path once"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("fields", "words"), BAD)
def test_a_bad_coap_path_is_a_400_naming_the_field(owner_client, devices, fields, words):
    response = _post(owner_client, devices, protocol="coap", **fields)
    assert response.status_code == 400, response.json()
    messages = response.json()["extra"]["fields"]["coap_path"]
    assert any(words in m for m in messages), messages
    assert not Experiment.objects.exists()


@pytest.mark.django_db
def test_a_coap_path_on_an_mqtt_design_is_refused(owner_client, devices):
    response = _post(owner_client, devices, coap_path="echo")
    assert response.status_code == 400
    assert "CoAP runs" in response.json()["extra"]["fields"]["coap_path"][0]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fields", "uri"),
    [
        ({"coap_path": "sensors/temp~1"}, "coap://127.0.0.1/sensors/temp~1"),
        (
            {"coap_path": "a%20b/c", "coap_url": "coap://192.0.2.1:5683"},
            "coap://192.0.2.1:5683/a%20b/c",
        ),
        ({"coap_url": "coap://192.0.2.1:5683/"}, "coap://192.0.2.1:5683/echo"),
        ({}, "coap://127.0.0.1/echo"),
    ],
)
def test_a_coap_path_reaches_every_job_and_the_size_model_counts_it(
    owner_client, devices, monkeypatch, fields, uri
):
    created = _post(owner_client, devices, protocol="coap", payload_size=1, **fields)
    assert created.status_code == 201, created.json()
    assert created.json()["coap_path"] == fields.get("coap_path", "")
    monkeypatch.setattr("django.db.transaction.on_commit", lambda fn, **kw: None)
    assert owner_client.post(f"/api/experiments/{created.json()['id']}/runs/").status_code == 201
    run = Run.objects.get(experiment_id=created.json()["id"])
    parts = RunDevice.objects.filter(run=run).select_related("run__experiment", "device")
    jobs = [_job_for(p, seq=1, now=0.0) for p in parts]
    if "coap_path" in fields:
        assert [j["spec"]["coap_path"] for j in jobs] == [fields["coap_path"]] * 2
    else:
        assert all("coap_path" not in j["spec"] for j in jobs)

    assert run_address(run=run) == uri
    model = message_parts(spec=run.spec, address=run_address(run=run))
    assert model["coap_options"] == framing.coap_options_bytes(framing.coap_request_options(uri))


def test_two_uri_path_segments_are_two_options_and_a_long_one_takes_an_extended_length():
    short = framing.coap_options_bytes(framing.coap_request_options(coap_request_uri("", "echo")))
    two = framing.coap_options_bytes(framing.coap_request_options(coap_request_uri("", "a/echo")))
    long = framing.coap_options_bytes(
        framing.coap_request_options(coap_request_uri("", "resource-name-of-20"))
    )
    # Uri-Path (11): "echo" = 1 + 4; "a", "echo" = (1 + 1) + (1 + 4), the second delta 0;
    # 19 bytes need the 1-byte extended length (RFC 7252 §3.1): 1 + 1 + 19.
    assert (short, two, long) == (5, 7, 21)
