"""The agent's own broker identity (docs/control-plane.md §1, docs/architecture.md "Security").

At enrollment the agent makes a P-256 key on the device (``mqtt-client.key``, 0600) and sends
the platform only a certificate signing request. The platform answers with a client
certificate for it (CN = the device id), the CA of its broker's TLS listener, and data-plane
credentials for the broker's plain listener (a username and password that grant nothing but
this device's own data topics: plain MQTT runs measure MQTT without TLS, whose CONNECT
carries them in clear). The key never leaves the device and no job carries a secret: the
executor adds this identity to each job's spec on the device (``apply``).

An agent enrolled with a platform whose broker is anonymous has no identity files; its jobs
run as before.
"""

from __future__ import annotations

import json
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from iotsecbench_contract.jobspec import BROKER_EXTERNAL
from iotsecbench_contract.sealing import SealError, unseal

from iotsecbench_agent.brokerurl import parse_mqtt_url
from iotsecbench_agent.errors import ConfigError
from iotsecbench_agent.links.mqtt_link import load_client_chain
from iotsecbench_agent.storage.fsutil import atomic_write_text

KEY_FILE = "mqtt-client.key"
CERT_FILE = "mqtt-client.crt"
CA_FILE = "mqtt-ca.crt"
# The data-plane credentials (plain listener): 0600 like state.json.
DATA_FILE = "mqtt-data.json"


def new_key(state_dir: Path) -> ec.EllipticCurvePrivateKey:
    """A fresh P-256 key, written to ``<state_dir>/mqtt-client.key`` (0600) before anything
    is sent: a crash after the platform signed leaves a key that matches the certificate."""
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode("ascii")
    state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    atomic_write_text(state_dir / KEY_FILE, pem, mode=0o600)
    return key


def certificate_request(key: ec.EllipticCurvePrivateKey, *, name: str) -> str:
    """A PEM CSR for ``key``. The subject is informative only: the platform sets the
    certificate's CN to the device id it assigns."""
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name[:64] or "agent")])
    csr = x509.CertificateSigningRequestBuilder().subject_name(subject).sign(key, hashes.SHA256())
    return csr.public_bytes(serialization.Encoding.PEM).decode("ascii")


def save_identity(state_dir: Path, answer: Mapping[str, Any]) -> bool:
    """Store the ``mqtt_identity`` of an enrollment answer; False when the platform gave none
    (its broker is anonymous). ConfigError if the answer is malformed."""
    identity = answer.get("mqtt_identity")
    if identity is None:
        (state_dir / KEY_FILE).unlink(missing_ok=True)
        return False
    if not isinstance(identity, Mapping):
        raise ConfigError("the enrollment answer's `mqtt_identity` is not an object")
    texts = {}
    for key in ("ca_cert", "client_cert", "data_username", "data_password"):
        value = identity.get(key)
        if not isinstance(value, str) or not value:
            raise ConfigError(f"the enrollment answer's `mqtt_identity.{key}` is missing")
        texts[key] = value
    atomic_write_text(state_dir / CA_FILE, texts["ca_cert"], mode=0o644)
    atomic_write_text(state_dir / CERT_FILE, texts["client_cert"], mode=0o644)
    data = {"username": texts["data_username"], "password": texts["data_password"]}
    atomic_write_text(state_dir / DATA_FILE, json.dumps(data) + "\n", mode=0o600)
    return True


