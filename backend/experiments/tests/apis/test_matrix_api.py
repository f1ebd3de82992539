"""Designs with axes through the API: stored canonically, checked per combination, planned
before anything is created, and queued as one run per combination and repeat."""

from __future__ import annotations

from typing import Any

import pytest

from core.testing.factories import DeviceFactory
from experiments.models import Experiment, Run, RunDevice, RunStatus, RunTransition
from experiments.rules import MQTTSN_PAYLOAD_TOO_LARGE

BASE = {
    "name": "QoS x payload",
    "protocol": "mqtt",
    "qos": 1,
    "security": "none",
    "payload_size": 66,
    "message_count": 20,
    "interval_ms": 10,
}


@pytest.fixture
def devices(personas):
    return [DeviceFactory.create(workspace=personas.workspace, name=f"pi-{n}") for n in (1, 2)]


def _design(devices: list[Any], **changes: Any) -> dict[str, Any]:
    return {**BASE, "device_ids": [str(d.pk) for d in devices], **changes}


@pytest.mark.django_db
def test_plan_counts_runs_and_estimates_before_anything_is_created(owner_client, devices):
    body = _design(
        devices,
        axes=[
            {"parameter": "qos", "values": [0, 1, 2]},
            {"parameter": "payload_size", "values": [66, 1700]},
        ],
        exclusions=[{"qos": 2, "payload_size": 1700}],
        repeats=2,
    )
    response = owner_client.post("/api/experiments/plan/", body, format="json")

    assert response.status_code == 200, response.json()
    plan = response.json()
    assert (plan["run_count"], plan["cells"], plan["excluded"], plan["repeats"]) == (10, 5, 1, 2)
    labels = {"QoS 0 · 66 B", "QoS 0 · 1,700 B", "QoS 1 · 66 B", "QoS 1 · 1,700 B", "QoS 2 · 66 B"}
    assert {r["label"] for r in plan["runs"][:5]} == labels
    assert {r["label"] for r in plan["runs"][5:]} == labels
    assert [r["repeat"] for r in plan["runs"]] == [1] * 5 + [2] * 5
    assert [r["position"] for r in plan["runs"]] == list(range(10))
    # 20 messages 10 ms apart plus the fixed cost per run: about 5.2 s each.
    assert plan["estimated_seconds"] == pytest.approx(10 * (5 + 20 * 0.0105), rel=1e-6)
    assert Experiment.objects.count() == 0


@pytest.mark.django_db
def test_an_invalid_combination_is_a_field_error_that_names_it(owner_client, devices):
    body = _design(
        devices,
        axes=[
            {"parameter": "protocol", "values": ["mqtt", "srup"]},
            {"parameter": "security", "values": ["none", "aes-128-cbc"]},
        ],
    )
    response = owner_client.post("/api/experiments/", body, format="json")

    assert response.status_code == 400
    messages = response.json()["extra"]["fields"]["axes"]
    assert messages[0].startswith("Run “SRUP (signed MQTT) · AES-128-CBC”: security: SRUP signs")
    assert "exclusions" in messages[-1]
    body["exclusions"] = [{"protocol": "srup", "security": "aes-128-cbc"}]
    assert owner_client.post("/api/experiments/", body, format="json").status_code == 201


@pytest.mark.django_db
def test_an_axis_of_another_kind_is_refused(owner_client, devices):
    body = _design(
        devices,
        kind="cipher_bench",
        mechanisms=["aes-128-cbc"],
        data_sizes=[16],
        axes=[{"parameter": "qos", "values": [0, 1]}],
    )
    response = owner_client.post("/api/experiments/plan/", body, format="json")
    assert response.status_code == 400
    assert (
        "qos cannot vary in a cipher_bench experiment"
        in response.json()["extra"]["fields"]["axes"][0]
    )


@pytest.mark.django_db
def test_more_than_the_limit_of_runs_is_refused_on_repeats(owner_client, devices):
    body = _design(devices, axes=[{"parameter": "qos", "values": [0, 1]}], repeats=100)
    assert owner_client.post("/api/experiments/plan/", body, format="json").status_code == 200
    body["axes"] = [
        {"parameter": "qos", "values": [0, 1]},
        {"parameter": "payload_size", "values": list(range(1, 7))},
    ]
    response = owner_client.post("/api/experiments/plan/", body, format="json")
    assert response.status_code == 400
    assert "1200 runs; at most 1000" in response.json()["extra"]["fields"]["repeats"][0]


