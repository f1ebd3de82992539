"""The papers' presets, design files (export, import, schema) and the list's filters."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile

from core.testing.factories import DeviceFactory, ExperimentFactory
from experiments import design_file
from experiments.models import Experiment, Run
from netprofiles.models import NetworkProfile


@pytest.fixture
def devices(personas):
    return [DeviceFactory.create(workspace=personas.workspace, name=f"pi-{n}") for n in range(1, 6)]


def _presets(client: Any) -> dict[str, Any]:
    response = client.get("/api/presets/")
    assert response.status_code == 200
    return {p["slug"]: p for p in response.json()}


@pytest.mark.django_db
def test_each_papers_preset_expands_to_its_design(owner_client, devices):
    presets = _presets(owner_client)
    expected_runs = {
        "srup-paper": 15,  # 10 conditions x SRUP + 5 x MQTT
        # (QoS 1, QoS 2) x 5 ciphers x 2 sizes + CoAP CON x 5 ciphers x 66 B (ack: one block)
        "mqtt-coap-paper": 25,
        "mqtt-sn-paper": 1,
        "openssl-pi-paper": 1,
    }
    assert set(presets) == set(expected_runs)
    for slug, runs in expected_runs.items():
        assert presets[slug]["cells"] == runs, slug  # what the preset states
        design = {**presets[slug]["design"], "device_ids": [str(d.pk) for d in devices]}
        # The plan validates the design as a create does (without the broker it needs).
        plan = owner_client.post("/api/experiments/plan/", design, format="json")
        assert plan.status_code == 200, (slug, plan.json())
        assert plan.json()["run_count"] == runs, slug
    srup = presets["srup-paper"]
    assert srup["source_url"] == "https://doi.org/10.3390/iot2040028"
    assert "Table A1" in srup["tables"]
    assert srup["devices"] == 5
    assert srup["as_in_paper"]
    assert srup["differs_here"]


@pytest.mark.django_db
def test_srup_preset_runs_mqtt_only_under_conditions_1_2_3_5_and_9(owner_client, devices):
    design = {
        **_presets(owner_client)["srup-paper"]["design"],
        "device_ids": [str(d.pk) for d in devices],
    }
    plan = owner_client.post("/api/experiments/plan/", design, format="json").json()
    mqtt = [r["label"] for r in plan["runs"] if "MQTT over TCP" in r["label"]]
    assert sorted(label.split("· ")[-1].split(":")[0] for label in mqtt) == [
        "SRUP 1",
        "SRUP 2",
        "SRUP 3",
        "SRUP 5",
        "SRUP 9",
    ]
    profile = NetworkProfile.objects.get(slug="srup-9-3g-poor-loss-5", workspace=None)
    assert str(profile.pk) in design["axes"][1]["values"]
    # One way, as the paper: 5 devices x 250 messages, one device at a time, ~1 s apart.
    assert (design["measurement"], design["payload_size"]) == ("one_way", 16)
    assert plan["runs"][0]["estimated_seconds"] > 5 * 250 * 1.0


@pytest.mark.django_db
def test_openssl_preset_warns_about_time_and_disk(owner_client, devices):
    preset = _presets(owner_client)["openssl-pi-paper"]
    design = {**preset["design"], "device_ids": [str(devices[0].pk)]}
    plan = owner_client.post("/api/experiments/plan/", design, format="json").json()
    assert plan["estimated_seconds"] > 3600
    words = " ".join(plan["warnings"])
    assert "runs for about" in words
    # openssl-cli: openssl enc works on files, 3 x 1 GiB of them at once.
    assert "needs about 3.2 GB free in its temporary directory" in words
    assert any("many hours" in note for note in preset["notes"])


@pytest.mark.django_db
def test_a_design_exported_as_yaml_imports_as_the_same_design(owner_client, devices):
    profile = NetworkProfile.objects.get(slug="srup-4-3g-good", workspace=None)
    body = {
        "name": "QoS under 3G",
        "qos": 1,
        "payload_size": 66,
        "message_count": 20,
        "device_ids": [str(devices[0].pk), str(devices[1].pk)],
        "axes": [
            {"parameter": "qos", "values": [0, 1]},
            {"parameter": "network_profile", "values": [None, str(profile.pk)]},
        ],
        "exclusions": [{"qos": 0, "network_profile": str(profile.pk)}],
        "repeats": 3,
    }
    created = owner_client.post("/api/experiments/", body, format="json").json()

    exported = owner_client.get(f"/api/experiments/{created['id']}/design.yaml")
    assert exported.status_code == 200
    assert exported["Content-Type"].startswith("application/yaml")
    document = yaml.safe_load(exported.content)
    assert document["axes"][1]["values"] == [None, "srup-4-3g-good"]
    assert document["devices"] == ["pi-1", "pi-2"]

    upload = SimpleUploadedFile("design.yaml", exported.content, content_type="application/yaml")
    imported = owner_client.post("/api/experiments/import/", {"file": upload}, format="multipart")

    assert imported.status_code == 201, imported.json()
    again = imported.json()
    for key in ("axes", "exclusions", "repeats", "qos", "payload_size", "message_count"):
        assert again[key] == created[key], key
    assert sorted(again["device_ids"]) == sorted(created["device_ids"])
    assert Experiment.objects.count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("format: iotsecbench-experiment/1\nname: [unclosed\n", "Line 3, column 1: not valid YAML"),
        (
            "format: iotsecbench-experiment/1\nname: x\nparameters: {qos: 7}\n",
            "parameters.qos: 7 is greater",
        ),
        (
            "format: iotsecbench-experiment/1\nname: x\naxes: [{parameter: colour, values: [1]}]\n",
            "axes[0].parameter: 'colour' is not one of",
        ),
        (
            "format: iotsecbench-experiment/1\nname: x\naxes: [{parameter: qos, values: 2}]\n",
            "axes[0].values: 2 is not of type 'array'",
        ),
        (
            "format: iotsecbench-experiment/1\nname: x\naxes: [{values: [7]}]\n",
            "axes[0].values[0]: 7 is not of type 'object'",
        ),
        (
            "format: iotsecbench-experiment/1\nname: x\naxes: [7]\n",
            "axes[0]: an axis is",
        ),
        ("format: iotsecbench-experiment/1\nname: x\ndevices: [pi-99]\n", "device 'pi-99'"),
        ("format: iotsecbench-experiment/1\nname: x\n", "devices: list the names"),
        ("- just\n- a list\n", "must be a YAML mapping"),
    ],
)
def test_a_bad_design_file_says_where_and_what(owner_client, devices, text, words):
    upload = SimpleUploadedFile("design.yaml", text.encode())
    response = owner_client.post("/api/experiments/import/", {"file": upload}, format="multipart")
    assert response.status_code == 400
    messages = " ".join(response.json()["extra"]["fields"]["file"])
    assert words in messages
    assert Experiment.objects.count() == 0


@pytest.mark.django_db
def test_a_file_whose_combinations_break_the_rules_gets_the_forms_errors(owner_client, devices):
    text = (
        "format: iotsecbench-experiment/1\nname: x\ndevices: [pi-1]\n"
        "parameters: {protocol: srup}\naxes: [{parameter: security, values: [none, des-cbc]}]\n"
    )
    upload = SimpleUploadedFile("design.yaml", text.encode())
    response = owner_client.post("/api/experiments/import/", {"file": upload}, format="multipart")
    assert response.status_code == 400
    assert "SRUP signs" in response.json()["extra"]["fields"]["axes"][0]


def test_the_published_schema_accepts_every_preset_and_is_served(client):
    from experiments.presets import presets

    assert len(presets()) == 4
    response = client.get("/api/experiments/design-schema.json")
    assert response.status_code == 200
    assert response.json() == design_file.schema()


@pytest.mark.django_db
def test_experiments_list_filters_by_words_protocol_mechanism_device_status_and_date(
    owner_client, personas, devices
):
    a = ExperimentFactory.create(
        workspace=personas.workspace, name="SRUP study", devices=[devices[0]], protocol="srup"
    )
    b = ExperimentFactory.create(
        workspace=personas.workspace,
        name="Ciphers",
        description="TEA on MQTT",
        devices=[devices[1]],
        axes=[
            {"name": "payload security", "values": [{"security": "none"}, {"security": "tea-cbc"}]}
        ],
    )
    c = ExperimentFactory.create(
        workspace=personas.workspace,
        name="bench",
        kind="cipher_bench",
        mechanisms=["aes-128-cbc"],
        data_sizes=[16],
        devices=[devices[1]],
    )
    Run.objects.create(experiment=c, status="done")

    def names(query: str) -> list[str]:
        response = owner_client.get(f"/api/experiments/?{query}")
        assert response.status_code == 200, response.json()
        return sorted(e["name"] for e in response.json())

    assert names("q=tea") == ["Ciphers"]
    assert names("protocol=srup") == ["SRUP study"]
    assert names("mechanism=tea-cbc") == ["Ciphers"]
    assert names("mechanism=aes-128-cbc") == ["bench"]
    assert names(f"device={devices[1].pk}") == ["Ciphers", "bench"]
    assert names("status=done") == ["bench"]
    assert names("status=never") == ["Ciphers", "SRUP study"]
    assert names("created_after=2000-01-01&created_before=2999-01-01") == sorted(
        [a.name, b.name, c.name]
    )
    assert names("created_after=2999-01-01") == []
    bad = owner_client.get("/api/experiments/?status=sleeping")
    assert bad.status_code == 400
    assert "status" in bad.json()["extra"]["fields"]
