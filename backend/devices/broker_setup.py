"""The broker's files, made once for a deployment (`manage.py broker_identities setup`):
the CA that signs the broker's server certificate, every device's certificate and the
platform's own; the server certificate for the names agents reach the broker by; and the
dynamic-security plugin's starting file (devices/broker.py). `make up`, the e2e tests
(scripts/stack.py) and docker-compose's `broker-setup` service all use it.

The CA stays where the platform reads it (MQTT_TLS_CLIENT_CA_FILE/_KEY_FILE); the broker
gets a directory of its own with the CA's certificate, its server certificate and key, and
the plugin's file. What exists is kept: the CA (certificates it signed stay valid across
restarts) and the plugin's file (the broker's state); the server certificate is made again
when the names change.
"""

from __future__ import annotations

import datetime
import ipaddress
import json
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from devices.broker import dynsec_initial_config, key_pem, write_file

CA_DAYS = 3650
SERVER_DAYS = 825
DYNSEC_FILE = "dynamic-security.json"


@dataclass(frozen=True)
class BrokerFiles:
    ca_cert: Path
    ca_key: Path
    broker_dir: Path


def _names(hosts: Sequence[str]) -> list[x509.GeneralName]:
    names: list[x509.GeneralName] = []
    for host in dict.fromkeys(hosts):
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            names.append(x509.DNSName(host))
    return names


def _ca(directory: Path) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    cert_path, key_path = directory / "ca.crt", directory / "ca.key"
    if cert_path.exists() and key_path.exists():
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
        assert isinstance(key, ec.EllipticCurvePrivateKey)
        return x509.load_pem_x509_certificate(cert_path.read_bytes()), key
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "IoTSecBench broker CA")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=CA_DAYS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    write_file(key_path, key_pem(key), 0o600)
    write_file(cert_path, cert.public_bytes(serialization.Encoding.PEM), 0o644)
    return cert, key


def _server_certificate(
    broker_dir: Path, ca: x509.Certificate, ca_key: ec.EllipticCurvePrivateKey, hosts: list[str]
) -> None:
    cert_path, key_path = broker_dir / "server.crt", broker_dir / "server.key"
    names = _names(hosts)
    if cert_path.exists() and key_path.exists():
        existing = x509.load_pem_x509_certificate(cert_path.read_bytes())
        try:
            sans = existing.extensions.get_extension_for_class(x509.SubjectAlternativeName)
            same_names = set(sans.value) == set(names)
        except x509.ExtensionNotFound:
            same_names = False
        if same_names and existing.issuer == ca.subject:
            return
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hosts[0])]))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=SERVER_DAYS))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    write_file(key_path, key_pem(key), 0o600)
    write_file(cert_path, cert.public_bytes(serialization.Encoding.PEM), 0o644)


def broker_setup(pki_dir: Path, broker_dir: Path, hosts: Sequence[str]) -> BrokerFiles:
    """Make (or keep) the CA in `pki_dir` and the broker's files in `broker_dir` for the
    names in `hosts` (the first is the server certificate's CN)."""
    if not hosts:
        raise ValueError("the broker needs at least one name agents reach it by")
    pki_dir.mkdir(parents=True, exist_ok=True)
    os.chmod(pki_dir, 0o700)
    broker_dir.mkdir(parents=True, exist_ok=True)
    ca, ca_key = _ca(pki_dir)
    shutil.copyfile(pki_dir / "ca.crt", broker_dir / "ca.crt")
    _server_certificate(broker_dir, ca, ca_key, list(hosts))
    dynsec = broker_dir / DYNSEC_FILE
    if not dynsec.exists():
        write_file(dynsec, (json.dumps(dynsec_initial_config(), indent=2) + "\n").encode(), 0o600)
    return BrokerFiles(pki_dir / "ca.crt", pki_dir / "ca.key", broker_dir)
