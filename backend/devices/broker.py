"""Who is who on the platform's MQTT broker (docs/architecture.md, "Security").

With MQTT_BROKER_IDENTITIES on, the broker runs Mosquitto's dynamic-security plugin with no
anonymous access on any listener, and this module keeps its clients and roles in step with
the devices table through the plugin's `$CONTROL/dynamic-security/v1` topic:

- a device authenticates on the TLS listener with the certificate it got at enrollment
  (its key was made on the device, the platform only signed a CSR: `device_certificate`);
  Mosquitto takes the certificate's CN, the device id, as the user name
  (`use_identity_as_username`). Its role lets it read only its own job topic, write only
  its own status, heartbeat and events, and use its own data topics;
- the same device has data-plane credentials for the plain listener (plain MQTT runs
  measure MQTT without TLS, so their CONNECT carries a password in clear): user
  `data-<device id>`, a password derived from the platform's secret key, and a role with
  nothing but that device's data topics, so a password sniffed off the LAN gives no
  control-plane access;
- the platform's own processes connect as `iotsecbench-platform` with a certificate they
  issue themselves from the client CA (`platform_tls_files`) and, on the plain listener
  (one-way controllers of plain runs), as `iotsecbench-platform-data`.

The broker's initial configuration (`dynsec_initial_config`, written by `manage.py
broker_identities setup`, devices/broker_setup.py) knows only the platform's certificate
identity, with the plugin's admin role; `broker_sync` (run at every start, `manage.py
broker_identities sync`) creates everything else, idempotently, so a broker that lost its
state is rebuilt from the database.
"""

from __future__ import annotations

import datetime
import json
import os
import tempfile
import threading
import uuid
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import paho.mqtt.client as mqtt
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from django.conf import settings
from django.utils.crypto import salted_hmac
from iotsecbench_contract import topics
from iotsecbench_contract.sealing import seal

from core.exceptions import ApplicationError

PLATFORM_USER = "iotsecbench-platform"
PLATFORM_DATA_USER = "iotsecbench-platform-data"
DATA_USER_PREFIX = "data-"
CONTROL_TOPIC = "$CONTROL/dynamic-security/v1"
RESPONSE_TOPIC = f"{CONTROL_TOPIC}/response"
ADMIN_TIMEOUT_S = 10.0
# A device's certificate is renewed by enrolling again; a lab's Pi keeps one for years.
DEVICE_CERT_DAYS = 825
PLATFORM_CERT_DAYS = 30
# Errors of an idempotent sync that mean "already so".
_ALREADY = ("already exists", "not found")


class BrokerAdminFailed(ApplicationError):
    """The broker did not accept an identity change: check that it runs and that
    MQTT_URL/MQTT_TLS_* name it (the message says what failed)."""

    code = "broker_admin_failed"
    status_code = 503


class CertificateRequestInvalid(ApplicationError):
    """The enrollment's CSR is missing, malformed or not self-signed."""

    code = "certificate_request_invalid"
    status_code = 400


def identities_enabled() -> bool:
    return bool(settings.MQTT_BROKER_IDENTITIES)


# --- certificates -----------------------------------------------------------------------------


