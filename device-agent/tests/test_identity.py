"""The agent's broker identity (platform/identity.py): its key is made on the device and only a CSR
leaves it; the platform's answer is stored privately; jobs get the identity on the device."""

from __future__ import annotations

import base64
import datetime
import json
import stat
import uuid
from pathlib import Path
from typing import Any

import pytest
from Crypto.PublicKey.ECC import EccKey
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from iotsecbench_contract.sealing import SealError, seal, unseal

from iotsecbench_agent.cli.main import main
from iotsecbench_agent.errors import ConfigError
from iotsecbench_agent.platform.identity import (
    CA_FILE,
    CERT_FILE,
    DATA_FILE,
    KEY_FILE,
    BrokerIdentity,
)
from testkit import TOKEN, FakePlatform, public_key_b64

CONTEXT = "run-1/device-1"
DATA_PASSWORD = "p@ss/word:1"


def _sign(csr: x509.CertificateSigningRequest, *, cn: str) -> tuple[str, str]:
    """What the platform does: a CA, and a certificate for the CSR's key."""
    ca_key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test CA")])
    now = datetime.datetime.now(datetime.timezone.utc)

    def build(subject: x509.Name, public: object, days: int) -> x509.Certificate:
        return (
            x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(name)
            .public_key(public)  # type: ignore[arg-type]
            .serial_number(x509.random_serial_number())
            .not_valid_before(now)
            .not_valid_after(now + datetime.timedelta(days=days))
            .sign(ca_key, hashes.SHA256())
        )

    ca = build(name, ca_key.public_key(), 10)
    cert = build(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)]), csr.public_key(), 1)
    pem = serialization.Encoding.PEM
    return ca.public_bytes(pem).decode(), cert.public_bytes(pem).decode()


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_enroll_sends_only_a_csr_for_a_key_it_keeps_and_stores_the_identity(
    platform: FakePlatform, key: EccKey, tmp_path: Path
) -> None:
    device_id = str(uuid.uuid4())
    state_dir = tmp_path / "state"
    answer = {
        "device_id": device_id,
        "api_token": TOKEN,
        "mqtt_url": "mqtts://127.0.0.1:8883",
        "job_public_key": public_key_b64(key),
        "topic_prefix": f"iotsecbench/agents/{device_id}",
    }
    platform.enroll_answer = answer
    argv = ["enroll", f"--server={platform.url}", "--token=good-token", f"--state-dir={state_dir}"]
    assert main(argv) == 0
    assert not (state_dir / CERT_FILE).exists()  # an anonymous broker: no identity kept
    assert not (state_dir / KEY_FILE).exists()

    def sign_csr(request: dict[str, Any]) -> dict[str, Any]:
        csr = x509.load_pem_x509_csr(request["csr"].encode())
        ca, cert = _sign(csr, cn=device_id)
        return {
            "ca_cert": ca,
            "client_cert": cert,
            "data_username": f"data-{device_id}",
            "data_password": DATA_PASSWORD,
        }

    platform.sign_csr = sign_csr
    assert main([*argv, "--force"]) == 0

    request = platform.to("/api/agent/enroll/")[-1].json()
    assert "PRIVATE KEY" not in json.dumps(request)
    csr = x509.load_pem_x509_csr(request["csr"].encode())
    assert csr.is_signature_valid
    kept = serialization.load_pem_private_key((state_dir / KEY_FILE).read_bytes(), None)
    assert kept.public_key() == csr.public_key()
    assert _mode(state_dir / KEY_FILE) == 0o600
    assert _mode(state_dir / DATA_FILE) == 0o600

    identity = BrokerIdentity.load(state_dir)
    assert identity.enabled
    assert identity.data_username == f"data-{device_id}"
    assert identity.data_password == DATA_PASSWORD
    cert = x509.load_pem_x509_certificate((identity.client_cert or "").encode())
    assert cert.public_key() == kept.public_key()
    assert identity.control_tls_context() is not None  # the key matches the certificate
    assert DATA_PASSWORD in identity.secrets()


def _identity() -> BrokerIdentity:
    return BrokerIdentity(
        ca_cert="CA PEM",
        client_cert="CERT PEM",
        client_key="KEY PEM",
        data_username="data-x",
        data_password=DATA_PASSWORD,
    )


def test_a_tls_job_gets_the_devices_own_certificate_and_the_brokers_ca() -> None:
    spec = {"broker_url": "mqtts://broker:8883", "tls_version": "1.3"}
    applied = _identity().apply(spec, context=CONTEXT)
    assert applied["client_cert"] == "CERT PEM"
    assert applied["client_key"] == "KEY PEM"
    assert applied["ca_cert"] == "CA PEM"
    assert "client_key" not in spec  # the job itself is not changed
    # A job naming its own CA keeps it.
    assert _identity().apply({**spec, "ca_cert": "JOB CA"}, context=CONTEXT)["ca_cert"] == "JOB CA"


