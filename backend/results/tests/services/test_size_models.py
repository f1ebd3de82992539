"""Every protocol x security mechanism of the catalogue: the size model against the bytes the
device agent really produces for that message (its mechanisms secure a real payload, its
codecs or aiocoap encode the real message). The agent is installed in the development
venv; only the backend's tests import it (import-linter keeps it out of the backend's code).
Packet captures of the same messages: device-agent/tests/test_wire_sizes_capture.py."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from iotsecbench_contract import framing
from iotsecbench_contract.mechanisms import NAMES as MECHANISM_NAMES

from results.services.size_model import (
    COAP_LOCAL_ECHO_URI,
    SRUP_TOPIC,
    Carrier,
    message_parts,
    run_carrier,
    run_stack,
)
from results.services.sizes import WireBytes, size_breakdown
from results.tests.conftest import messaging_spec

TOPIC = "iotsecbench/data/" + "r" * 36 + "/" + "d" * 36  # as dispatched: 90 bytes
PAYLOAD = 66  # the default: CBC pads it, stream ciphers do not
AIOCOAP_TOKEN = b"\x12\x34"  # aiocoap's: a counter from a random 16-bit start


def _secured(name: str, size: int = PAYLOAD) -> bytes:
    """A real payload of `size` bytes, secured by the agent's mechanism `name`."""
    from iotsecbench_agent.security import registry

    return registry.create(name, seed=7).secure(bytes(size))


def _agrees(spec: dict[str, Any], address: str, measured: int) -> dict[str, int]:
    """The breakdown of a run whose every message measured `measured` bytes; asserts the
    model explains them exactly, and returns its components."""
    breakdown = size_breakdown(
        run_id=uuid.uuid4(),
        spec=spec,
        address=address,
        wire=WireBytes(messages=1, median=measured, min=measured, max=measured),
    )
    parts = {c.key: c.bytes for c in breakdown.components}
    assert (breakdown.model_agrees, breakdown.warning, parts["unexplained"]) == (True, None, 0)
    above_socket = sum(b for k, b in parts.items() if k not in ("link", "ip", "tcp", "udp", "tls"))
    assert above_socket == measured - parts["tls"]
    return parts


def _coap_request(uri: str, body: bytes, method: str = "get") -> bytes:
    """The CoAP request the agent's client sends, encoded by aiocoap itself."""
    # aiocoap ships no type information (no py.typed); the agent's runner wraps it the same way.
    import aiocoap  # type: ignore[import-untyped]

    codes = {"get": aiocoap.GET, "put": aiocoap.PUT, "post": aiocoap.POST}
    message = aiocoap.Message(code=codes[method], uri=uri, payload=body)
    message.mtype = aiocoap.CON  # as the message layer sets it before sending
    message.mid = 0x1234
    message.token = AIOCOAP_TOKEN
    encoded: bytes = message.encode()
    return encoded


@pytest.mark.parametrize("security", MECHANISM_NAMES)
@pytest.mark.parametrize(
    ("version", "qos"), [("3.1.1", 0), ("3.1.1", 1), ("3.1.1", 2), ("5", 0), ("5", 1)]
)
def test_mqtt_model_is_the_agents_publish_for_every_mechanism(security, version, qos):
    from iotsecbench_agent.links.mqtt_wire import publish_packet_size

    body = len(_secured(security))
    measured = publish_packet_size(topic=TOPIC, payload_size=body, qos=qos, mqtt5=version == "5")
    spec = messaging_spec(security=security, mqtt_version=version, qos=qos)
    parts = _agrees(spec, TOPIC, measured)
    assert (parts["topic"], parts["tcp"], parts["udp"]) == (90, 32, 0)


@pytest.mark.parametrize("security", MECHANISM_NAMES)
@pytest.mark.parametrize("method", ["get", "put"])
def test_coap_model_is_aiocoaps_request_for_every_mechanism(security, method):
    wire = _coap_request("coap://127.0.0.1:40123/echo", _secured(security), method)
    spec = messaging_spec(protocol="coap", coap_type="con", coap_method=method, security=security)
    parts = _agrees(spec, COAP_LOCAL_ECHO_URI, len(wire))
    assert (parts["coap_token"], parts["coap_options"], parts["payload_marker"]) == (2, 5, 1)
    assert (parts["udp"], parts["tcp"], parts["topic"], parts["mqtt_header"]) == (8, 0, 0, 0)


@pytest.mark.parametrize(
    "uri",
    [
        "coap://127.0.0.1/echo",
        "coap://[::1]:5683/a/b/c",
        "coap://sensor.example.org/temperature?unit=c&n=3",
        "coap://h/" + "x" * 20,  # a 20-byte segment: the length needs an extended byte
        "coap://10.0.0.1/" + "y" * 300,  # 300 bytes: two extended bytes
    ],
)
def test_coap_options_are_the_ones_aiocoap_encodes_for_the_uri(uri):
    body = bytes(10)
    wire = _coap_request(uri, body)
    header = framing.COAP_HEADER_BYTES + len(AIOCOAP_TOKEN) + framing.COAP_PAYLOAD_MARKER_BYTES
    options = framing.coap_options_bytes(framing.coap_request_options(uri))
    assert header + options + len(body) == len(wire)


