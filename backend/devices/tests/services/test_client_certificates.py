"""TLS jobs carry a fresh client certificate for their device, signed by the client CA."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from core.testing.factories import DeviceFactory, ExperimentFactory
from devices.certificates import _ca
from experiments.models import RunDevice
from experiments.services import _job_for, experiment_start


@pytest.fixture
def client_ca(tmp_path: Path, settings) -> x509.Certificate:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test client CA")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    (tmp_path / "ca.crt").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "ca.key").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    settings.MQTT_TLS_URL = "mqtts://127.0.0.1:8883"
    settings.MQTT_TLS_CA_FILE = str(tmp_path / "ca.crt")
    settings.MQTT_TLS_CLIENT_CA_FILE = str(tmp_path / "ca.crt")
    settings.MQTT_TLS_CLIENT_CA_KEY_FILE = str(tmp_path / "ca.key")
    _ca.cache_clear()
    return cert


@pytest.mark.django_db
def test_a_tls_job_carries_a_client_certificate_for_its_device_only(
    personas, client_ca, monkeypatch
):
    monkeypatch.setattr("django.db.transaction.on_commit", lambda fn, **kw: None)
    device = DeviceFactory.create(workspace=personas.workspace)
    experiment = ExperimentFactory.create(
        workspace=personas.workspace, devices=[device], protocol="srup", transport="tls1.3"
    )
    run = experiment_start(experiment=experiment)[0]
    part = RunDevice.objects.get(run=run)

    spec = _job_for(part, seq=1, now=0.0)["spec"]

    cert = x509.load_pem_x509_certificate(spec["client_cert"].encode())
    cert.verify_directly_issued_by(client_ca)  # raises unless the CA signed it
    assert cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == str(device.pk)
    usage = cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert list(usage) == [ExtendedKeyUsageOID.CLIENT_AUTH]
    key = serialization.load_pem_private_key(spec["client_key"].encode(), password=None)
    assert key.public_key() == cert.public_key()
    # Each job gets its own key; the run's frozen spec (shown by the API) has none.
    again = _job_for(part, seq=2, now=0.0)["spec"]
    assert again["client_key"] != spec["client_key"]
    assert "client_key" not in run.spec


@pytest.mark.django_db
def test_a_plain_tcp_job_carries_no_client_certificate(personas, client_ca, monkeypatch):
    monkeypatch.setattr("django.db.transaction.on_commit", lambda fn, **kw: None)
    device = DeviceFactory.create(workspace=personas.workspace)
    experiment = ExperimentFactory.create(workspace=personas.workspace, devices=[device])
    run = experiment_start(experiment=experiment)[0]
    spec = _job_for(RunDevice.objects.get(run=run), seq=1, now=0.0)["spec"]
    assert "client_cert" not in spec
