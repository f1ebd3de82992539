"""The parts of a messaging job's ``spec`` that every round-trip runner shares (§5 of
docs/control-plane.md): the data-plane link (broker, MQTT version, QoS, TLS) and the
schedule (payload size, message count, send intervals, timeout), plus the field checks.

Each runner parses these into ``LinkSpec`` and ``Schedule`` and adds its own fields
(``mqtt_roundtrip.RoundTripSpec``, ``srup_roundtrip.SrupSpec``), so one job field means
one thing, is checked one way and fails with one message, whichever protocol runs it.
Everything raises ``UnsupportedJob`` with a message for the user.
"""

from __future__ import annotations

import os
import ssl
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable

import paho.mqtt.client as mqtt

from iotsecbench_agent.errors import AgentError, UnsupportedJob
from iotsecbench_agent.runners.intervals import DISTRIBUTIONS, FIXED, interval_sampler
from iotsecbench_agent.runtime.config import BrokerAddress, parse_mqtt_url

ROUND_TRIP = "round_trip"
MQTT_VERSIONS = {"3.1.1": mqtt.MQTTv311, "5": mqtt.MQTTv5, "5.0": mqtt.MQTTv5}
TLS_VERSIONS = {"1.2": ssl.TLSVersion.TLSv1_2, "1.3": ssl.TLSVersion.TLSv1_3}
DEFAULT_TLS_VERSION = "1.3"
MAX_PEM_CHARS = 1_000_000
# A run of more than a million messages is a throughput test, not a latency one.
MAX_MESSAGE_COUNT = 1_000_000
NS_PER_MS = 1_000_000
# How long a run rides out a lost data-plane connection (mqtt_link.ride_out) before it
# fails: long enough for a broker restart, short enough that a dead broker fails the run
# while someone is still watching it. 0: fail at the first cut.
DEFAULT_RECONNECT_BUDGET_S = 30.0
MAX_RECONNECT_BUDGET_S = 3600.0


@dataclass(frozen=True)
class LinkSpec:
    """How a runner reaches the broker: ``broker_url``, ``mqtt_version``, ``qos`` and, over
    ``mqtts://`` only, ``tls_version`` (pinned as min and max) and PEM texts; and
    ``reconnect_budget_s``, how long a lost connection is retried before the run fails."""

    broker_url: str
    mqtt_version: str = "3.1.1"
    qos: int = 0
    tls_version: str | None = None
    ca_cert: str | None = field(default=None, repr=False)
    client_cert: str | None = field(default=None, repr=False)
    client_key: str | None = field(default=None, repr=False)
    reconnect_budget_s: float = DEFAULT_RECONNECT_BUDGET_S

    @classmethod
    def parse(cls, spec: Mapping[str, Any]) -> LinkSpec:
        version = spec.get("mqtt_version", "3.1.1")
        if version not in MQTT_VERSIONS:
            raise UnsupportedJob(f"mqtt_version {version!r} is not supported (3.1.1 or 5)")
        broker_url = spec.get("broker_url")
        if not isinstance(broker_url, str):
            raise UnsupportedJob("spec.broker_url is missing")
        try:
            broker = parse_mqtt_url(broker_url, what="spec.broker_url")
        except AgentError as exc:
            raise UnsupportedJob(str(exc)) from None
        tls_version = spec.get("tls_version")
        ca_cert = pem_field(spec, "ca_cert")
        client_cert = pem_field(spec, "client_cert")
        client_key = pem_field(spec, "client_key")
        if broker.tls:
            tls_version = DEFAULT_TLS_VERSION if tls_version is None else tls_version
            if tls_version not in TLS_VERSIONS:
                raise UnsupportedJob(
                    f"spec.tls_version {tls_version!r} is not supported (1.2 or 1.3)"
                )
            if (client_cert is None) != (client_key is None):
                raise UnsupportedJob("spec.client_cert and spec.client_key go together")
        elif any(v is not None for v in (tls_version, ca_cert, client_cert, client_key)):
            raise UnsupportedJob(
                "spec.tls_version, ca_cert, client_cert and client_key need an mqtts:// broker_url"
            )
        return cls(
            broker_url=broker_url,
            mqtt_version=str(version),
            qos=int_field(spec, "qos", 0, 2),
            tls_version=tls_version,
            ca_cert=ca_cert,
            client_cert=client_cert,
            client_key=client_key,
            reconnect_budget_s=number_field(
                spec,
                "reconnect_budget_s",
                minimum=0.0,
                maximum=MAX_RECONNECT_BUDGET_S,
                default=DEFAULT_RECONNECT_BUDGET_S,
            ),
        )

    @property
    def broker(self) -> BrokerAddress:
        return parse_mqtt_url(self.broker_url)

    @property
    def protocol(self) -> int:
        """paho's protocol constant for ``mqtt_version``."""
        return MQTT_VERSIONS[self.mqtt_version]

    @property
    def mqtt5(self) -> bool:
        return self.protocol == mqtt.MQTTv5

    def tls_context(self) -> ssl.SSLContext:
        """The client context for an mqtts:// broker: server verified, hostname checked,
        ``tls_version`` as both minimum and maximum. UnsupportedJob if the PEMs are bad."""
        if self.tls_version is None:
            raise UnsupportedJob("spec.broker_url is not mqtts://")
        try:
            context = ssl.create_default_context(cadata=self.ca_cert)
        except (ssl.SSLError, ValueError) as exc:
            raise UnsupportedJob(f"spec.ca_cert is not a usable PEM certificate: {exc}") from None
        context.check_hostname = True
        context.verify_mode = ssl.CERT_REQUIRED
        version = TLS_VERSIONS[self.tls_version]
        context.minimum_version = version
        context.maximum_version = version
        if self.client_cert is not None and self.client_key is not None:
            load_client_chain(context, self.client_cert, self.client_key)
        return context


