"""A messaging design's addressing and targets (docs/experiment-design.md "Topics and
targets"): the MQTT topic, the MQTT-SN predefined topic id, and what the run talks to
(the platform's broker by default, an external MQTT broker, CoAP server or MQTT-SN
gateway, or another enrolled device serving the run: ``target_device``) and the CoAP
resource's path (``coap_path``); and a throughput run's UDP receiver (``target_url``). The
rules here answer field errors;
the job builder resolves the topic.

Why a chosen topic stays safe on the platform's broker: every device's broker role lets it
use, besides its own platform topics, only topics whose last level is its own id
(devices.broker.data_topics). So a topic chosen for the platform's broker must end in the
level ``{device}``, which the platform replaces with each device's id: the device's own,
never another's. A literal topic such as the SRUP paper's ``test/d1`` needs an external
broker (``broker_url``), where the platform grants nothing; there a literal topic shared by
several devices of one run is refused (their echoes would mix) unless it holds ``{device}``.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import SplitResult, urlsplit, urlunsplit

from iotsecbench_contract import topics
from iotsecbench_contract.benchspec import udp_target
from iotsecbench_contract.brokerurl import parse_mqtt_url
from iotsecbench_contract.errors import BrokerUrlError, JobSpecError

from experiments.models import Measurement, Protocol, TopicIdType

DEVICE_PLACEHOLDER = "{device}"
# Topics the platform's own traffic uses: a chosen topic never falls among them.
RESERVED_PREFIXES = (f"{topics.ROOT}/", topics.SRUP_PREFIX, "$")
_PLACEHOLDER = re.compile(r"\{[^}]*\}")

TOPIC_MQTT_ONLY = (
    "A topic is chosen for MQTT runs; SRUP names its own (SRUP/<device id>), CoAP uses a "
    "URI (coap_url) and MQTT-SN a topic id: leave it empty."
)
TOPIC_ONE_WAY = (
    "One-way runs use the platform's data topic (the platform's controller sends on it): "
    "leave topic empty or measure round trips."
)
TOPIC_WILDCARD = "A topic to publish on has no wildcards (+, #) and no NUL character."
TOPIC_RESERVED = (
    "Topics under iotsecbench/, SRUP/ and $ are the platform's and the broker's own: "
    "choose another topic."
)
TOPIC_PLACEHOLDER = "The only placeholder a topic may hold is {device}, the device's id."
TOPIC_EMPTY_LEVEL = "A topic has no empty levels (no leading, trailing or double /)."
TOPIC_PLATFORM_BROKER = (
    "On the platform's broker a device may only use its own topics: end the topic with the "
    f"level {{device}} after 1 to {topics.OWN_TOPIC_MAX_LEVELS - 1} levels (e.g. "
    "test/{device}), or name an external broker (broker_url) for a literal topic such as "
    "test/d1."
)
TOPIC_SHARED = (
    "{count} devices would share the literal topic {topic!r} and mix their echoes: add "
    "{{device}} to it (e.g. {topic}/{{device}}) or give the run one device."
)
TOPIC_ID_PREDEFINED_ONLY = (
    "A topic id is given for MQTT-SN runs with predefined topic ids: choose topic_id_type "
    "predefined, or leave mqttsn_topic_id empty (the platform draws one)."
)
TARGET_PROTOCOL = "{field} is a target of {protocols} runs: leave it empty for {protocol}."
BROKER_URL_ONE_WAY = (
    "One-way runs go through the platform's broker (its controller sends there): leave "
    "broker_url empty or measure round trips."
)
BROKER_URL_TLS = (
    "transport chooses the platform's TLS listener; for an external broker say it in the URL "
    "(mqtts://) and keep transport tcp."
)
USERINFO_REFUSED = "{field} must not carry a user or password: jobs carry no secrets."
COAP_URL_FORM = (
    "coap_url must be coap://host[:port]/path (IPv6: coap://[addr]:port/path; coaps:// is "
    "not supported)."
)
GATEWAY_FORM = 'mqttsn_gateway must be "host:port" (IPv6: "[addr]:port"), port 1..65535.'
COAP_PATH_FORM = (
    "coap_path is the resource's path without a leading / (e.g. echo or sensors/temp): "
    "no empty segments (no leading, trailing or double /), no query (?) or fragment (#), "
    "only RFC 3986 path characters (letters, digits, -._~!$&'()*+,;=:@ and %XX escapes)."
)
COAP_PATH_TWICE = (
    "coap_url already names a path ({path!r}): give the path once, in coap_path (coap_url "
    "as coap://host[:port]) or in coap_url (coap_path empty)."
)
TARGET_DEVICE_TWICE = (
    "target_device serves the run: leave {field} empty (the target's address is what the "
    "clients are sent to)."
)
TARGET_DEVICE_CLIENT = (
    "The target device cannot also be one of the run's devices: choose another device to "
    "serve the run, or remove it from device_ids."
)
TARGET_SHARED_TOPIC_ID = (
    "The run's devices share the target gateway, and a predefined topic id names one topic "
    "for every client of a gateway: leave mqttsn_topic_id empty (each device gets its own) "
    "or give the run one device."
)
TARGET_DEVICE_ONE_WAY = "One-way runs have no target device: measure round trips."
TARGET_HOST_WITHOUT_DEVICE = (
    "target_host replaces the address a target device reports: name the target_device too, "
    "or leave target_host empty."
)
TARGET_HOST_FORM = (
    "target_host is a host name or IP address (letters, digits, '-', '.', ':'; an IPv6 "
    "address without brackets, e.g. 2001:db8::5), without a port or scheme."
)
TARGET_URL_THROUGHPUT_ONLY = (
    "target_url is the UDP receiver of a throughput run's packets; a {kind} experiment has "
    "none: leave it empty."
)
TARGET_URL_FORM = (
    "target_url must be udp://host:port (a name, an IPv4 address or a bracketed IPv6 "
    "address, e.g. udp://[2001:db8::5]:9999), port 1..65535, no path, query or user."
)
_HOST = re.compile(r"[A-Za-z0-9.\-:]+")
# The local echo server's resource (device-agent runners/coap_server.py ECHO_PATH).
COAP_DEFAULT_PATH = "echo"
COAP_LOCAL_SERVER = "coap://127.0.0.1"
# RFC 3986 pchar (unreserved, sub-delims, ":" and "@", %XX) in segments separated by "/".
_PCHARS = r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})+"
_COAP_PATH = re.compile(rf"{_PCHARS}(?:/{_PCHARS})*")


def resolve_topic(template: str, device_id: object) -> str:
    """The topic one device publishes on: ``{device}`` replaced by its id."""
    return template.replace(DEVICE_PLACEHOLDER, str(device_id))


def _split(url: str) -> SplitResult | None:
    """``urlsplit``, or None where it raises: a bracketed host that is no IP address
    (``coap://[pi-2]:5683``)."""
    try:
        return urlsplit(url)
    except ValueError:
        return None


def coap_request_uri(coap_url: str, coap_path: str) -> str:
    """The URI a CoAP run's requests go to: ``coap_url`` (default: the agent's own echo
    server on 127.0.0.1) with ``coap_path`` as its path when given; without coap_path the
    URL's own path, else the echo resource."""
    parts = urlsplit(coap_url or COAP_LOCAL_SERVER)
    if coap_path:
        return urlunsplit(parts._replace(path=f"/{coap_path}"))
    if parts.path in ("", "/"):
        return urlunsplit(parts._replace(path=f"/{COAP_DEFAULT_PATH}"))
    return urlunsplit(parts)


def address_errors(attrs: Mapping[str, Any]) -> dict[str, list[str]]:
    """The first broken rule of the design's addressing and targets, as field errors."""
    for check in (
        _topic_errors,
        _topic_id_errors,
        _target_errors,
        _coap_path_errors,
        _target_device_errors,
    ):
        errors = check(attrs)
        if errors:
            return errors
    return {}


def _topic_errors(attrs: Mapping[str, Any]) -> dict[str, list[str]]:
    topic = attrs.get("topic") or ""
    if not topic:
        return {}
    if attrs["protocol"] != Protocol.MQTT:
        return {"topic": [TOPIC_MQTT_ONLY]}
    if attrs["measurement"] == Measurement.ONE_WAY:
        return {"topic": [TOPIC_ONE_WAY]}
    if any(c in topic for c in "+#\0"):
        return {"topic": [TOPIC_WILDCARD]}
    if topic.startswith(RESERVED_PREFIXES):
        return {"topic": [TOPIC_RESERVED]}
    if any(p != DEVICE_PLACEHOLDER for p in _PLACEHOLDER.findall(topic)) or (
        _PLACEHOLDER.sub("", topic).count("{") + _PLACEHOLDER.sub("", topic).count("}")
    ):
        return {"topic": [TOPIC_PLACEHOLDER]}
    if "" in topic.split("/"):
        return {"topic": [TOPIC_EMPTY_LEVEL]}
    if not attrs.get("broker_url") and (
        topic.split("/")[-1] != DEVICE_PLACEHOLDER
        or not 1 < len(topic.split("/")) <= topics.OWN_TOPIC_MAX_LEVELS
    ):
        return {"topic": [TOPIC_PLATFORM_BROKER]}
    count = len(attrs.get("device_ids") or ())
    if DEVICE_PLACEHOLDER not in topic and count > 1:
        return {"topic": [TOPIC_SHARED.format(count=count, topic=topic)]}
    return {}


def _topic_id_errors(attrs: Mapping[str, Any]) -> dict[str, list[str]]:
    if attrs.get("mqttsn_topic_id") is None:
        return {}
    if attrs["protocol"] != Protocol.MQTTSN or attrs["topic_id_type"] != TopicIdType.PREDEFINED:
        return {"mqttsn_topic_id": [TOPIC_ID_PREDEFINED_ONLY]}
    return {}


# Each target field, the protocols it serves and the label its message uses.
_TARGETS = {
    "broker_url": ((Protocol.MQTT, Protocol.SRUP), "MQTT and SRUP"),
    "coap_url": ((Protocol.COAP,), "CoAP"),
    "coap_path": ((Protocol.COAP,), "CoAP"),
    "target_device": ((Protocol.COAP, Protocol.MQTTSN), "CoAP and MQTT-SN"),
    "mqttsn_gateway": ((Protocol.MQTTSN,), "MQTT-SN"),
}


def _target_errors(attrs: Mapping[str, Any]) -> dict[str, list[str]]:
    for field, (protocols, label) in _TARGETS.items():
        value = attrs.get(field) or ""
        if value and attrs["protocol"] not in protocols:
            message = TARGET_PROTOCOL.format(
                field=field, protocols=label, protocol=Protocol(attrs["protocol"]).label
            )
            return {field: [message]}
    broker_url = attrs.get("broker_url") or ""
    if broker_url:
        try:
            broker = parse_mqtt_url(broker_url, what="broker_url")
        except BrokerUrlError as exc:
            return {"broker_url": [str(exc)]}
        if broker.username is not None or broker.password is not None:
            return {"broker_url": [USERINFO_REFUSED.format(field="broker_url")]}
        if attrs["measurement"] == Measurement.ONE_WAY:
            return {"broker_url": [BROKER_URL_ONE_WAY]}
        if attrs["transport"] != "tcp":
            return {"transport": [BROKER_URL_TLS]}
    coap_url = attrs.get("coap_url") or ""
    if coap_url:
        parts = _split(coap_url)
        if parts is None:
            return {"coap_url": [COAP_URL_FORM]}
        if parts.username is not None or parts.password is not None:
            return {"coap_url": [USERINFO_REFUSED.format(field="coap_url")]}
        if parts.scheme != "coap" or not parts.hostname or not _port_ok(parts, optional=True):
            return {"coap_url": [COAP_URL_FORM]}
    gateway = attrs.get("mqttsn_gateway") or ""
    if gateway:
        parts = _split(f"//{gateway}")
        if (
            parts is None
            or "@" in gateway
            or not parts.hostname
            or parts.path
            or parts.query
            or parts.fragment
            or not _port_ok(parts, optional=False)
        ):
            return {"mqttsn_gateway": [GATEWAY_FORM]}
    return {}


def target_url_errors(attrs: Mapping[str, Any]) -> dict[str, list[str]]:
    """A throughput run's receiver (``target_url``): the contract's ``udp://host:port`` (the
    agent's own check, iotsecbench_contract.benchspec.udp_target), without a user."""
    url = attrs.get("target_url") or ""
    if not url:
        return {}
    parts = _split(url)
    if parts is None or parts.password is not None or "@" in parts.netloc:
        return {"target_url": [TARGET_URL_FORM]}
    try:
        udp_target(url)
    except JobSpecError:
        return {"target_url": [TARGET_URL_FORM]}
    return {}


def _coap_path_errors(attrs: Mapping[str, Any]) -> dict[str, list[str]]:
    path = attrs.get("coap_path") or ""
    if not path:
        return {}
    if not _COAP_PATH.fullmatch(path):
        return {"coap_path": [COAP_PATH_FORM]}
    parts = _split(attrs.get("coap_url") or "")
    url_path = parts.path if parts is not None else ""
    if url_path not in ("", "/"):
        return {"coap_path": [COAP_PATH_TWICE.format(path=url_path)]}
    return {}


def _target_device_errors(attrs: Mapping[str, Any]) -> dict[str, list[str]]:
    """A target device (its workspace is checked where the design is created, with the
    other devices: experiments.services.designs)."""
    device = attrs.get("target_device")
    host = attrs.get("target_host") or ""
    if device is None:
        return {"target_host": [TARGET_HOST_WITHOUT_DEVICE]} if host else {}
    for field in ("coap_url", "mqttsn_gateway"):
        if attrs.get(field):
            return {field: [TARGET_DEVICE_TWICE.format(field=field)]}
    if str(device) in {str(d) for d in attrs.get("device_ids") or ()}:
        return {"target_device": [TARGET_DEVICE_CLIENT]}
    if attrs["measurement"] == Measurement.ONE_WAY:
        return {"target_device": [TARGET_DEVICE_ONE_WAY]}
    if host and not _host_ok(host):
        return {"target_host": [TARGET_HOST_FORM]}
    if attrs.get("mqttsn_topic_id") is not None and len(attrs.get("device_ids") or ()) > 1:
        return {"mqttsn_topic_id": [TARGET_SHARED_TOPIC_ID]}
    return {}


def _host_ok(host: str) -> bool:
    """A name or IPv4 address, or an IPv6 address (any ``:``) that parses as one: the agent
    puts it in brackets before the port (``[2001:db8::5]:10000``)."""
    if not _HOST.fullmatch(host):
        return False
    if ":" not in host:
        return True
    try:
        ipaddress.IPv6Address(host)
    except ValueError:
        return False
    return True


def _port_ok(parts: Any, *, optional: bool) -> bool:
    try:
        port = parts.port
    except ValueError:
        return False
    return (optional and port is None) or (port is not None and 1 <= port <= 65535)
