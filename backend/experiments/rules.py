"""The rules a design must follow beyond each field's own range (the experiment input's
checks): field errors with the messages the API answers."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from iotsecbench_contract.errors import JobSpecError
from iotsecbench_contract.interleave import interleave_errors as contract_interleave_errors
from iotsecbench_contract.limits import MAX_PUBLISH_DATA, MAX_UDP_PAYLOAD, ONE_WAY_MIN_PAYLOAD
from iotsecbench_contract.mechanisms import describe as mechanism_info

from experiments.models import (
    BROKER_PROTOCOLS,
    CoapType,
    Measurement,
    Protocol,
    Transport,
)

BENCH_NEEDS_MECHANISMS = "A cipher benchmark needs at least one mechanism."
BENCH_NEEDS_SIZES = "A cipher benchmark needs at least one data size (bytes)."
BENCH_DUPLICATES = "List each value once."
BENCH_NO_NONE = "A cipher benchmark times cryptography: leave out None (Null is the floor)."
SRUP_SIGNS_ITSELF = (
    "SRUP signs every message itself: choose the signature under SRUP and leave payload "
    "security at None."
)
NETWORK_PROFILE_MESSAGING = (
    "A network profile shapes the messages of a messaging experiment; a cipher benchmark or "
    "throughput run has none: leave it empty."
)
ONE_WAY_PROTOCOLS = (
    "One-way delay is measured for MQTT and SRUP (the platform sends through the broker); "
    "measure CoAP and MQTT-SN as round trips."
)
ONE_WAY_PAYLOAD_TOO_SMALL = (
    f"One-way messages carry their sequence number and send time: at least "
    f"{ONE_WAY_MIN_PAYLOAD} bytes."
)
ACK_NEEDS_QOS = (
    'QoS {qos} has no acknowledgement to time: measurement "ack" needs QoS 1 (publish to '
    "PUBACK) or QoS 2 (publish to PUBCOMP); set qos to 1 or 2, or measure a round trip."
)
ACK_NEEDS_CON = (
    'A non-confirmable CoAP request has no ACK: measurement "ack" times CON to ACK; set '
    'coap_type to "con", or measure a round trip.'
)
ACK_COAP_ONE_BLOCK = (
    'Measurement "ack" times one CON request and its ACK, so the secured body must fit '
    "one {block:,}-byte block: with {mechanism} use at most {fits:,} bytes of payload."
)
ACK_PROTOCOLS = (
    "Acknowledgement time is measured for MQTT (publish to PUBACK/PUBCOMP), MQTT-SN (PUBLISH "
    "to PUBACK at QoS 1) and CoAP (CON to ACK). SRUP adds no acknowledgement of its own: its "
    "only one is the PUBACK of the MQTT publish that carries it, which is what an MQTT ack "
    "run with the same payload times; measure SRUP as a round trip or one way."
)
ACK_NEEDS_MQTTSN_QOS_1 = (
    'QoS {qos} has no acknowledgement to time: measurement "ack" for MQTT-SN needs QoS 1 '
    "(PUBLISH to PUBACK); set qos to 1, or measure a round trip."
)
# The agent's CoAP block size when a design does not set one (runners/coap_roundtrip.py).
COAP_BLOCK_BYTES = 1024
QOS_MINUS_ONE_MQTTSN = "QoS -1 (publish without a connection) exists in MQTT-SN only."
MQTTSN_QOS = "MQTT-SN runs use QoS -1, 0 or 1."
MQTTSN_QOS_MINUS_ONE_TOPIC = (
    "QoS -1 publishes without connecting or registering a topic: choose short or predefined "
    "topic ids."
)
TLS_NEEDS_BROKER_PROTOCOL = (
    "TLS applies to the MQTT broker connection of MQTT and SRUP runs; CoAP and MQTT-SN run "
    "over UDP: choose MQTT over TCP."
)
PROFILE_NEEDS_BROKER_PROTOCOL = (
    "Network profiles are enforced on the broker link of MQTT and SRUP runs; CoAP and MQTT-SN "
    "runs cannot be measured under one yet: leave it empty."
)
# The limit is the contract's MAX_PUBLISH_DATA (the agent's: a PUBLISH in one datagram).
MQTTSN_PAYLOAD_TOO_LARGE = (
    "An MQTT-SN message travels in one UDP datagram, whose PUBLISH carries at most "
    "{limit:,} bytes: with {mechanism} use at most {fits:,} bytes of payload."
)
THROUGHPUT_PAYLOAD_TOO_LARGE = (
    "Throughput packets go in one UDP datagram of at most {limit:,} bytes: {mechanism} "
    "turns {size:,} bytes into {frame:,}; use at most {fits:,} bytes with it."
)


INTERLEAVE_PROTOCOLS = (
    "Interleaved mode alternates mechanisms on one MQTT or CoAP round trip: SRUP signs every "
    "message itself and the MQTT-SN runner does not interleave yet; choose protocol mqtt or "
    "coap, or leave interleave_mechanisms empty."
)
INTERLEAVE_MEASUREMENT = (
    'Interleaved mode measures round trips: set measurement to "round_trip", or leave '
    "interleave_mechanisms empty."
)
INTERLEAVE_SECURITY = (
    "An interleaved run takes its mechanisms from interleave_mechanisms: leave security at "
    "none (list the mechanism there instead)."
)
INTERLEAVE_SECURITY_AXIS = (
    "security cannot vary on an axis of an interleaved design: each run already alternates "
    "interleave_mechanisms; remove the security axis or leave interleave_mechanisms empty."
)
INTERLEAVE_MESSAGING_ONLY = (
    "Interleaved mode is for messaging experiments (round trips); a {kind} experiment lists "
    "its mechanisms in mechanisms: leave interleave_mechanisms empty."
)


def interleave_errors(attrs: Mapping[str, Any]) -> dict[str, list[str]]:
    """What an interleaved messaging design needs (iotsecbench_contract.interleave, whose
    check the agent makes too): a valid rotation, an MQTT or CoAP round trip, security none."""
    rotation = attrs.get("interleave_mechanisms") or []
    if not rotation:
        return {}
    problems = contract_interleave_errors(rotation)
    if problems:
        return {"interleave_mechanisms": [f"{p[0].upper()}{p[1:]}." for p in problems]}
    if attrs["protocol"] not in (Protocol.MQTT, Protocol.COAP):
        return {"interleave_mechanisms": [INTERLEAVE_PROTOCOLS]}
    if attrs["measurement"] != Measurement.ROUND_TRIP:
        return {"measurement": [INTERLEAVE_MEASUREMENT]}
    if attrs["security"] != "none":
        return {"security": [INTERLEAVE_SECURITY]}
    return {}


def protocol_errors(attrs: Mapping[str, Any]) -> dict[str, list[str]]:
    """What a messaging protocol allows of QoS, transport, security and profiles."""
    protocol = attrs["protocol"]
    if protocol == Protocol.SRUP and attrs["security"] != "none":
        return {"security": [SRUP_SIGNS_ITSELF]}
    if attrs["qos"] == -1 and protocol != Protocol.MQTTSN:
        return {"qos": [QOS_MINUS_ONE_MQTTSN]}
    if protocol == Protocol.MQTTSN and attrs["qos"] == 2:
        return {"qos": [MQTTSN_QOS]}
    if protocol == Protocol.MQTTSN and attrs["qos"] == -1 and attrs["topic_id_type"] == "normal":
        return {"topic_id_type": [MQTTSN_QOS_MINUS_ONE_TOPIC]}
    if attrs["measurement"] == Measurement.ONE_WAY:
        if protocol not in BROKER_PROTOCOLS:
            return {"measurement": [ONE_WAY_PROTOCOLS]}
        if attrs["payload_size"] < ONE_WAY_MIN_PAYLOAD:
            return {"payload_size": [ONE_WAY_PAYLOAD_TOO_SMALL]}
    if attrs["measurement"] == Measurement.ACK:
        errors = _ack_errors(attrs)
        if errors:
            return errors
    if protocol not in BROKER_PROTOCOLS and attrs["transport"] != Transport.TCP:
        return {"transport": [TLS_NEEDS_BROKER_PROTOCOL]}
    if protocol not in BROKER_PROTOCOLS and attrs.get("network_profile") is not None:
        return {"network_profile": [PROFILE_NEEDS_BROKER_PROTOCOL]}
    if protocol == Protocol.MQTTSN:
        fits = mechanism_info(attrs["security"]).largest_payload(MAX_PUBLISH_DATA)
        if attrs["payload_size"] > fits:
            message = MQTTSN_PAYLOAD_TOO_LARGE.format(
                limit=MAX_PUBLISH_DATA, mechanism=attrs["security"], fits=fits
            )
            return {"payload_size": [message]}
    return {}


def _ack_errors(attrs: Mapping[str, Any]) -> dict[str, list[str]]:
    """What measurement ``ack`` needs: an acknowledged message (device-agent mqtt_ack.py,
    mqttsn_ack.py, coap_roundtrip.py, which refuse the same)."""
    protocol = attrs["protocol"]
    if protocol not in (Protocol.MQTT, Protocol.COAP, Protocol.MQTTSN):
        return {"measurement": [ACK_PROTOCOLS]}
    if protocol == Protocol.MQTTSN and attrs["qos"] != 1:
        return {"qos": [ACK_NEEDS_MQTTSN_QOS_1.format(qos=attrs["qos"])]}
    if protocol == Protocol.MQTT and attrs["qos"] not in (1, 2):
        return {"qos": [ACK_NEEDS_QOS.format(qos=attrs["qos"])]}
    if protocol == Protocol.COAP:
        if attrs["coap_type"] != CoapType.CON:
            return {"coap_type": [ACK_NEEDS_CON]}
        fits = mechanism_info(attrs["security"]).largest_payload(COAP_BLOCK_BYTES)
        if attrs["payload_size"] > fits:
            message = ACK_COAP_ONE_BLOCK.format(
                block=COAP_BLOCK_BYTES, mechanism=attrs["security"], fits=fits
            )
            return {"payload_size": [message]}
    return {}


def datagram_errors(mechanisms: list[str], sizes: list[int]) -> dict[str, list[str]]:
    """A throughput packet (payload secured by each mechanism) must fit one UDP datagram;
    the first pair that does not, named with the size that would fit."""
    for mechanism in mechanisms:
        info = mechanism_info(mechanism)
        fits = info.largest_payload(MAX_UDP_PAYLOAD)
        for size in sizes:
            if size > fits:
                frame = size + info.overhead(size)
                message = THROUGHPUT_PAYLOAD_TOO_LARGE.format(
                    limit=MAX_UDP_PAYLOAD, mechanism=mechanism, size=size, frame=frame, fits=fits
                )
                return {"data_sizes": [message]}
    return {}


def sample_errors(
    attrs: Mapping[str, Any], kind_errors: Mapping[str, list[str]]
) -> dict[str, list[str]]:
    """What every sample kind (cipher benchmark, throughput) asks of its mechanisms and
    data sizes: at least one of each, each once; a sample kind has no network profile.
    `kind_errors`: the kind's own errors, which these replace or extend."""
    if attrs.get("network_profile") is not None:
        return {"network_profile": [NETWORK_PROFILE_MESSAGING]}
    errors = dict(kind_errors)
    if not attrs["mechanisms"]:
        errors["mechanisms"] = [BENCH_NEEDS_MECHANISMS]
    if not attrs["data_sizes"]:
        errors["data_sizes"] = [BENCH_NEEDS_SIZES]
    for field in ("mechanisms", "data_sizes"):
        if len(set(attrs[field])) != len(attrs[field]):
            errors.setdefault(field, []).append(BENCH_DUPLICATES)
    return errors


def spec_errors(
    parse: Callable[[Mapping[str, Any]], object], attrs: Mapping[str, Any], fields: tuple[str, ...]
) -> dict[str, list[str]]:
    """The contract's own check of a sample kind's job spec (iotsecbench_contract.benchspec,
    the agent's: a design the platform accepts is one the agent runs), as a field error."""
    try:
        parse({field: attrs[field] for field in fields})
    except JobSpecError as exc:
        return {exc.field or "non_field_errors": [str(exc).removeprefix("spec.")]}
    return {}