def key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def write_file(path: Path, data: bytes, mode: int) -> None:
    """Write `data` with `mode` from the first byte (a key is never readable by others)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.chmod(path, mode)


@cache
def _client_ca() -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey]:
    cert_file, key_file = settings.MQTT_TLS_CLIENT_CA_FILE, settings.MQTT_TLS_CLIENT_CA_KEY_FILE
    if not (cert_file and key_file):
        raise BrokerAdminFailed(
            "MQTT_BROKER_IDENTITIES needs MQTT_TLS_CLIENT_CA_FILE and MQTT_TLS_CLIENT_CA_KEY_FILE"
        )
    certificate = x509.load_pem_x509_certificate(Path(cert_file).read_bytes())
    key = serialization.load_pem_private_key(Path(key_file).read_bytes(), password=None)
    if not isinstance(key, (ec.EllipticCurvePrivateKey, rsa.RSAPrivateKey)):
        raise ValueError(f"{key_file}: the client CA's key must be an EC or RSA private key")
    return certificate, key


def _sign(public_key: Any, *, common_name: str, days: int) -> str:
    ca_cert, ca_key = _client_ca()
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)]))
        .issuer_name(ca_cert.subject)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=days))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    return certificate.public_bytes(serialization.Encoding.PEM).decode("ascii")


def device_certificate(*, device_id: str, csr_pem: str) -> str:
    """Sign the device's CSR: CN = the device id whatever the CSR asked, clientAuth only.
    The CSR's own signature must verify (proof that the device holds the key)."""
    try:
        csr = x509.load_pem_x509_csr(csr_pem.encode("ascii"))
    except (ValueError, UnicodeEncodeError):
        raise CertificateRequestInvalid(
            "`csr` is not a PEM certificate signing request; `iotsecbench-agent enroll` makes "
            "one (update the agent if it sent none)."
        ) from None
    if not csr.is_signature_valid:
        raise CertificateRequestInvalid("`csr` is not signed by its own key.")
    public_key = csr.public_key()
    # P-256: what the agent makes, and what job secrets are sealed to (seal_for_device).
    if not (
        isinstance(public_key, ec.EllipticCurvePublicKey)
        and isinstance(public_key.curve, ec.SECP256R1)
    ):
        raise CertificateRequestInvalid("`csr` must hold a P-256 (secp256r1) public key.")
    return _sign(public_key, common_name=device_id, days=DEVICE_CERT_DAYS)


def seal_for_device(device: Any, secret: bytes, *, context: str) -> dict[str, str] | None:
    """`secret` sealed to the device's broker key (iotsecbench_contract.sealing), or None with an
    anonymous broker (identities off): then the caller sends it as before, readable by
    whoever may read the device's job topic. BrokerAdminFailed for a device without a
    broker certificate (enrolled before identities): it must enroll again."""
    if not identities_enabled():
        return None
    if not device.broker_certificate:
        raise BrokerAdminFailed(
            f"{device.name} has no broker identity (enrolled before the broker had "
            "identities): enroll its agent again with a new token."
        )
    public_key = x509.load_pem_x509_certificate(device.broker_certificate.encode()).public_key()
    assert isinstance(public_key, ec.EllipticCurvePublicKey)  # device_certificate's rule
    return seal(public_key, secret, context=context)


def ca_certificate_pem() -> str:
    """The CA that signs the broker's server certificate (what agents verify it with)."""
    return Path(settings.MQTT_TLS_CA_FILE).read_text()


@dataclass(frozen=True)
class TlsFiles:
    ca_file: str
    cert_file: str
    key_file: str


@cache
def platform_tls_files() -> TlsFiles:
    """This process's own certificate as `iotsecbench-platform`: a fresh key (never
    written outside a 0700 temporary directory of this process), signed by the client CA."""
    key = ec.generate_private_key(ec.SECP256R1())
    directory = Path(tempfile.mkdtemp(prefix="iotsecbench-platform-"))  # mode 0700
    key_file, cert_file = directory / "platform.key", directory / "platform.crt"
    write_file(key_file, key_pem(key), 0o600)
    certificate = _sign(key.public_key(), common_name=PLATFORM_USER, days=PLATFORM_CERT_DAYS)
    write_file(cert_file, certificate.encode("ascii"), 0o644)
    return TlsFiles(
        ca_file=settings.MQTT_TLS_CA_FILE, cert_file=str(cert_file), key_file=str(key_file)
    )


def platform_tls_pems() -> tuple[str, str]:
    """(certificate, key) PEM texts of platform_tls_files, for the one-way controller's
    link (which loads PEM texts); they stay in this process."""
    files = platform_tls_files()
    return Path(files.cert_file).read_text(), Path(files.key_file).read_text()


def controller_link_fields(link: dict[str, Any]) -> dict[str, Any]:
    """A one-way controller's link fields (broker_url, tls_version, ca_cert …) with the
    platform's identity: its certificate over mqtts://, its data-plane user over mqtt://.
    They stay in the controller's process."""
    if not identities_enabled():
        return link
    parts = urlsplit(link["broker_url"])
    if parts.scheme == "mqtts":
        cert, key = platform_tls_pems()
        return {**link, "client_cert": cert, "client_key": key}
    if parts.username:
        return link
    user, password = platform_data_credentials()
    netloc = f"{quote(user, safe='')}:{quote(password, safe='')}@{parts.netloc}"
    return {**link, "broker_url": parts._replace(netloc=netloc).geturl()}


