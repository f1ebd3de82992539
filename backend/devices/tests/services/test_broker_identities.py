"""Broker identities (devices/broker.py) against a real Mosquitto with the dynamic-security
plugin, started for these tests the way `make up` starts its own (scripts/stack.py)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from paho.mqtt.enums import CallbackAPIVersion
from rest_framework.test import APIClient

from core.testing.factories import DeviceFactory, ExperimentFactory
from devices import broker
from devices.models import EnrollmentToken
from experiments.models import RunDevice
from experiments.services.jobs import _job_for
from experiments.services.scheduling import experiment_start
from scripts.signing_key import generate_pem
from scripts.stack import Stack, free_port

NOT_AUTHORIZED = 0x87
WAIT_S = 5.0


@pytest.fixture(scope="module")
def broker_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    state_dir = tmp_path_factory.mktemp("broker")
    stack = Stack(
        state_dir=state_dir,
        env={"DJANGO_SECRET_KEY": "broker-tests", "JOB_SIGNING_KEY": generate_pem()},
    )
    try:
        yield stack.start_broker(free_port(), tls_port=free_port())
    finally:
        stack.stop()


@pytest.fixture
def identities(broker_env: dict[str, str], settings: Any) -> dict[str, str]:
    settings.MQTT_URL = broker_env["MQTT_URL"]
    settings.MQTT_DATA_URL = broker_env["MQTT_DATA_URL"]
    settings.MQTT_TLS_URL = broker_env["MQTT_TLS_URL"]
    settings.MQTT_TLS_CA_FILE = broker_env["MQTT_TLS_CA_FILE"]
    settings.MQTT_TLS_CLIENT_CA_FILE = broker_env["MQTT_TLS_CLIENT_CA_FILE"]
    settings.MQTT_TLS_CLIENT_CA_KEY_FILE = broker_env["MQTT_TLS_CLIENT_CA_KEY_FILE"]
    settings.MQTT_BROKER_IDENTITIES = True
    broker._client_ca.cache_clear()
    broker.platform_tls_files.cache_clear()
    return broker_env


class Client:
    """A device as the broker sees it: MQTT 5, recording SUBACK reason codes."""

    def __init__(self, url: str, *, tls: tuple[str, str, str] | None = None, user=None) -> None:
        host, port = url.split("://", 1)[1].rsplit(":", 1)
        self.subacks: list[int] = []
        self.connack: Any = None
        self.connected = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        if tls is not None:
            self.client.tls_set(ca_certs=tls[0], certfile=tls[1], keyfile=tls[2])
        if user is not None:
            self.client.username_pw_set(*user)
        self.client.on_connect = self._on_connect
        self.client.on_subscribe = lambda c, u, mid, codes, p: self.subacks.append(codes[0].value)
        self.client.connect(host, int(port))
        self.client.loop_start()
        assert self.connected.wait(WAIT_S), "no CONNACK"

    def _on_connect(self, c: Any, u: Any, flags: Any, reason: Any, props: Any) -> None:
        self.connack = reason
        self.connected.set()

    def subscribe(self, topic: str) -> int:
        count = len(self.subacks)
        self.client.subscribe(topic, qos=1)
        deadline = time.monotonic() + WAIT_S
        while len(self.subacks) == count and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(self.subacks) > count, "no SUBACK"
        return self.subacks[-1]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def _csr(key: ec.EllipticCurvePrivateKey) -> str:
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "asks-for-anything")])
    request = (
        x509.CertificateSigningRequestBuilder().subject_name(subject).sign(key, hashes.SHA256())
    )
    return request.public_bytes(serialization.Encoding.PEM).decode()


def _files(
    directory: Path, key: ec.EllipticCurvePrivateKey, identity: dict[str, str]
) -> tuple[str, str, str]:
    """The device's side: its key, and the CA and certificate the enrollment answered."""
    directory.mkdir(exist_ok=True)
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    (directory / "k.pem").write_bytes(key_pem)
    (directory / "c.pem").write_text(identity["client_cert"])
    (directory / "ca.pem").write_text(identity["ca_cert"])
    return str(directory / "ca.pem"), str(directory / "c.pem"), str(directory / "k.pem")


def _enroll(owner_client: APIClient, **body: Any) -> Any:
    token = owner_client.post("/api/devices/enrollment-tokens/").json()["token"]
    return token, APIClient().post(
        "/api/agent/enroll/", {"token": token, "name": "pi", **body}, format="json"
    )


