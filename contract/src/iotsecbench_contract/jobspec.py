"""What travels in a job's ``spec`` and around it (docs/control-plane.md §4–§8): the parts
every messaging runner shares, the data-plane link (broker, MQTT version, QoS, TLS) and the
schedule (payload size, message count, send intervals, timeout); the field checks; and the
``upload`` and ``network_profile`` objects the platform adds.

Each dataclass parses a job's JSON dict (``parse``, with the checks and messages the agent
reports) and serialises back to it (``to_dict``, what the platform sends), so one job field
means one thing, is checked one way and fails with one message on both sides. Everything
raises ``JobSpecError`` with a message for the user. Protocol-library mappings (paho's
protocol constants, ``ssl`` versions) stay in the agent: here are the allowed strings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable

from iotsecbench_contract.brokerurl import BrokerAddress, parse_mqtt_url
from iotsecbench_contract.errors import BrokerUrlError, JobSpecError
from iotsecbench_contract.intervals import DISTRIBUTIONS, FIXED, interval_sampler

ROUND_TRIP = "round_trip"
# The time from sending a message to its protocol acknowledgement (MQTT PUBACK at QoS 1,
# PUBCOMP at QoS 2; CoAP's ACK of a confirmable request): the MQTT/CoAP paper's quantity.
ACK = "ack"
# The protocol acknowledgement each QoS waits for in an ``ack`` run (QoS 0 has none).
ACK_OF_QOS = {1: "PUBACK", 2: "PUBCOMP"}
MQTT_VERSIONS = ("3.1.1", "5", "5.0")
MQTT5_VERSIONS = ("5", "5.0")
DEFAULT_MQTT_VERSION = "3.1.1"
TLS_VERSIONS = ("1.2", "1.3")
DEFAULT_TLS_VERSION = "1.3"
MAX_PEM_CHARS = 1_000_000
# A run of more than a million messages is a throughput test, not a latency one.
MAX_MESSAGE_COUNT = 1_000_000
NS_PER_MS = 1_000_000
# How long a run rides out a lost data-plane connection (the agent's mqtt_link.ride_out)
# before it fails: long enough for a broker restart, short enough that a dead broker fails
# the run while someone is still watching it. 0: fail at the first cut.
DEFAULT_RECONNECT_BUDGET_S = 30.0
MAX_RECONNECT_BUDGET_S = 3600.0

# Marks a broker_url the design named (an external broker): the agent adds none of its
# platform identity (data-plane user, client certificate, the platform's CA) to it.
BROKER_EXTERNAL = "broker_external"

# The link's fields, in the order a job gives them.
LINK_FIELDS = (
    "broker_url",
    "mqtt_version",
    "qos",
    "tls_version",
    "ca_cert",
    "client_cert",
    "client_key",
    "reconnect_budget_s",
)


@dataclass(frozen=True)
class LinkSpec:
    """How a runner reaches the broker: ``broker_url``, ``mqtt_version``, ``qos`` and, over
    ``mqtts://`` only, ``tls_version`` (pinned as min and max) and PEM texts; and
    ``reconnect_budget_s``, how long a lost connection is retried before the run fails."""

    broker_url: str
    mqtt_version: str = DEFAULT_MQTT_VERSION
    qos: int = 0
    tls_version: str | None = None
    ca_cert: str | None = field(default=None, repr=False)
    client_cert: str | None = field(default=None, repr=False)
    client_key: str | None = field(default=None, repr=False)
    reconnect_budget_s: float = DEFAULT_RECONNECT_BUDGET_S

    @classmethod
    def parse(cls, spec: Mapping[str, Any]) -> LinkSpec:
        version = spec.get("mqtt_version", DEFAULT_MQTT_VERSION)
        if version not in MQTT_VERSIONS:
            raise JobSpecError(f"mqtt_version {version!r} is not supported (3.1.1 or 5)")
        broker_url = spec.get("broker_url")
        if not isinstance(broker_url, str):
            raise JobSpecError("spec.broker_url is missing")
        try:
            broker = parse_mqtt_url(broker_url, what="spec.broker_url")
        except BrokerUrlError as exc:
            raise JobSpecError(str(exc)) from None
        tls_version = spec.get("tls_version")
        ca_cert = pem_field(spec, "ca_cert")
        client_cert = pem_field(spec, "client_cert")
        client_key = pem_field(spec, "client_key")
        if broker.tls:
            tls_version = DEFAULT_TLS_VERSION if tls_version is None else tls_version
            if tls_version not in TLS_VERSIONS:
                raise JobSpecError(
                    f"spec.tls_version {tls_version!r} is not supported (1.2 or 1.3)"
                )
            if (client_cert is None) != (client_key is None):
                raise JobSpecError("spec.client_cert and spec.client_key go together")
        elif any(v is not None for v in (tls_version, ca_cert, client_cert, client_key)):
            raise JobSpecError(
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
            reconnect_budget_s=reconnect_budget_field(spec),
        )

    def to_dict(self) -> dict[str, Any]:
        """The link's job fields; the optional ones (TLS, PEMs) only when set."""
        return _fields_set(self, LINK_FIELDS)

    @property
    def broker(self) -> BrokerAddress:
        return parse_mqtt_url(self.broker_url)

    @property
    def mqtt5(self) -> bool:
        return self.mqtt_version in MQTT5_VERSIONS


