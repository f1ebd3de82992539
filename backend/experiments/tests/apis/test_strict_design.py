"""The design API is strict (issue #19 point 5): a field it does not know is a 400 naming
each such field, at every level with a fixed schema (the experiment input, its axes, a
design file's blocks), and nothing is created; never silently dropped."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from core.testing.factories import DeviceFactory
from experiments.apis.strict import UNKNOWN_FIELD
from experiments.models import Experiment

UNKNOWN = {"target": "udp://192.0.2.1:9999", "colour": "blue"}


@pytest.fixture
def device(personas):
    return DeviceFactory.create(workspace=personas.workspace, name="pi-1")


def _body(device: Any, **fields: Any) -> dict[str, Any]:
    return {
        "name": "throughput to a target",
        "kind": "throughput",
        "mechanisms": ["none"],
        "data_sizes": [64],
        "repetitions": 2,
        "device_ids": [str(device.pk)],
        **fields,
    }


def _fields(response: Any) -> dict[str, list[str]]:
    assert response.status_code == 400, response.json()
    fields: dict[str, list[str]] = response.json()["extra"]["fields"]
    return fields


@pytest.mark.django_db
@pytest.mark.parametrize("endpoint", ["/api/experiments/", "/api/experiments/plan/"])
@pytest.mark.parametrize("unknown", [["target"], ["target", "colour"]])
def test_create_and_plan_refuse_each_unknown_field_by_name(owner_client, device, endpoint, unknown):
    body = _body(device, **{name: UNKNOWN[name] for name in unknown})

    fields = _fields(owner_client.post(endpoint, body, format="json"))

    assert sorted(fields) == sorted(unknown)
    for name in unknown:
        (message,) = fields[name]
        assert message.startswith("Unknown field. Known fields: name, kind, protocol,")
        assert "window_ms" in message
    assert Experiment.objects.count() == 0


@pytest.mark.django_db
def test_unknown_fields_are_reported_with_the_known_fields_errors(owner_client, device):
    body = _body(device, target="udp://192.0.2.1:9999", repetitions=0)

    fields = _fields(owner_client.post("/api/experiments/", body, format="json"))

    assert set(fields) == {"target", "repetitions"}
    assert fields["target"][0].startswith(UNKNOWN_FIELD.split("{")[0])
    assert Experiment.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("axis", "named"),
    [
        ({"parameter": "repetitions", "values": [1, 2], "step": 1}, "`step`"),
        ({"parameter": "repetitions", "values": [1, 2], "step": 1, "unit": "x"}, "`step`, `unit`"),
    ],
)
def test_an_axis_with_unknown_fields_is_refused_naming_them(owner_client, device, axis, named):
    fields = _fields(owner_client.post("/api/experiments/", _body(device, axes=[axis]), "json"))

    assert fields == {
        "axes": [f"Axis 1: unknown field {named}; known fields: parameter, name, values."]
    }
    assert Experiment.objects.count() == 0


@pytest.mark.django_db
def test_the_form_body_without_unknown_fields_is_still_created(owner_client, device):
    response = owner_client.post("/api/experiments/", _body(device), format="json")

    assert response.status_code == 201, response.json()
    assert Experiment.objects.count() == 1


DESIGN = "format: iotsecbench-experiment/1\nname: x\nkind: throughput\ndevices: [pi-1]\n"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ("target: udp://192.0.2.1:9999\n", "(top level): unknown field `target`; known fields:"),
        ("target: u\ncolour: blue\n", "(top level): unknown field `target`, `colour`; known"),
        (
            "parameters: {mechanisms: [none], data_sizes: [64], target: u}\n",
            "parameters: unknown field `target`; known fields: protocol,",
        ),
        (
            "parameters: {mechanisms: [none], data_sizes: [64], target: u, colour: b}\n",
            "parameters: unknown field `target`, `colour`; known fields: protocol,",
        ),
        (
            "axes: [{parameter: repetitions, values: [1, 2], step: 1}]\n",
            "axes[0]: unknown field `step`; known fields: parameter, name, values.",
        ),
        (
            "preset: {slug: x, title: t, paper: p, year: 2020}\n",
            "preset: unknown field `year`; known fields: slug, title, paper,",
        ),
    ],
)
def test_import_refuses_each_unknown_field_of_a_design_file_by_name(
    owner_client, device, extra, words
):
    upload = SimpleUploadedFile("design.yaml", (DESIGN + extra).encode())

    response = owner_client.post("/api/experiments/import/", {"file": upload}, format="multipart")

    assert words in " ".join(_fields(response)["file"])
    assert Experiment.objects.count() == 0
