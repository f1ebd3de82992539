from __future__ import annotations

import pytest
from iotsecbench_contract.mechanisms import NAMES as MECHANISM_NAMES

from core.testing.factories import DeviceFactory
from experiments.models import Experiment, ExperimentKind, Run, RunDevice
from experiments.rules import (
    BENCH_NEEDS_MECHANISMS,
    BENCH_NEEDS_SIZES,
    THROUGHPUT_PAYLOAD_TOO_LARGE,
)

BENCH = {
    "name": "OpenSSL-on-Pi reproduction",
    "kind": "cipher_bench",
    "mechanisms": ["aes-128-cbc", "3des-cbc", "rsa-2048-pkcs1v15"],
    "data_sizes": [16, 8192, 1 << 20],
    "repetitions": 100,
}


@pytest.mark.django_db
def test_catalogue_lists_the_mechanisms_and_kinds(owner_client):
    body = owner_client.get("/api/catalogue/").json()
    names = [m["name"] for m in body["mechanisms"]]
    assert tuple(names) == MECHANISM_NAMES
    assert {"aes-128-cbc", "present-80-cbc", "ascon-aead128", "ed25519", "null"} <= set(names)
    aes = next(m for m in body["mechanisms"] if m["name"] == "aes-256-gcm")
    assert aes == {
        "name": "aes-256-gcm",
        "label": "AES-256-GCM",
        "family": "AES",
        "kind": "aead",
        "key_bits": 256,
    }
    assert [k["name"] for k in body["experiment_kinds"]] == [
        "messaging",
        "cipher_bench",
        "throughput",
    ]


@pytest.mark.django_db
def test_cipher_bench_experiment_stores_its_matrix_and_plans_two_operations_each(
    personas, owner_client, monkeypatch
):
    monkeypatch.setattr("experiments.services.jobs.mqtt_publish_many", lambda msgs: None)
    device = DeviceFactory.create(workspace=personas.workspace)
    response = owner_client.post(
        "/api/experiments/", {**BENCH, "device_ids": [str(device.pk)]}, format="json"
    )
    assert response.status_code == 201, response.json()
    experiment = Experiment.objects.get(pk=response.json()["id"])
    assert experiment.kind == ExperimentKind.CIPHER_BENCH
    assert experiment.mechanisms == BENCH["mechanisms"]
    assert experiment.data_sizes == BENCH["data_sizes"]
    run_response = owner_client.post(f"/api/experiments/{experiment.pk}/runs/")
    assert run_response.status_code == 201
    assert run_response.json()["kind"] == "cipher_bench"
    run = Run.objects.get(pk=run_response.json()["id"])
    assert run.spec == {k: BENCH[k] for k in ("mechanisms", "data_sizes", "repetitions")}
    assert RunDevice.objects.get(run=run).total == 2 * 3 * 3 * 100


@pytest.mark.django_db
def test_cipher_bench_needs_mechanisms_and_sizes(personas, owner_client):
    device = DeviceFactory.create(workspace=personas.workspace)
    body = {**BENCH, "mechanisms": [], "data_sizes": [], "device_ids": [str(device.pk)]}
    response = owner_client.post("/api/experiments/", body, format="json")
    assert response.status_code == 400
    assert response.json()["extra"]["fields"] == {
        "mechanisms": [BENCH_NEEDS_MECHANISMS],
        "data_sizes": [BENCH_NEEDS_SIZES],
    }


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("mechanisms", ["rot13"]),
        ("mechanisms", ["none"]),
        ("mechanisms", ["rc4", "rc4"]),
        ("data_sizes", [16, 16]),
        ("data_sizes", [0]),
        ("data_sizes", [(1 << 30) + 1]),
        ("repetitions", 0),
    ],
)
def test_cipher_bench_rejects_unknown_mechanisms_and_out_of_range_sizes(
    personas, owner_client, field, value
):
    device = DeviceFactory.create(workspace=personas.workspace)
    body = {**BENCH, field: value, "device_ids": [str(device.pk)]}
    response = owner_client.post("/api/experiments/", body, format="json")
    assert response.status_code == 400
    assert field in response.json()["extra"]["fields"]


@pytest.mark.django_db
def test_messaging_experiment_accepts_any_catalogue_mechanism(personas, owner_client):
    device = DeviceFactory.create(workspace=personas.workspace)
    body = {"name": "aes", "security": "present-80-cbc", "device_ids": [str(device.pk)]}
    response = owner_client.post("/api/experiments/", body, format="json")
    assert response.status_code == 201
    assert response.json()["security"] == "present-80-cbc"
    bad = owner_client.post("/api/experiments/", {**body, "security": "rot13"}, format="json")
    assert bad.status_code == 400
    assert "security" in bad.json()["extra"]["fields"]


@pytest.mark.django_db
def test_throughput_experiment_sends_its_window_and_allows_none_as_baseline(
    personas, owner_client, monkeypatch
):
    monkeypatch.setattr("experiments.services.jobs.mqtt_publish_many", lambda msgs: None)
    device = DeviceFactory.create(workspace=personas.workspace)
    body = {
        "name": "MQTT-SN paper",
        "kind": "throughput",
        "mechanisms": ["none", "present-80-cbc", "aes-128-cbc"],
        "data_sizes": [1, 1280],
        "repetitions": 5,
        "window_ms": 2000,
        "device_ids": [str(device.pk)],
    }
    response = owner_client.post("/api/experiments/", body, format="json")
    assert response.status_code == 201, response.json()
    run = owner_client.post(f"/api/experiments/{response.json()['id']}/runs/").json()
    assert Run.objects.get(pk=run["id"]).spec["window_ms"] == 2000
    assert RunDevice.objects.get(run_id=run["id"]).total == 2 * 3 * 2 * 5


@pytest.mark.django_db
def test_throughput_sizes_must_fit_one_datagram_once_each_mechanism_has_framed_them(
    personas, owner_client
):
    device = DeviceFactory.create(workspace=personas.workspace)
    body = {
        "name": "largest datagrams",
        "kind": "throughput",
        "mechanisms": ["none", "aes-128-cbc"],
        "data_sizes": [1, 65_487],  # AES-CBC: + 16 IV + 1 padding = 65,504 <= 65,507
        "device_ids": [str(device.pk)],
    }
    fits = owner_client.post("/api/experiments/", body, format="json")
    assert fits.status_code == 201, fits.json()

    too_big = owner_client.post(
        "/api/experiments/",
        {**body, "mechanisms": ["none", "rsa-4096-pss"], "data_sizes": [1, 65_000]},
        format="json",
    )
    assert too_big.status_code == 400
    assert too_big.json()["extra"]["fields"] == {
        "data_sizes": [
            THROUGHPUT_PAYLOAD_TOO_LARGE.format(
                limit=65_507, mechanism="rsa-4096-pss", size=65_000, frame=65_512, fits=64_995
            )
        ]
    }
    assert Experiment.objects.filter(name="largest datagrams").count() == 1


@pytest.mark.django_db
def test_bad_list_items_are_reported_as_flat_messages_naming_the_item(personas, owner_client):
    device = DeviceFactory.create(workspace=personas.workspace)
    body = {**BENCH, "data_sizes": [16, 0], "device_ids": [str(device.pk)]}
    response = owner_client.post("/api/experiments/", body, format="json")
    assert response.status_code == 400
    assert response.json()["extra"]["fields"] == {
        "data_sizes": ["Item 2: Must be an integer from 1 to 1073741824."]
    }
