"""Client certificates for the broker's TLS listener (SRUP's and MQTT+TLS runs, DESIGN.md:
"MQTT over TLS with client certificates").

When MQTT_TLS_CLIENT_CA_FILE and MQTT_TLS_CLIENT_CA_KEY_FILE are set, the broker's TLS
listener requires a client certificate signed by that CA (Mosquitto `require_certificate
true`, `use_identity_as_username true`), and every TLS job carries a fresh one for its
device: a new P-256 key, CN = the device id, clientAuth only, valid for the job's life plus
the longest run. The private key travels only inside the signed job to that device.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.asymmetric.types import CertificateIssuerPrivateKeyTypes
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from django.conf import settings

# A run may last hours (a matrix's long cell); a certificate outlives it comfortably.
CLIENT_CERT_DAYS = 2


@dataclass(frozen=True)
class ClientCertificate:
    cert_pem: str
    key_pem: str


def client_certificates_enabled() -> bool:
    return bool(settings.MQTT_TLS_CLIENT_CA_FILE and settings.MQTT_TLS_CLIENT_CA_KEY_FILE)


@cache
def _ca(cert_file: str, key_file: str) -> tuple[x509.Certificate, CertificateIssuerPrivateKeyTypes]:
    certificate = x509.load_pem_x509_certificate(Path(cert_file).read_bytes())
    key = serialization.load_pem_private_key(Path(key_file).read_bytes(), password=None)
    if not isinstance(key, (ec.EllipticCurvePrivateKey, rsa.RSAPrivateKey)):
        raise ValueError(f"{key_file}: the client CA's key must be an EC or RSA private key")
    return certificate, key


def issue_client_certificate(*, common_name: str) -> ClientCertificate:
    """A fresh key and a certificate for it, signed by the client CA (see module doc)."""
    ca_cert, ca_key = _ca(settings.MQTT_TLS_CLIENT_CA_FILE, settings.MQTT_TLS_CLIENT_CA_KEY_FILE)
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)]))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=CLIENT_CERT_DAYS))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    return ClientCertificate(
        cert_pem=certificate.public_bytes(serialization.Encoding.PEM).decode(),
        key_pem=key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode(),
    )