@pytest.mark.django_db(transaction=True)
def test_enrollment_signs_the_devices_own_key_and_the_broker_lets_it_use_only_its_topics(
    identities, owner_client, tmp_path
):
    key = ec.generate_private_key(ec.SECP256R1())
    _, response = _enroll(owner_client, csr=_csr(key))
    assert response.status_code == 201, response.json()
    body = response.json()
    device_id, identity = body["device_id"], body["mqtt_identity"]
    assert body["mqtt_url"] == identities["MQTT_URL"]
    assert "PRIVATE KEY" not in json.dumps(body)

    cert = x509.load_pem_x509_certificate(identity["client_cert"].encode())
    ca = x509.load_pem_x509_certificate(Path(identities["MQTT_TLS_CA_FILE"]).read_bytes())
    cert.verify_directly_issued_by(ca)
    assert cert.public_key() == key.public_key()
    assert cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == device_id
    usage = cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert list(usage) == [ExtendedKeyUsageOID.CLIENT_AUTH]

    device = Client(identities["MQTT_URL"], tls=_files(tmp_path, key, identity))
    other = DeviceFactory.create()
    try:
        assert device.subscribe(f"iotsecbench/agents/{device_id}/jobs") == 1
        assert device.subscribe(f"iotsecbench/agents/{other.pk}/jobs") == NOT_AUTHORIZED
        assert device.subscribe(f"iotsecbench/agents/{device_id}/status") == NOT_AUTHORIZED
        assert device.subscribe(f"iotsecbench/data/run-1/{device_id}") == 1
        assert device.subscribe(f"iotsecbench/data/run-1/{other.pk}") == NOT_AUTHORIZED
    finally:
        device.close()
    user = (identity["data_username"], identity["data_password"])
    data = Client(identities["MQTT_DATA_URL"], user=user)
    try:
        assert not data.connack.is_failure
        assert data.subscribe(f"iotsecbench/data/run-1/{device_id}") == 1
        assert data.subscribe(f"iotsecbench/agents/{device_id}/jobs") == NOT_AUTHORIZED
    finally:
        data.close()


@pytest.mark.django_db(transaction=True)
def test_a_device_may_choose_topics_ending_in_its_own_id_and_no_other_devices(
    identities, owner_client, tmp_path
):
    """A design's own topic on the platform's broker (experiments.addressing) ends in
    {device}: the broker lets each device use such topics for its own id only."""
    key = ec.generate_private_key(ec.SECP256R1())
    _, response = _enroll(owner_client, csr=_csr(key))
    assert response.status_code == 201, response.json()
    device_id, identity = response.json()["device_id"], response.json()["mqtt_identity"]
    other = DeviceFactory.create()
    user = (identity["data_username"], identity["data_password"])
    for client in (
        Client(identities["MQTT_URL"], tls=_files(tmp_path, key, identity)),
        Client(identities["MQTT_DATA_URL"], user=user),
    ):
        try:
            assert client.subscribe(f"test/{device_id}") == 1
            assert client.subscribe(f"a/b/c/d/e/{device_id}") == 1
            assert client.subscribe(f"test/{other.pk}") == NOT_AUTHORIZED
            assert client.subscribe("test/d1") == NOT_AUTHORIZED
            assert client.subscribe(f"a/b/c/d/e/f/{device_id}") == NOT_AUTHORIZED
            assert client.subscribe(f"iotsecbench/agents/{other.pk}/status") == NOT_AUTHORIZED
        finally:
            client.close()


@pytest.mark.django_db(transaction=True)
def test_enrollment_without_a_csr_is_refused_and_leaves_the_token_for_a_retry(
    identities, owner_client
):
    token, response = _enroll(owner_client)
    assert response.status_code == 400
    assert response.json()["code"] == "certificate_request_invalid"
    assert "csr" in response.json()["message"]
    assert EnrollmentToken.objects.get(device__isnull=True).used_at is None
    garbage = APIClient().post(
        "/api/agent/enroll/", {"token": token, "name": "pi", "csr": "not a csr"}, format="json"
    )
    assert garbage.status_code == 400
    assert garbage.json()["code"] == "certificate_request_invalid"
    key = ec.generate_private_key(ec.SECP256R1())
    retried = APIClient().post(
        "/api/agent/enroll/", {"token": token, "name": "pi", "csr": _csr(key)}, format="json"
    )
    assert retried.status_code == 201


