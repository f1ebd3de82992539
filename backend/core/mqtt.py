"""The platform's MQTT publisher: the one place the backend talks to the broker to send.

Kept small on purpose: it is the seam that tests of the dispatch logic may patch, while the
end-to-end tests let it reach the real Mosquitto.
"""

from __future__ import annotations

import socket
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import urlsplit

import paho.mqtt.client as mqtt
from django.conf import settings
from paho.mqtt.enums import CallbackAPIVersion

from core.exceptions import ApplicationError

CONNECT_TIMEOUT_S = 5.0
PUBLISH_TIMEOUT_S = 5.0


class BrokerUnavailable(ApplicationError):
    """The platform could not reach its MQTT broker; check MQTT_URL and that it is running."""

    code = "broker_unavailable"
    status_code = 503


@dataclass(frozen=True)
class BrokerAddress:
    host: str
    port: int
    tls: bool
    username: str | None
    password: str | None


@dataclass(frozen=True)
class PlatformIdentity:
    """How the platform authenticates to its broker when broker identities are on: its
    data-plane user over mqtt://, its own client certificate over mqtts://. The devices app
    registers it (devices/apps.py, from devices/broker.py): core sits below every app."""

    enabled: Callable[[], bool]
    data_credentials: Callable[[], tuple[str, str]]
    tls_files: Callable[[], tuple[str, str, str]]  # (CA, certificate, key) file paths


_platform_identity: PlatformIdentity | None = None


def platform_identity_register(identity: PlatformIdentity) -> None:
    global _platform_identity  # set once, by the devices app's ready()
    _platform_identity = identity


def broker_address(url: str) -> BrokerAddress:
    parts = urlsplit(url)
    if parts.scheme not in ("mqtt", "mqtts"):
        raise ValueError(f"MQTT URL {url!r} must start with mqtt:// or mqtts://")
    tls = parts.scheme == "mqtts"
    return BrokerAddress(
        host=parts.hostname or "127.0.0.1",
        port=parts.port or (8883 if tls else 1883),
        tls=tls,
        username=parts.username,
        password=parts.password,
    )


def mqtt_client(url: str, *, client_id_prefix: str) -> tuple[mqtt.Client, BrokerAddress]:
    address = broker_address(url)
    client = mqtt.Client(
        callback_api_version=CallbackAPIVersion.VERSION2,
        client_id=f"{client_id_prefix}-{uuid.uuid4().hex[:12]}",
    )
    # With broker identities (devices/broker.py) the platform is `iotsecbench-platform`: its
    # own certificate on a TLS listener, its data-plane user on a plain one.
    identity = _platform_identity
    identities = identity is not None and identity.enabled()
    if address.username:
        client.username_pw_set(address.username, address.password)
    elif identity is not None and identities and not address.tls:
        client.username_pw_set(*identity.data_credentials())
    if address.tls and identity is not None and identities:
        ca_file, cert_file, key_file = identity.tls_files()
        client.tls_set(ca_certs=ca_file, certfile=cert_file, keyfile=key_file)
    elif address.tls:
        client.tls_set(ca_certs=settings.MQTT_TLS_CA_FILE or None)
    return client, address


def _nodelay(client: mqtt.Client, userdata: object, sock: object) -> None:
    # Nagle plus delayed ACKs add ~40 ms steps to small control messages (DESIGN.md).
    if isinstance(sock, socket.socket):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def mqtt_publish_many(messages: list[tuple[str, bytes, int, bool]]) -> None:
    """Publish (topic, payload, qos, retain) messages and wait until the broker has them."""
    client, address = mqtt_client(settings.MQTT_URL, client_id_prefix="iotsecbench-platform")
    client.on_socket_open = _nodelay
    connected = threading.Event()
    client.on_connect = lambda c, u, flags, reason, props: connected.set()
    with broker_session(client, address, connected, error=BrokerUnavailable) as where:
        infos = [client.publish(t, p, qos=q, retain=r) for t, p, q, r in messages]
        for info in infos:
            info.wait_for_publish(timeout=PUBLISH_TIMEOUT_S)
            if not info.is_published():
                raise BrokerUnavailable(
                    f"The MQTT broker at {where} did not acknowledge a publish within "
                    f"{PUBLISH_TIMEOUT_S} s."
                )


@contextmanager
def broker_session(
    client: mqtt.Client,
    address: BrokerAddress,
    ready: threading.Event,
    *,
    error: type[ApplicationError],
    what: str = "the connection",
) -> Iterator[str]:
    """Connect, run paho's loop, wait for `ready` (set by the caller's on_connect or
    on_subscribe), yield "host:port", disconnect. `error` (an ApplicationError) names the
    broker when it cannot be reached or does not get ready."""
    where = f"{address.host}:{address.port}"
    try:
        client.connect(address.host, address.port, keepalive=30)
    except OSError as exc:
        raise error(f"Cannot reach the MQTT broker at {where}: {exc}") from exc
    client.loop_start()
    try:
        if not ready.wait(CONNECT_TIMEOUT_S):
            raise error(f"The MQTT broker at {where} did not accept {what}.")
        yield where
    finally:
        client.disconnect()
        client.loop_stop()