@pytest.mark.django_db
def test_starting_queues_one_run_per_combination_and_repeat_with_its_own_spec(
    owner_client, devices, monkeypatch
):
    monkeypatch.setattr("django.db.transaction.on_commit", lambda fn, **kw: None)
    body = _design(
        devices,
        axes=[
            {"parameter": "security", "values": ["none", "tea-cbc"]},
            {"parameter": "device_ids", "values": [[str(devices[0].pk)], [str(devices[1].pk)]]},
        ],
        repeats=2,
    )
    experiment_id = owner_client.post("/api/experiments/", body, format="json").json()["id"]

    response = owner_client.post(f"/api/experiments/{experiment_id}/runs/")

    assert response.status_code == 201
    assert response.json()["status"] == "queued"
    runs = list(Run.objects.filter(experiment_id=experiment_id).order_by("repeat", "cell_label"))
    assert len(runs) == 8
    assert [(r.repeat, r.spec["security"], r.cell_label) for r in runs[:4]] == [
        (1, "none", "None · pi-1"),
        (1, "none", "None · pi-2"),
        (1, "tea-cbc", "TEA-CBC · pi-1"),
        (1, "tea-cbc", "TEA-CBC · pi-2"),
    ]
    assert {r.status for r in runs} == {RunStatus.QUEUED}
    parts = RunDevice.objects.filter(run=runs[1])
    assert [p.device.name for p in parts] == ["pi-2"]
    # Each run's creation is timestamped by the database trigger.
    assert RunTransition.objects.filter(run__in=runs, status="queued").count() == 8
    again = owner_client.post(f"/api/experiments/{experiment_id}/runs/")
    assert (again.status_code, again.json()["code"]) == (409, "run_already_active")


@pytest.mark.django_db
def test_plan_shows_the_order_its_seed_gives_and_the_started_runs_follow_it(
    owner_client, devices, monkeypatch
):
    monkeypatch.setattr("django.db.transaction.on_commit", lambda fn, **kw: None)
    body = _design(
        devices, axes=[{"parameter": "payload_size", "values": [16, 32, 64, 128]}], repeats=2
    )
    drawn = owner_client.post("/api/experiments/plan/", body, format="json").json()
    seeded = {**body, "order_seed": drawn["order_seed"]}
    plan = owner_client.post("/api/experiments/plan/", seeded, format="json").json()
    assert plan["order_seed"] == drawn["order_seed"]
    assert [r["cell"] for r in plan["runs"]] == [r["cell"] for r in drawn["runs"]]

    created = owner_client.post("/api/experiments/", seeded, format="json").json()
    assert created["order_seed"] == drawn["order_seed"]
    owner_client.post(f"/api/experiments/{created['id']}/runs/")
    runs = Run.objects.filter(experiment_id=created["id"]).order_by("position")
    assert [(r.repeat, r.cell) for r in runs] == [(r["repeat"], r["cell"]) for r in plan["runs"]]
    assert {r.order_seed for r in runs} == {drawn["order_seed"]}


@pytest.mark.django_db
def test_an_order_seed_out_of_range_is_a_field_error(owner_client, devices):
    response = owner_client.post(
        "/api/experiments/plan/", _design(devices, order_seed=2**31), format="json"
    )
    assert response.status_code == 400
    assert "order_seed" in response.json()["extra"]["fields"]


@pytest.mark.django_db
def test_experiment_answers_its_axes_canonically(owner_client, devices):
    body = _design(devices, axes=[{"parameter": "qos", "values": [0, 2]}])
    created = owner_client.post("/api/experiments/", body, format="json").json()
    assert created["axes"] == [{"name": "QoS", "values": [{"qos": 0}, {"qos": 2}]}]
    assert (created["repeats"], created["exclusions"]) == (1, [])