@pytest.mark.django_db(transaction=True)
def test_a_revoked_device_loses_its_broker_identity_and_a_sync_restores_lost_ones(
    identities, owner_client, tmp_path
):
    keys = [ec.generate_private_key(ec.SECP256R1()) for _ in range(2)]
    enrolled = [_enroll(owner_client, csr=_csr(k))[1].json() for k in keys]
    files = [
        _files(tmp_path / str(i), k, e["mqtt_identity"])
        for i, (k, e) in enumerate(zip(keys, enrolled, strict=True))
    ]
    revoked, kept = enrolled[0]["device_id"], enrolled[1]["device_id"]
    assert owner_client.post(f"/api/devices/{revoked}/revoke/").status_code == 204

    gone = Client(identities["MQTT_URL"], tls=files[0])
    try:
        assert gone.subscribe(f"iotsecbench/agents/{revoked}/jobs") == NOT_AUTHORIZED
    finally:
        gone.close()

    # A broker that lost the kept device's identity gets it back from the database.
    broker.dynsec_commands([{"command": "deleteClient", "username": kept}])
    assert broker.broker_sync() == 1
    back = Client(identities["MQTT_URL"], tls=files[1])
    try:
        assert back.subscribe(f"iotsecbench/agents/{kept}/jobs") == 1
    finally:
        back.close()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "design",
    [
        {"protocol": "mqtt"},
        {"protocol": "mqtt", "transport": "tls1.3", "security": "aes-128-cbc"},
        {"protocol": "srup", "transport": "tls1.2"},
        {"protocol": "coap"},
        {"protocol": "mqttsn", "security": "present-80-cbc"},
        {"topic": "test/d1", "broker_url": "mqtt://127.0.0.1:1883"},
        {"protocol": "coap", "coap_url": "coap://127.0.0.1:5683/echo"},
        {"measurement": "one_way", "security": "ed25519", "payload_size": 16},
        {"measurement": "one_way", "security": "aes-128-cbc", "payload_size": 16},
        {"kind": "cipher_bench", "mechanisms": ["aes-128-cbc"], "data_sizes": [16]},
        {"kind": "throughput", "mechanisms": ["aes-128-cbc"], "data_sizes": [16]},
    ],
)
def test_no_job_of_any_run_kind_carries_a_secret(personas, identities, monkeypatch, design):
    monkeypatch.setattr("django.db.transaction.on_commit", lambda fn, **kw: None)
    csr = _csr(ec.generate_private_key(ec.SECP256R1()))
    device = DeviceFactory.create(
        workspace=personas.workspace,
        broker_certificate=broker.device_certificate(device_id="x", csr_pem=csr),
    )
    experiment = ExperimentFactory.create(workspace=personas.workspace, devices=[device], **design)
    run = experiment_start(experiment=experiment)[0]
    job = json.dumps(_job_for(RunDevice.objects.get(run=run), seq=1, now=0.0))
    assert "PRIVATE KEY" not in job
    assert "client_key" not in job
    assert broker.device_data_credentials(str(device.pk))[1] not in job
    assert broker.platform_data_credentials()[1] not in job
    assert "@" not in json.loads(job)["spec"].get("broker_url", "")  # no user in the URL
    controller = run.controller
    private = [controller.get("security_private_key"), controller.get("srup_private_key")]
    if "security_private_key" not in controller:
        private.append(controller.get("security_key"))  # a shared key: a secret too
    for value in filter(None, private):
        assert value not in job
        assert value.lower() not in job.lower()


@pytest.mark.django_db
def test_a_one_way_runs_shared_key_reaches_only_the_device_it_was_sealed_to(
    personas, identities, monkeypatch
):
    from iotsecbench_contract.sealing import SealError, unseal

    monkeypatch.setattr("django.db.transaction.on_commit", lambda fn, **kw: None)
    keys = [ec.generate_private_key(ec.SECP256R1()) for _ in range(2)]
    devices = [
        DeviceFactory.create(
            workspace=personas.workspace,
            broker_certificate=broker.device_certificate(device_id="x", csr_pem=_csr(key)),
        )
        for key in keys
    ]
    experiment = ExperimentFactory.create(
        workspace=personas.workspace,
        devices=devices,
        measurement="one_way",
        security="aes-128-cbc",
        payload_size=16,
    )
    run = experiment_start(experiment=experiment)[0]
    shared = bytes.fromhex(run.controller["security_key"])
    parts = {p.device_id: p for p in RunDevice.objects.filter(run=run)}
    sealed = {
        device.pk: _job_for(parts[device.pk], seq=1, now=0.0)["spec"]["security_key_sealed"]
        for device in devices
    }
    for key, device in zip(keys, devices, strict=True):
        assert unseal(key, sealed[device.pk], context=f"{run.pk}/{device.pk}") == shared
    # The other device's key, or this device's part of another run, opens nothing.
    with pytest.raises(SealError):
        unseal(keys[1], sealed[devices[0].pk], context=f"{run.pk}/{devices[0].pk}")
    with pytest.raises(SealError):
        unseal(keys[0], sealed[devices[0].pk], context=f"another-run/{devices[0].pk}")


@pytest.mark.django_db
def test_a_run_whose_job_cannot_be_sealed_fails_saying_why_instead_of_hanging(
    personas, identities, monkeypatch
):
    """A device enrolled before the broker had identities has no key to seal a one-way
    run's shared key to: the dispatch fails the run with the reason and how to fix it."""
    from experiments.models import Run, RunStatus
    from experiments.tasks import run_dispatch_task

    monkeypatch.setattr("django.db.transaction.on_commit", lambda fn, **kw: None)
    device = DeviceFactory.create(workspace=personas.workspace, name="pi-old")
    experiment = ExperimentFactory.create(
        workspace=personas.workspace,
        devices=[device],
        measurement="one_way",
        security="aes-128-cbc",
        payload_size=16,
    )
    run = experiment_start(experiment=experiment)[0]
    Run.objects.filter(pk=run.pk).update(status=RunStatus.PREPARING)

    assert run_dispatch_task.apply(args=(str(run.pk),)).get() == 0

    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert "pi-old has no broker identity" in run.error
    assert "enroll its agent again" in run.error