# The schedule's fields, in the order a job gives them.
SCHEDULE_FIELDS = (
    "payload_size",
    "message_count",
    "interval_ms",
    "timeout_ms",
    "interval_distribution",
    "interval_seed",
)


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
            raise JobSpecError(
                f"interval_distribution {distribution!r} is not supported "
                f"({', '.join(DISTRIBUTIONS)})"
            )
        seed = spec.get("interval_seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise JobSpecError("spec.interval_seed must be an integer")
        return cls(
            payload_size=int_field(spec, "payload_size", min_payload, max_payload),
            message_count=int_field(spec, "message_count", 1, MAX_MESSAGE_COUNT),
            interval_ms=number_field(spec, "interval_ms", minimum=0.0),
            timeout_ms=number_field(spec, "timeout_ms", minimum=1.0),
            interval_distribution=distribution,
            interval_seed=seed,
        )

    def to_dict(self) -> dict[str, Any]:
        """The schedule's job fields; ``interval_seed`` only when set."""
        return _fields_set(self, SCHEDULE_FIELDS)

    @property
    def timeout_ns(self) -> int:
        return int(self.timeout_ms * NS_PER_MS)

    def interval_sampler(self) -> Callable[[], int]:
        """The gaps between messages, in ns (a fresh, seeded generator per call)."""
        return interval_sampler(self.interval_distribution, self.interval_ms, self.interval_seed)


# What a run uploads: a messaging run its records, a cipher bench or throughput run its samples.
RECORDS = "records"
SAMPLES = "samples"


@dataclass(frozen=True)
class Upload:
    """A run's ``upload``: where its agent uploads what it measured, in chunks of ``chunk``
    CSV lines: ``{"url": "<run_url>/records/", "chunk_records": n}`` (RECORDS) or
    ``{"url": "<run_url>/samples/", "chunk_samples": n}`` (SAMPLES)."""

    run_url: str
    what: str
    chunk: int

    def to_dict(self) -> dict[str, Any]:
        if self.what not in (RECORDS, SAMPLES):
            raise JobSpecError(f"upload of {self.what!r}: {RECORDS} or {SAMPLES}")
        return {"url": f"{self.run_url}/{self.what}/", f"chunk_{self.what}": self.chunk}


@dataclass(frozen=True)
class NetworkProfileJob:
    """A run's ``spec.network_profile`` (docs/network-profiles.md): the profile's ``name``
    and ``spec`` (a link profile, netprofile.LinkProfile) and the values of every measured
    ``tables`` the spec names, so an installed agent needs no copy."""

    name: str
    spec: Mapping[str, Any]
    tables: Mapping[str, list[int]] = field(default_factory=dict)

    def table_names(self) -> set[str]:
        """The measured tables the profile's directions draw from."""
        return {
            str(direction["table"])
            for direction in self.spec.values()
            if isinstance(direction, Mapping) and direction.get("table")
        }

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "spec": self.spec, "tables": dict(self.tables)}


@dataclass(frozen=True)
class DataTopic:
    """Where a messaging run's part sends (``spec.topic``, topics.data_topic or an MQTT-SN
    short topic) and, for an MQTT-SN predefined topic id, ``spec.mqttsn_topic_id``. A SRUP
    round trip has none: the agent derives ``SRUP/<device>`` (topics.srup_topic)."""

    topic: str | None
    mqttsn_topic_id: int | None = None

    def to_dict(self) -> dict[str, Any]:
        fields: dict[str, Any] = {} if self.topic is None else {"topic": self.topic}
        if self.mqttsn_topic_id is not None:
            fields["mqttsn_topic_id"] = self.mqttsn_topic_id
        return fields


