"""``crypto_library`` of cipher bench and throughput designs: stored, frozen into the run's
spec only when not the default, and a mechanism the library does not provide refused at
create time (400) naming the mechanism and the library."""

from __future__ import annotations

import pytest

from core.testing.factories import DeviceFactory
from experiments.models import Experiment, Run

BENCH = {
    "name": "OpenSSL-on-Pi with OpenSSL",
    "kind": "cipher_bench",
    "mechanisms": ["aes-128-cbc", "3des-cbc", "rc4"],
    "data_sizes": [16, 8192],
    "repetitions": 10,
}


@pytest.fixture
def device_ids(personas):
    return [str(DeviceFactory.create(workspace=personas.workspace).pk)]


@pytest.mark.parametrize("library", ["openssl", "openssl-cli"])
@pytest.mark.django_db
def test_cipher_bench_with_an_openssl_library_is_created_and_its_run_spec_names_it(
    owner_client, monkeypatch, device_ids, library
):
    monkeypatch.setattr("experiments.services.jobs.mqtt_publish_many", lambda msgs: None)
    body = {**BENCH, "crypto_library": library, "device_ids": device_ids}

    response = owner_client.post("/api/experiments/", body, format="json")

    assert response.status_code == 201, response.json()
    assert response.json()["crypto_library"] == library
    assert Experiment.objects.get(pk=response.json()["id"]).crypto_library == library
    run = owner_client.post(f"/api/experiments/{response.json()['id']}/runs/").json()
    assert Run.objects.get(pk=run["id"]).spec == {
        "mechanisms": BENCH["mechanisms"],
        "data_sizes": BENCH["data_sizes"],
        "repetitions": 10,
        "crypto_library": library,
    }


@pytest.mark.django_db
def test_default_library_is_pycryptodome_and_stays_out_of_the_run_spec(
    owner_client, monkeypatch, device_ids
):
    monkeypatch.setattr("experiments.services.jobs.mqtt_publish_many", lambda msgs: None)
    response = owner_client.post(
        "/api/experiments/", {**BENCH, "device_ids": device_ids}, format="json"
    )

    assert response.status_code == 201, response.json()
    assert response.json()["crypto_library"] == "pycryptodome"
    run = owner_client.post(f"/api/experiments/{response.json()['id']}/runs/").json()
    assert "crypto_library" not in Run.objects.get(pk=run["id"]).spec


@pytest.mark.parametrize(
    ("kind", "library", "mechanism", "field", "message"),
    [
        (
            "cipher_bench",
            "openssl",
            "ed25519",
            "mechanisms",
            "mechanism 'ed25519' is not available in crypto library 'openssl'",
        ),
        (
            "cipher_bench",
            "openssl-cli",
            "aes-128-gcm",
            "mechanisms",
            "mechanism 'aes-128-gcm' is not available in crypto library 'openssl-cli'",
        ),
        (
            "throughput",
            "openssl-cli",
            "aes-128-cbc",
            "crypto_library",
            "crypto_library must be one of pycryptodome, openssl, got 'openssl-cli'",
        ),
        ("cipher_bench", "libressl", "aes-128-cbc", "crypto_library", "not a valid choice"),
    ],
)
@pytest.mark.django_db
def test_a_mechanism_or_kind_the_library_does_not_provide_is_refused_naming_it(
    owner_client, device_ids, kind, library, mechanism, field, message
):
    body = {
        **BENCH,
        "kind": kind,
        "mechanisms": ["aes-128-cbc", mechanism] if mechanism != "aes-128-cbc" else [mechanism],
        "crypto_library": library,
        "device_ids": device_ids,
    }

    response = owner_client.post("/api/experiments/", body, format="json")

    assert response.status_code == 400
    fields = response.json()["extra"]["fields"]
    assert message in " ".join(fields[field]), fields
    assert not Experiment.objects.exists()