@pytest.mark.django_db
def test_coap_and_mqttsn_rules_are_field_errors(owner_client, devices):
    cases: list[tuple[dict[str, Any], str, str]] = [
        ({"protocol": "mqtt", "qos": -1}, "qos", "MQTT-SN only"),
        ({"protocol": "mqttsn", "qos": 2}, "qos", "QoS -1, 0 or 1"),
        ({"protocol": "coap", "transport": "tls1.3"}, "transport", "over UDP"),
    ]
    for changes, field, words in cases:
        response = owner_client.post(
            "/api/experiments/plan/", _design(devices, **changes), format="json"
        )
        assert response.status_code == 400, changes
        assert words in response.json()["extra"]["fields"][field][0]
    # An MQTT-SN PUBLISH carries at most 65,498 bytes in one datagram, framing included.
    sn = _design(devices, protocol="mqttsn", security="rsa-4096-pss", payload_size=64_987)
    response = owner_client.post("/api/experiments/plan/", sn, format="json")
    assert response.json()["extra"]["fields"]["payload_size"] == [
        MQTTSN_PAYLOAD_TOO_LARGE.format(limit=65_498, mechanism="rsa-4096-pss", fits=64_986)
    ]
    sn["payload_size"] = 64_986
    assert owner_client.post("/api/experiments/plan/", sn, format="json").status_code == 200
    coap = _design(devices, protocol="coap", coap_type="non", coap_method="put")
    assert owner_client.post("/api/experiments/plan/", coap, format="json").status_code == 200


@pytest.mark.django_db
def test_one_way_jobs_carry_the_runs_keys_which_the_api_never_shows(
    owner_client, devices, monkeypatch
):
    from experiments.models import Run
    from experiments.services.jobs import _job_for

    monkeypatch.setattr("django.db.transaction.on_commit", lambda fn, **kw: None)
    body = _design(
        devices,
        measurement="one_way",
        payload_size=16,
        axes=[{"parameter": "security", "values": ["none", "aes-128-cbc"]}],
    )
    experiment_id = owner_client.post("/api/experiments/", body, format="json").json()["id"]
    owner_client.post(f"/api/experiments/{experiment_id}/runs/")
    plain = Run.objects.get(experiment_id=experiment_id, spec__security="none")
    aes = Run.objects.get(experiment_id=experiment_id, spec__security="aes-128-cbc")

    assert plain.controller == {}
    key = aes.controller["security_key"]
    assert len(bytes.fromhex(key)) == 16
    part = aes.run_devices.first()
    assert part is not None
    job = _job_for(part, seq=1, now=0.0)
    assert job["spec"]["security_key"] == key
    assert job["spec"]["time_url"].endswith("/api/agent/time/")
    # 20 messages x 2 devices x 10 ms, twice, plus the slack.
    assert job["spec"]["oneway_deadline_s"] == pytest.approx(2 * 0.4 + 60)
    shown = owner_client.get(f"/api/runs/{aes.pk}/").content.decode()
    assert key not in shown


@pytest.mark.parametrize("mechanism", ["ed25519", "ecdsa-p256", "rsa-2048-pkcs1v15"])
@pytest.mark.django_db
def test_a_one_way_signed_run_gives_devices_the_public_key_and_signs_with_the_private_one(
    owner_client, devices, monkeypatch, mechanism
):
    from iotsecbench_agent.security import registry
    from iotsecbench_agent.security.base import SignatureError
    from iotsecbench_agent.security.mechanisms import Signature

    from experiments.models import Run
    from experiments.services.jobs import _job_for
    from experiments.services.oneway import oneway_targets

    monkeypatch.setattr("django.db.transaction.on_commit", lambda fn, **kw: None)
    body = _design(devices, measurement="one_way", payload_size=16, security=mechanism)
    created = owner_client.post("/api/experiments/", body, format="json")
    assert created.status_code == 201, created.json()
    owner_client.post(f"/api/experiments/{created.json()['id']}/runs/")
    run = Run.objects.get(experiment_id=created.json()["id"])
    part = run.run_devices.order_by("device__name").first()
    assert part is not None

    spec = _job_for(part, seq=1, now=0.0)["spec"]
    (target, *_) = oneway_targets(run)

    # The device's key verifies but cannot sign; the controller's signs.
    verifier = registry.create(mechanism, key=bytes.fromhex(spec["security_key"]))
    signer = registry.create(mechanism, key=target.key)
    assert isinstance(verifier, Signature)
    assert isinstance(signer, Signature)
    assert (verifier.can_sign, signer.can_sign) == (False, True)
    assert "security_private_key" not in spec
    payload = bytes(range(16))
    assert verifier.unsecure(signer.secure(payload)) == payload
    forged = registry.create(mechanism).secure(payload)  # a key of its own: not the run's
    with pytest.raises(SignatureError):
        verifier.unsecure(forged)
    shown = owner_client.get(f"/api/runs/{run.pk}/").content.decode()
    assert run.controller["security_private_key"] not in shown
    assert run.controller["security_key"] not in shown