@dataclass(frozen=True)
class OneWayReceiverFields:
    """What a one-way receiver gets besides the design's fields (docs/control-plane.md §5):
    the platform's clock (``time_url``), how long it listens at most (``oneway_deadline_s``)
    and how the controller secures the messages: a shared key (``security_key``, hex, or
    ``security_key_sealed`` to the device's broker key), a signature's public key, or the
    SRUP controller's public key and id."""

    time_url: str
    deadline_s: float
    security_key: str | None = field(default=None, repr=False)
    security_key_sealed: Mapping[str, str] | None = field(default=None, repr=False)
    srup_controller_public_key: str | None = None
    srup_controller_id: str | None = None

    @classmethod
    def parse(cls, spec: Mapping[str, Any]) -> OneWayReceiverFields:
        """The clock and deadline checked; the keys as given (the receiver checks them
        against its mechanism)."""
        return cls(
            time_url=time_url_field(spec),
            deadline_s=number_field(spec, "oneway_deadline_s", minimum=1.0),
            security_key=spec.get("security_key"),
            security_key_sealed=spec.get("security_key_sealed"),
            srup_controller_public_key=spec.get("srup_controller_public_key"),
            srup_controller_id=spec.get("srup_controller_id"),
        )

    def to_dict(self) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "time_url": self.time_url,
            "oneway_deadline_s": self.deadline_s,
        }
        optional = {
            "security_key": self.security_key,
            "security_key_sealed": self.security_key_sealed,
            "srup_controller_public_key": self.srup_controller_public_key,
            "srup_controller_id": self.srup_controller_id,
        }
        fields.update({k: v for k, v in optional.items() if v is not None})
        return fields


HEALTH_CHECK = "health_check"

# A run's target device (docs/experiment-design.md "Topics and targets"): a job of kind
# SERVE tells it to serve the run (its MQTT-SN gateway or CoAP echo server) until the
# platform cancels the job; no upload. The agent answers with an event: TARGET_SERVING
# with the ``address`` ("host:port") the run's clients are sent to, or TARGET_FAILED with
# a ``message``.
SERVE = "serve"
SERVE_ROLES = ("gateway", "server")
TARGET_SERVING = "target_serving"
TARGET_FAILED = "target_failed"


@dataclass(frozen=True)
class HealthCheckSpec:
    """A ``health_check`` job's spec: the broker to probe round trips through, the echo
    ``topic`` (topics.health_topic) and the platform's clock (``time_url``)."""

    broker_url: str
    topic: str
    time_url: str

    @classmethod
    def parse(cls, spec: Mapping[str, Any]) -> HealthCheckSpec:
        broker_url, topic = spec.get("broker_url"), spec.get("topic")
        if not isinstance(broker_url, str):
            raise JobSpecError("spec.broker_url is missing")
        if not isinstance(topic, str) or not topic:
            raise JobSpecError("spec.topic is missing")
        return cls(broker_url=broker_url, topic=topic, time_url=time_url_field(spec))

    def to_dict(self) -> dict[str, Any]:
        return {"broker_url": self.broker_url, "topic": self.topic, "time_url": self.time_url}


def time_url_field(spec: Mapping[str, Any]) -> str:
    """``spec.time_url``: the platform's clock, an http(s) URL."""
    time_url = spec.get("time_url")
    if not isinstance(time_url, str) or not time_url.startswith(("http://", "https://")):
        raise JobSpecError("spec.time_url must be the platform's http(s) clock URL")
    return time_url


def _fields_set(spec: object, names: tuple[str, ...]) -> dict[str, Any]:
    """``names`` of ``spec`` as job fields, in that order, leaving out those that are None."""
    values = {name: getattr(spec, name) for name in names}
    return {name: value for name, value in values.items() if value is not None}


def reconnect_budget_field(spec: Mapping[str, Any]) -> float:
    """``spec.reconnect_budget_s``: seconds, 0..MAX_RECONNECT_BUDGET_S, default 30."""
    return number_field(
        spec,
        "reconnect_budget_s",
        minimum=0.0,
        maximum=MAX_RECONNECT_BUDGET_S,
        default=DEFAULT_RECONNECT_BUDGET_S,
    )


def int_field(spec: Mapping[str, Any], key: str, minimum: int, maximum: int) -> int:
    value = spec.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise JobSpecError(
            f"spec.{key} must be an integer in {minimum}..{maximum}, got {value!r}", field=key
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
        raise JobSpecError(f"spec.{key} must be a number {limits}, got {value!r}", field=key)
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
    raise JobSpecError(f"spec.{key} must be a hex string")


def pem_field(spec: Mapping[str, Any], key: str) -> str | None:
    value = spec.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or "-----BEGIN " not in value or len(value) > MAX_PEM_CHARS:
        raise JobSpecError(f"spec.{key} must be PEM text")
    return value


def choice_field(spec: Mapping[str, Any], key: str, choices: tuple[str, ...], default: str) -> str:
    value = spec.get(key, default)
    if value not in choices:
        raise JobSpecError(f"spec.{key} {value!r} is not supported (one of: {', '.join(choices)})")
    return str(value)