# --- credentials and roles --------------------------------------------------------------------


def _password(user: str) -> str:
    return salted_hmac("iotsecbench.broker.data-password", user, algorithm="sha256").hexdigest()


def device_data_credentials(device_id: str) -> tuple[str, str]:
    user = f"{DATA_USER_PREFIX}{device_id}"
    return user, _password(user)


def platform_data_credentials() -> tuple[str, str]:
    return PLATFORM_DATA_USER, _password(PLATFORM_DATA_USER)


def _acl(acltype: str, topic: str) -> dict[str, Any]:
    return {"acltype": acltype, "topic": topic, "allow": True, "priority": 0}


def _use(filters: list[str]) -> list[dict[str, Any]]:
    """Publish to and subscribe to each topic (filter)."""
    return [_acl(t, topic) for topic in filters for t in ("publishClientSend", "subscribePattern")]


def data_topics(device_id: str) -> list[str]:
    """What a device's runs use: its part of every run's data topic, its health-check
    topic, its SRUP topic and MQTT-SN short topic names (two characters, top level: shared by
    every device, as on any broker, see device-agent/docs/mqttsn.md); and the topics a design
    chose (experiments.addressing), which end in the level {device}: any topic of up to
    topics.OWN_TOPIC_MAX_LEVELS levels whose last level is the device's own id, never another
    device's."""
    return [
        topics.data_topic("+", device_id),
        topics.health_topic(device_id, "#"),
        topics.srup_topic(topics.srup_id(device_id)),
        "+",
        *topics.own_topic_filters(device_id),
    ]


def device_role(device_id: str) -> dict[str, Any]:
    acls = [
        _acl("subscribePattern", topics.jobs_topic(device_id)),
        *[_acl("publishClientSend", topics.agent_topic(device_id, k)) for k in topics.AGENT_WRITES],
        *_use(data_topics(device_id)),
    ]
    return {"rolename": f"device-{device_id}", "acls": acls}


def device_data_role(device_id: str) -> dict[str, Any]:
    return {"rolename": f"data-{device_id}", "acls": _use(data_topics(device_id))}


PLATFORM_ROLE: dict[str, Any] = {
    "rolename": "iotsecbench-platform",
    "acls": [
        _acl("publishClientSend", topics.jobs_topic("+")),
        *[_acl("subscribePattern", topic) for topic in topics.platform_subscriptions()],
        *_use([f"{topics.DATA}/#", f"{topics.SRUP_PREFIX}#"]),
    ],
}
PLATFORM_DATA_ROLE: dict[str, Any] = {
    "rolename": "iotsecbench-platform-data",
    "acls": _use([f"{topics.DATA}/#", f"{topics.SRUP_PREFIX}#"]),
}
# The plugin's own admin role (as `mosquitto_ctrl dynsec init` makes it).
ADMIN_ROLE: dict[str, Any] = {
    "rolename": "admin",
    "acls": [
        _acl(acltype, "$CONTROL/dynamic-security/#")
        for acltype in ("publishClientSend", "publishClientReceive", "subscribePattern")
    ],
}


def dynsec_initial_config() -> dict[str, Any]:
    """The plugin's starting file: the platform's certificate identity with the admin and
    platform roles; defaults deny publishing and subscribing to anyone else."""
    return {
        "defaultACLAccess": {
            "publishClientSend": False,
            "publishClientReceive": True,
            "subscribe": False,
            "unsubscribe": True,
        },
        "clients": [
            {
                "username": PLATFORM_USER,
                "textname": "IoTSecBench platform (certificate)",
                "roles": [{"rolename": "admin"}, {"rolename": PLATFORM_ROLE["rolename"]}],
            }
        ],
        "groups": [],
        "roles": [ADMIN_ROLE, PLATFORM_ROLE],
    }


# --- the plugin's topic API -------------------------------------------------------------------