@pytest.mark.django_db
def test_one_way_rules_are_field_errors(owner_client, devices):
    cases: list[tuple[dict[str, Any], str, str]] = [
        ({"protocol": "coap"}, "measurement", "MQTT and SRUP"),
        ({"payload_size": 15}, "payload_size", "at least 16 bytes"),
    ]
    for changes, field, words in cases:
        body = _design(devices, **{"measurement": "one_way", "payload_size": 16, **changes})
        response = owner_client.post("/api/experiments/plan/", body, format="json")
        assert response.status_code == 400, changes
        assert words in response.json()["extra"]["fields"][field][0]


@pytest.mark.django_db
def test_a_one_way_srup_job_gets_the_controllers_public_key_and_a_topic(
    owner_client, devices, monkeypatch
):
    from experiments.models import Run
    from experiments.services.jobs import _job_for

    monkeypatch.setattr("django.db.transaction.on_commit", lambda fn, **kw: None)
    body = _design(
        devices, protocol="srup", srup_signature="ed25519", measurement="one_way", payload_size=16
    )
    experiment_id = owner_client.post("/api/experiments/", body, format="json").json()["id"]
    owner_client.post(f"/api/experiments/{experiment_id}/runs/")
    run = Run.objects.get(experiment_id=experiment_id)
    part = run.run_devices.first()
    assert part is not None

    spec = _job_for(part, seq=1, now=0.0)["spec"]

    assert spec["topic"] == f"iotsecbench/data/{run.pk}/{part.device_id}"
    assert spec["srup_controller_public_key"] == run.controller["srup_public_key"]
    assert spec["srup_controller_public_key"].startswith("-----BEGIN PUBLIC KEY-----")
    assert len(spec["srup_controller_id"]) == 16
    assert "srup_private_key" not in spec
    assert "PRIVATE" not in str(spec)


@pytest.mark.django_db
def test_a_negative_order_seed_is_a_field_error_and_creates_nothing(owner_client, devices):
    response = owner_client.post(
        "/api/experiments/", {**_design(devices), "name": "seeded", "order_seed": -1}, format="json"
    )
    assert response.status_code == 400
    assert list(response.json()["extra"]["fields"]) == ["order_seed"]
    assert Experiment.objects.count() == 0


@pytest.mark.django_db
def test_an_unseeded_experiment_shows_the_seed_drawn_at_start_on_its_runs(
    owner_client, devices, monkeypatch
):
    monkeypatch.setattr("django.db.transaction.on_commit", lambda fn, **kw: None)
    body = _design(devices, axes=[{"parameter": "payload_size", "values": [16, 32, 64]}])
    created = owner_client.post("/api/experiments/", {**body, "name": "drawn"}, format="json")
    assert created.json()["order_seed"] is None
    owner_client.post(f"/api/experiments/{created.json()['id']}/runs/")

    shown = owner_client.get(f"/api/experiments/{created.json()['id']}/").json()

    (seed,) = set(
        Run.objects.filter(experiment_id=created.json()["id"]).values_list("order_seed", flat=True)
    )
    assert seed is not None
    assert shown["order_seed"] is None
    assert sorted((r["position"], r["order_seed"]) for r in shown["runs"]) == [
        (0, seed),
        (1, seed),
        (2, seed),
    ]