@dataclass(frozen=True)
class Schedule:
    """What a round-trip run sends and when: ``message_count`` messages of
    ``payload_size`` bytes, each waited for up to ``timeout_ms``, then a gap drawn from
    ``interval_distribution`` with mean ``interval_ms`` (seeded by ``interval_seed``)."""

    payload_size: int
    message_count: int
    interval_ms: float
    timeout_ms: float
    interval_distribution: str = FIXED
    interval_seed: int | None = None

    @classmethod
    def parse(cls, spec: Mapping[str, Any], *, min_payload: int, max_payload: int) -> Schedule:
        distribution = spec.get("interval_distribution", FIXED)
        if distribution not in DISTRIBUTIONS:
            raise UnsupportedJob(
                f"interval_distribution {distribution!r} is not supported "
                f"({', '.join(DISTRIBUTIONS)})"
            )
        seed = spec.get("interval_seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise UnsupportedJob("spec.interval_seed must be an integer")
        return cls(
            payload_size=int_field(spec, "payload_size", min_payload, max_payload),
            message_count=int_field(spec, "message_count", 1, MAX_MESSAGE_COUNT),
            interval_ms=number_field(spec, "interval_ms", minimum=0.0),
            timeout_ms=number_field(spec, "timeout_ms", minimum=1.0),
            interval_distribution=distribution,
            interval_seed=seed,
        )

    @property
    def timeout_ns(self) -> int:
        return int(self.timeout_ms * NS_PER_MS)

    def interval_sampler(self) -> Callable[[], int]:
        """The gaps between messages, in ns (a fresh, seeded generator per call)."""
        return interval_sampler(self.interval_distribution, self.interval_ms, self.interval_seed)


def int_field(spec: Mapping[str, Any], key: str, minimum: int, maximum: int) -> int:
    value = spec.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise UnsupportedJob(
            f"spec.{key} must be an integer in {minimum}..{maximum}, got {value!r}"
        )
    return value


def number_field(
    spec: Mapping[str, Any],
    key: str,
    *,
    minimum: float,
    maximum: float | None = None,
    default: float | None = None,
) -> float:
    """A number >= ``minimum`` (and <= ``maximum`` if given); with a ``default`` the field
    may be absent (or null)."""
    value = spec.get(key)
    if value is None and default is not None:
        return default
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not value >= minimum
        or (maximum is not None and not value <= maximum)
    ):
        limits = f">= {minimum:g}" if maximum is None else f"in {minimum:g}..{maximum:g}"
        raise UnsupportedJob(f"spec.{key} must be a number {limits}, got {value!r}")
    return float(value)


def hex_field(spec: Mapping[str, Any], key: str) -> bytes | None:
    """Bytes given as a hex string (keys: raw, or the bytes of a PEM/DER file); None if
    absent."""
    value = spec.get(key)
    if value is None:
        return None
    if isinstance(value, str):
        try:
            return bytes.fromhex(value)
        except ValueError:
            pass
    raise UnsupportedJob(f"spec.{key} must be a hex string")


def pem_field(spec: Mapping[str, Any], key: str) -> str | None:
    value = spec.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or "-----BEGIN " not in value or len(value) > MAX_PEM_CHARS:
        raise UnsupportedJob(f"spec.{key} must be PEM text")
    return value


def choice_field(spec: Mapping[str, Any], key: str, choices: tuple[str, ...], default: str) -> str:
    value = spec.get(key, default)
    if value not in choices:
        raise UnsupportedJob(
            f"spec.{key} {value!r} is not supported (one of: {', '.join(choices)})"
        )
    return str(value)


def load_client_chain(context: ssl.SSLContext, cert_pem: str, key_pem: str) -> None:
    """``load_cert_chain`` reads files only: write the PEMs to 0600 temporary files for the
    call and remove them straight after."""
    with tempfile.TemporaryDirectory(prefix="isb-tls-") as tmp:
        paths = []
        for name, pem in (("client.crt", cert_pem), ("client.key", key_pem)):
            path = os.path.join(tmp, name)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(pem)
            paths.append(path)
        try:
            context.load_cert_chain(paths[0], paths[1])
        except (ssl.SSLError, ValueError) as exc:
            raise UnsupportedJob(
                f"spec.client_cert/client_key are not a usable certificate and key: {exc}"
            ) from None