def dynsec_commands(commands: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Send commands to the plugin as the platform and return its responses (in order).
    BrokerAdminFailed if the broker cannot be reached or does not answer."""
    from core.mqtt import broker_session, mqtt_client

    correlation = uuid.uuid4().hex
    answered = threading.Event()
    subscribed = threading.Event()
    responses: list[dict[str, Any]] = []
    client, address = mqtt_client(settings.MQTT_URL, client_id_prefix="iotsecbench-admin")

    def on_message(c: mqtt.Client, u: object, message: mqtt.MQTTMessage) -> None:
        try:
            body = json.loads(message.payload)
        except ValueError:
            return
        items = body.get("responses", []) if isinstance(body, dict) else []
        if items and all(r.get("correlationData") == correlation for r in items):
            responses.extend(items)
            answered.set()

    client.on_message = on_message
    client.on_subscribe = lambda *a: subscribed.set()
    client.on_connect = lambda c, u, f, reason, p: (
        c.subscribe(RESPONSE_TOPIC, qos=1) if not reason.is_failure else None
    )
    with broker_session(
        client, address, subscribed, error=BrokerAdminFailed, what="the platform's admin session"
    ) as where:
        payload = {"commands": [{**c, "correlationData": correlation} for c in commands]}
        client.publish(CONTROL_TOPIC, json.dumps(payload), qos=1)
        if not answered.wait(ADMIN_TIMEOUT_S):
            raise BrokerAdminFailed(
                f"The MQTT broker at {where} did not answer the dynamic-security commands "
                "(is its dynamic-security plugin loaded?)."
            )
    return responses


def _apply(commands: list[dict[str, Any]]) -> None:
    failed = [
        f"{r.get('command')}: {r['error']}"
        for r in dynsec_commands(commands)
        if r.get("error") and not any(word in r["error"] for word in _ALREADY)
    ]
    if failed:
        raise BrokerAdminFailed("The broker refused: " + "; ".join(failed))


def _role_commands(role: dict[str, Any]) -> list[dict[str, Any]]:
    # createRole is refused when it exists; modifyRole then sets its ACLs to these.
    return [{"command": "createRole", **role}, {"command": "modifyRole", **role}]


def _client_commands(
    username: str, roles: list[str], password: str | None = None
) -> list[dict[str, Any]]:
    # createClient is refused when it exists; modifyClient then sets its roles (and
    # password). (addClientRole answers "Internal error" for a role the client has.)
    client: dict[str, Any] = {
        "username": username,
        **({"password": password} if password is not None else {}),
        "roles": [{"rolename": r} for r in roles],
    }
    return [{"command": "createClient", **client}, {"command": "modifyClient", **client}]


def _device_commands(device_id: str) -> list[dict[str, Any]]:
    role, data_role = device_role(device_id), device_data_role(device_id)
    user, password = device_data_credentials(device_id)
    return [
        *_role_commands(role),
        *_role_commands(data_role),
        *_client_commands(device_id, [role["rolename"]]),
        *_client_commands(user, [data_role["rolename"]], password),
    ]


def _revoke_commands(device_id: str) -> list[dict[str, Any]]:
    # Deleting a client disconnects its sessions on the broker at once.
    return [
        {"command": "deleteClient", "username": device_id},
        {"command": "deleteClient", "username": device_data_credentials(device_id)[0]},
        {"command": "deleteRole", "rolename": device_role(device_id)["rolename"]},
        {"command": "deleteRole", "rolename": device_data_role(device_id)["rolename"]},
    ]


def broker_device_grant(*, device_id: str) -> None:
    if identities_enabled():
        _apply(_device_commands(device_id))


def broker_device_revoke(*, device_id: str) -> None:
    if identities_enabled():
        _apply(_revoke_commands(device_id))


def broker_sync() -> int:
    """Make the broker's identities match the database: the platform's roles and data
    user, every enrolled device granted, every revoked one removed. Returns the number of
    devices granted."""
    from devices.models import Device

    if not identities_enabled():
        return 0
    user, password = platform_data_credentials()
    commands = [
        *_role_commands(PLATFORM_ROLE),
        *_role_commands(PLATFORM_DATA_ROLE),
        *_client_commands(user, [PLATFORM_DATA_ROLE["rolename"]], password),
    ]
    granted = 0
    for device_id, revoked_at in Device.objects.values_list("pk", "revoked_at"):
        if revoked_at is None:
            commands += _device_commands(str(device_id))
            granted += 1
        else:
            commands += _revoke_commands(str(device_id))
    _apply(commands)
    return granted