def test_a_plain_job_gets_the_data_plane_credentials_quoted_into_its_url() -> None:
    applied = _identity().apply({"broker_url": "mqtt://broker:1883", "qos": 1}, context=CONTEXT)
    assert applied["broker_url"] == "mqtt://data-x:p%40ss%2Fword%3A1@broker:1883"
    from iotsecbench_agent.brokerurl import parse_mqtt_url

    parsed = parse_mqtt_url(applied["broker_url"])
    assert (parsed.username, parsed.password) == ("data-x", DATA_PASSWORD)


@pytest.mark.parametrize(
    "spec",
    [
        {"broker_url": "mqtt://someone:else@broker:1883"},  # a broker with its own user
        {"broker_url": "mqtts://broker:8883", "client_cert": "C", "client_key": "K"},
        {"kind_without_broker": True},
        {"broker_url": "http://not-mqtt"},
    ],
)
def test_a_job_that_names_its_own_identity_or_no_broker_is_left_alone(
    spec: dict[str, object],
) -> None:
    assert _identity().apply(spec, context=CONTEXT) == spec


@pytest.mark.parametrize("url", ["mqtt://broker.example:1883", "mqtts://broker.example:8883"])
def test_an_external_broker_gets_none_of_the_platforms_identity(url: str) -> None:
    """A design's own broker (spec.broker_external): no data-plane password in its URL, no
    client certificate or key, not the platform's CA (mqtts:// uses the system's CAs)."""
    spec = {"broker_url": url, "broker_external": True, "qos": 1}
    applied = _identity().apply(spec, context=CONTEXT)
    assert applied == spec
    assert DATA_PASSWORD not in str(applied)
    # The same URL without the mark is the platform's and gets the identity.
    assert _identity().apply({**spec, "broker_external": False}, context=CONTEXT) != spec


def test_without_an_identity_jobs_run_as_before(tmp_path: Path) -> None:
    identity = BrokerIdentity.load(tmp_path)
    assert not identity.enabled
    spec = {"broker_url": "mqtt://broker:1883"}
    assert identity.apply(spec, context=CONTEXT) is spec
    assert identity.control_tls_context() is None


def test_a_partial_identity_names_what_is_missing(tmp_path: Path) -> None:
    (tmp_path / CA_FILE).write_text("x")
    (tmp_path / KEY_FILE).write_text("x")
    with pytest.raises(ConfigError, match=f"{CERT_FILE}, {DATA_FILE} missing"):
        BrokerIdentity.load(tmp_path)


def _device_identity(tmp_path: Path) -> tuple[BrokerIdentity, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    return BrokerIdentity("CA", "CERT", pem, "data-x", DATA_PASSWORD), key


def test_a_key_sealed_to_the_device_opens_only_with_its_key_for_its_run(tmp_path: Path) -> None:
    identity, key = _device_identity(tmp_path)
    secret = bytes(range(16))
    sealed = seal(key.public_key(), secret, context=CONTEXT)
    assert secret.hex() not in json.dumps(sealed)
    spec = {"security": "aes-128-cbc", "security_key_sealed": sealed}

    opened = identity.apply(spec, context=CONTEXT)
    assert opened["security_key"] == secret.hex()
    assert "security_key_sealed" not in opened

    # Another run's context, another device's key, a flipped bit: refused with a reason.
    other = identity.apply(spec, context="other-run/device")
    assert "security_key" not in other
    assert "does not open" in other["security_key_error"]
    stranger, _ = _device_identity(tmp_path)
    assert "does not open" in stranger.apply(spec, context=CONTEXT)["security_key_error"]
    flipped = dict(
        sealed, ct=base64.b64encode(bytes([1]) + base64.b64decode(sealed["ct"])[1:]).decode()
    )
    tampered = identity.apply({**spec, "security_key_sealed": flipped}, context=CONTEXT)
    assert "security_key" not in tampered
    with pytest.raises(SealError, match="algorithm"):
        unseal(key, {**sealed, "alg": "none"}, context=CONTEXT)


def test_a_one_way_receiver_refuses_a_job_whose_sealed_key_did_not_open() -> None:
    from iotsecbench_agent.errors import UnsupportedJob
    from iotsecbench_agent.runners.oneway_receiver import OneWaySpec

    spec = {
        "protocol": "mqtt",
        "measurement": "one_way",
        "broker_url": "mqtt://127.0.0.1:1883",
        "topic": "t",
        "qos": 1,
        "security": "aes-128-cbc",
        "payload_size": 16,
        "message_count": 1,
        "interval_ms": 10,
        "timeout_ms": 1000,
        "time_url": "http://127.0.0.1:1/api/agent/time/",
        "oneway_deadline_s": 10,
        "security_key_error": "sealed secret does not open with this device's key for this run",
    }
    with pytest.raises(UnsupportedJob, match="does not open"):
        OneWaySpec.parse(spec, srup=False)