@dataclass(frozen=True)
class BrokerIdentity:
    """What ``load`` found in the state directory; every field None for an anonymous broker."""

    ca_cert: str | None = field(default=None, repr=False)
    client_cert: str | None = field(default=None, repr=False)
    client_key: str | None = field(default=None, repr=False)
    data_username: str | None = None
    data_password: str | None = field(default=None, repr=False)

    @classmethod
    def load(cls, state_dir: Path) -> BrokerIdentity:
        paths = [state_dir / name for name in (CA_FILE, CERT_FILE, KEY_FILE, DATA_FILE)]
        present = [p.exists() for p in paths]
        if not any(present):
            return cls()
        if not all(present):
            missing = ", ".join(p.name for p, ok in zip(paths, present) if not ok)
            raise ConfigError(
                f"{state_dir} holds part of a broker identity ({missing} missing): enroll the "
                "agent again with a new token (`iotsecbench-agent enroll --force …`)"
            )
        try:
            data = json.loads(paths[3].read_text(encoding="utf-8"))
            username, password = str(data["username"]), str(data["password"])
        except (ValueError, KeyError, TypeError):
            raise ConfigError(f"{paths[3]} is not a valid data-plane credentials file") from None
        return cls(
            ca_cert=paths[0].read_text(encoding="ascii"),
            client_cert=paths[1].read_text(encoding="ascii"),
            client_key=paths[2].read_text(encoding="ascii"),
            data_username=username,
            data_password=password,
        )

    @property
    def enabled(self) -> bool:
        return self.client_cert is not None

    def secrets(self) -> list[str]:
        """For the log redaction filter."""
        return [s for s in (self.data_password, self.client_key) if s]

    def control_tls_context(self) -> ssl.SSLContext | None:
        """The control plane's TLS context: the platform broker's CA and this device's own
        certificate. None without an identity (then the system's CAs are used)."""
        if not self.enabled:
            return None
        context = ssl.create_default_context(cadata=self.ca_cert)
        assert self.client_cert is not None
        assert self.client_key is not None
        load_client_chain(context, self.client_cert, self.client_key)
        return context

    def apply(self, spec: Mapping[str, Any], *, context: str) -> Mapping[str, Any]:
        """The job's spec with this device's identity, added on the device: a secret sealed
        to its key opened (``security_key_sealed``, sealed for ``context``: run/device; if it
        does not open, ``security_key_error`` says why and the runner refuses the job);
        for the platform's broker over ``mqtts://`` its own certificate and key (and the
        broker's CA when the job names none), over ``mqtt://`` with no user in the URL its
        data-plane credentials (never for an external broker: ``broker_external``). A spec
        that names its own client certificate or user keeps it."""
        if not self.enabled:
            return spec
        return self._broker_fields(self._opened(spec, context))

    def _opened(self, spec: Mapping[str, Any], context: str) -> Mapping[str, Any]:
        sealed = spec.get("security_key_sealed")
        if sealed is None:
            return spec
        opened = {k: v for k, v in spec.items() if k != "security_key_sealed"}
        try:
            if not isinstance(sealed, Mapping):
                raise SealError("spec.security_key_sealed is not an object")
            assert self.client_key is not None
            key = serialization.load_pem_private_key(self.client_key.encode("ascii"), None)
            if not isinstance(key, ec.EllipticCurvePrivateKey):
                raise SealError("this device's broker key is not an EC key")
            opened["security_key"] = unseal(key, sealed, context=context).hex()
        except SealError as exc:
            opened["security_key_error"] = str(exc)
        return opened

    def _broker_fields(self, spec: Mapping[str, Any]) -> Mapping[str, Any]:
        broker_url = spec.get("broker_url")
        if not isinstance(broker_url, str) or spec.get(BROKER_EXTERNAL) is True:
            # An external broker (spec.broker_external): none of the platform's credentials,
            # certificate or CA go there; mqtts:// verifies it against the system's CAs.
            return spec
        try:
            broker = parse_mqtt_url(broker_url)
        except ConfigError:
            return spec  # the runner refuses it with the reason
        if broker.tls:
            if spec.get("client_cert") is not None or spec.get("client_key") is not None:
                return spec
            added = {"client_cert": self.client_cert, "client_key": self.client_key}
            if spec.get("ca_cert") is None:
                added["ca_cert"] = self.ca_cert
            return {**spec, **added}
        if broker.username is not None:
            return spec
        assert self.data_username is not None
        assert self.data_password is not None
        parts = urlsplit(broker_url)
        credentials = f"{quote(self.data_username, safe='')}:{quote(self.data_password, safe='')}"
        return {
            **spec,
            "broker_url": parts._replace(netloc=f"{credentials}@{parts.netloc}").geturl(),
        }