@pytest.mark.parametrize("security", MECHANISM_NAMES)
@pytest.mark.parametrize("qos", [-1, 0, 1])
def test_mqttsn_model_is_the_agents_publish_for_every_mechanism(security, qos):
    from iotsecbench_agent.mqttsn import codec

    data = _secured(security)
    wire = codec.encode(codec.Publish(topic_id=0x0102, msg_id=7 if qos == 1 else 0, data=data))
    spec = messaging_spec(protocol="mqttsn", qos=qos, security=security)
    parts = _agrees(spec, TOPIC, len(wire))
    header = 5 if len(data) <= 248 else 7  # the 3-octet Length past 255 bytes
    assert (parts["mqttsn_header"], parts["topic_id"], parts["udp"]) == (header, 2, 8)


def test_mqttsn_publish_past_255_bytes_takes_the_3_octet_length():
    from iotsecbench_agent.mqttsn import codec

    for size in (248, 249, 250, 1000):
        wire = codec.encode(codec.Publish(topic_id=1, msg_id=0, data=bytes(size)))
        parts = _agrees(messaging_spec(protocol="mqttsn", payload_size=size), TOPIC, len(wire))
        assert parts["mqttsn_header"] == (5 if size <= 248 else 7), size


@pytest.mark.parametrize(("signature", "size"), [("ed25519", 64), ("rsa-2048", 256)])
@pytest.mark.parametrize("transport", ["tcp", "tls1.3"])
def test_srup_model_is_the_agents_signed_publish(signature, size, transport):
    from iotsecbench_agent.links.mqtt_wire import publish_packet_size
    from iotsecbench_agent.srup.codec import encode_data, new_token
    from iotsecbench_agent.srup.keys import load_key

    signer = load_key(signature, None, slot="sizes-test").require_signer("controller")
    encoded = encode_data(
        sequence_id=1,
        sender_id=2,
        token=new_token(),
        data_id=b"data",
        data=bytes(PAYLOAD),
        sign=signer.sign,
    )
    measured = publish_packet_size(topic=SRUP_TOPIC, payload_size=len(encoded), qos=1)
    tls = 22 if transport == "tls1.3" else 0  # TLS 1.3 record: header 5, type 1, tag 16
    spec = messaging_spec(protocol="srup", srup_signature=signature, transport=transport)
    parts = _agrees(spec, SRUP_TOPIC, measured + tls)
    assert (parts["signature"], parts["tls"]) == (size, tls)


def test_udp_protocols_are_carried_by_udp_whatever_the_spec_transport_says():
    for protocol in ("coap", "mqttsn"):
        assert run_carrier(messaging_spec(protocol=protocol, transport="tcp")) == Carrier.UDP
    assert run_carrier(messaging_spec(transport="tls1.2")) == Carrier.TLS
    assert run_carrier(messaging_spec(protocol="srup")) == Carrier.TCP


def test_the_stack_names_each_protocol_and_what_carries_it():
    assert run_stack(messaging_spec(mqtt_version="5", transport="tls1.3")) == (
        "MQTT 5 over TLS 1.3"
    )
    assert run_stack(messaging_spec(protocol="coap", coap_type="non", coap_method="put")) == (
        "CoAP (non-confirmable PUT) over UDP"
    )
    assert run_stack(messaging_spec(protocol="mqttsn")) == (
        "MQTT-SN 1.2 over UDP, through a gateway to MQTT 3.1.1"
    )
    assert run_stack(messaging_spec(protocol="srup", srup_signature="ed25519")) == (
        "SRUP (signed MQTT) with Ed25519 signatures over MQTT 3.1.1 over TCP"
    )


def test_a_coap_token_longer_than_8_bytes_is_not_a_token_but_a_wrong_model():
    spec = messaging_spec(protocol="coap", payload_size=64)
    plain = sum(message_parts(spec=spec, address=COAP_LOCAL_ECHO_URI).values())  # 74
    wire = WireBytes(messages=1, median=plain + 9, min=plain + 9, max=plain + 9)
    breakdown = size_breakdown(
        run_id=uuid.uuid4(), spec=spec, address=COAP_LOCAL_ECHO_URI, wire=wire
    )
    parts = {c.key: c.bytes for c in breakdown.components}
    assert (parts["coap_token"], parts["unexplained"], breakdown.model_agrees) == (0, 9, False)
    assert breakdown.warning is not None
    assert "8 bytes" in breakdown.warning


def test_a_block_wise_coap_body_is_flagged_as_not_modelled():
    spec = messaging_spec(protocol="coap", payload_size=2000)
    wire = WireBytes(messages=1, median=2100, min=2100, max=2100)
    breakdown = size_breakdown(
        run_id=uuid.uuid4(), spec=spec, address=COAP_LOCAL_ECHO_URI, wire=wire
    )
    assert not breakdown.model_agrees
    assert breakdown.warning is not None
    assert "block-wise" in breakdown.warning


def test_a_udp_datagram_past_the_mtu_pays_link_and_ip_headers_per_fragment():
    spec = messaging_spec(protocol="mqttsn", payload_size=3000)
    wire_size = 3000 + 9  # 3-octet Length, MsgType, Flags, TopicId, MsgId
    wire = WireBytes(messages=1, median=wire_size, min=wire_size, max=wire_size)
    breakdown = size_breakdown(run_id=uuid.uuid4(), spec=spec, address=TOPIC, wire=wire)
    parts = {c.key: c.bytes for c in breakdown.components}
    # 8 + 3009 = 3017 bytes of IP payload in fragments of 1480: 3 IP packets, one UDP header.
    assert breakdown.segments == 3
    assert (parts["link"], parts["ip"], parts["udp"]) == (3 * 14, 3 * 20, 8)


def test_the_local_echo_uri_is_the_agents_echo_resource():
    from iotsecbench_agent.runners.coap_server import ECHO_PATH

    assert COAP_LOCAL_ECHO_URI.endswith(f"/{ECHO_PATH}")
