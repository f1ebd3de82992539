"""What one message of a run puts on the agent's socket, component by component, from the
run's spec and the protocols' specifications: one model per protocol (MQTT 3.1.1 and 5,
SRUP over MQTT, CoAP, MQTT-SN) and the security mechanism's framing. The breakdown around
it (the measured bytes, what lies below the socket) is results.services.sizes."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from iotsecbench_contract import framing, interleave, topics

from experiments.models import CoapMethod, CoapType, MqttVersion, Protocol, SrupSignature, Transport


class Carrier:
    """What carries a protocol's messages below it: the socket the agent counts at."""

    TCP = "tcp"
    TLS = "tls"  # TLS records over TCP
    UDP = "udp"


# --- CoAP (device-agent runners/coap_roundtrip.py) -------------------------------------------
# A run without coap_url talks to the agent's own echo server on 127.0.0.1 (an IP literal:
# no Uri-Host), resource /echo (runners/coap_server.py ECHO_PATH; a test checks it).
COAP_LOCAL_ECHO_URI = "coap://127.0.0.1/echo"
# Bodies longer than one block go block-wise (RFC 7959): several request datagrams whose
# number and Block1/Block2 options the model does not follow.
COAP_DEFAULT_BLOCK_BYTES = 1024

# --- SRUP (device-agent srup/codec.py: data messages, the only kind the platform sends) -----
SRUP_TOPIC = topics.srup_topic(0)  # every SRUP topic is as long: SRUP/<16 hex digits>
SRUP_FIELDS_BYTES = (
    1  # version
    + 1  # message type
    + 8  # sequence ID
    + 8  # sender ID
    + 2  # token length
    + 2  # signature length
    + 2  # data ID length
    + len(b"data")  # data ID (runners/srup_roundtrip.py REQUEST_DATA_ID)
    + 2  # data length
)
SRUP_TOKEN_BYTES = 36  # a UUID as text
SRUP_SIGNATURE_BYTES = {
    SrupSignature.RSA_2048: 256,
    SrupSignature.RSA_4096: 512,
    SrupSignature.ED25519: 64,
}


@dataclass(frozen=True)
class Framing:
    """What a security mechanism adds to a payload (device-agent security/registry.py
    framings): a fixed IV or nonce, PKCS#7 padding to `pad_block` (1 to pad_block bytes, a
    whole block when the payload fills its last one), a tag or MAC, a signature."""

    iv: int = 0
    pad_block: int = 0
    tag: int = 0
    signature: int = 0

    def padding(self, payload_bytes: int) -> int:
        return self.pad_block - payload_bytes % self.pad_block if self.pad_block else 0


_LIGHTWEIGHT_BLOCK = 8  # TEA, XTEA, PRESENT, KLEIN and LBlock are 64-bit block ciphers
_FRAMINGS: tuple[tuple[str, Framing], ...] = (
    (r"none", Framing()),
    (r"null", Framing(iv=16)),  # 16 zero bytes standing in for an AES IV
    (r"aes-\d+-cbc", Framing(iv=16, pad_block=16)),
    (r"aes-\d+-ctr", Framing(iv=8)),  # nonce
    (r"aes-\d+-gcm|chacha20-poly1305", Framing(iv=12, tag=16)),  # nonce, tag
    (r"3?des-cbc", Framing(iv=8, pad_block=8)),
    (r"rc4", Framing(iv=16)),  # per-message nonce
    (r"hmac-sha256", Framing(tag=32)),  # MAC
    (r"rsa-(\d+)-(pkcs1v15|pss)", Framing()),  # signature: the modulus, filled in below
    (r"ecdsa-p256|ed25519", Framing(signature=64)),
    (r"[a-z0-9]+(-\d+)?-ecb", Framing(pad_block=_LIGHTWEIGHT_BLOCK)),
    (r"[a-z0-9]+(-\d+)?-cbc", Framing(iv=_LIGHTWEIGHT_BLOCK, pad_block=_LIGHTWEIGHT_BLOCK)),
    (r"ascon-aead128", Framing(iv=16, tag=16)),  # nonce, tag
)


def mechanism_framing(name: str) -> Framing | None:
    """The framing of a mechanism of experiments.catalogue; None for a name it does not
    know (a test checks every catalogue name against the agent's overhead)."""
    for pattern, found in _FRAMINGS:
        match = re.fullmatch(pattern, name)
        if match is None:
            continue
        if name.startswith("rsa-"):
            return Framing(signature=int(match.group(1)) // 8)
        return found
    return None


class Basis:
    MEASURED = "measured"
    SPEC = "spec"  # computed from the run's parameters
    ASSUMED = "assumed"


# Bottom of the stack first. Every breakdown lists every component (0 where it has none),
# so breakdowns of different runs, even of different protocols, stack the same way.
COMPONENTS = (
    ("link", "Ethernet header", Basis.ASSUMED),
    ("ip", "IPv4 header", Basis.ASSUMED),
    ("udp", "UDP header", Basis.ASSUMED),
    ("tcp", "TCP header", Basis.ASSUMED),
    ("tls", "TLS record overhead", Basis.MEASURED),
    ("mqtt_header", "MQTT header", Basis.SPEC),
    ("topic", "Topic", Basis.SPEC),
    ("mqttsn_header", "MQTT-SN header", Basis.SPEC),
    ("topic_id", "MQTT-SN topic ID", Basis.SPEC),
    ("coap_header", "CoAP header", Basis.SPEC),
    ("coap_token", "CoAP token", Basis.MEASURED),
    ("coap_options", "CoAP options", Basis.SPEC),
    ("payload_marker", "CoAP payload marker", Basis.SPEC),
    ("srup_header", "SRUP header", Basis.SPEC),
    ("token", "Token", Basis.SPEC),
    ("index", "Interleave index", Basis.SPEC),  # an interleaved run's mechanism, in the clear
    ("iv", "IV / nonce", Basis.SPEC),
    ("payload", "Payload", Basis.SPEC),
    ("padding", "Padding", Basis.SPEC),
    ("tag", "Tag / MAC", Basis.SPEC),
    ("signature", "Signature", Basis.SPEC),
    ("unexplained", "Unexplained", Basis.MEASURED),
)
BODY = ("srup_header", "token", "index", "iv", "payload", "padding", "tag", "signature")


def run_carrier(spec: dict[str, Any]) -> str:
    """The Carrier of a run's messages: UDP for CoAP and MQTT-SN whatever the spec's
    transport says (it is an MQTT field), TLS or TCP for MQTT and SRUP."""
    if spec.get("protocol") in (Protocol.COAP, Protocol.MQTTSN):
        return Carrier.UDP
    return Carrier.TCP if spec.get("transport", Transport.TCP) == Transport.TCP else Carrier.TLS


def _label(choices: type[Any], value: Any) -> str:
    return str(dict(choices.choices).get(value, value))


def run_stack(spec: dict[str, Any]) -> str:
    """The run's protocol stack in words: `MQTT 3.1.1 over TCP`, `SRUP (signed MQTT) with
    Ed25519 signatures over MQTT 5 over TLS 1.3`, `CoAP (confirmable PUT) over UDP`,
    `MQTT-SN 1.2 over UDP, through a gateway to MQTT 3.1.1`."""
    protocol = spec.get("protocol", Protocol.MQTT)
    if protocol == Protocol.COAP:
        kind = (
            "confirmable"
            if spec.get("coap_type", CoapType.CON) == CoapType.CON
            else ("non-confirmable")
        )
        method = _label(CoapMethod, spec.get("coap_method", CoapMethod.GET))
        return f"CoAP ({kind} {method}) over UDP"
    if protocol == Protocol.MQTTSN:
        return "MQTT-SN 1.2 over UDP, through a gateway to MQTT 3.1.1"
    mqtt = f"MQTT {spec.get('mqtt_version', MqttVersion.V311)}"
    transport = spec.get("transport", Transport.TCP)
    carrier = "TCP" if transport == Transport.TCP else f"TLS {transport.removeprefix('tls')}"
    if protocol == Protocol.SRUP:
        signature = _label(SrupSignature, spec.get("srup_signature"))
        return f"{Protocol.SRUP.label} with {signature} signatures over {mqtt} over {carrier}"
    return f"{mqtt} over {carrier}"


def _body_parts(spec: dict[str, Any]) -> dict[str, int]:
    """Every component, 0 but the payload, the security mechanism's framing and an
    interleaved run's index byte."""
    payload = int(spec["payload_size"])
    parts = dict.fromkeys((key for key, _, _ in COMPONENTS), 0) | {"payload": payload}
    security = spec.get("security", "none")
    mechanism = mechanism_framing(security)
    if mechanism is None:
        raise ValueError(f"no framing is known for the security mechanism {security!r}")
    parts.update(
        # index || secured payload (iotsecbench_contract.interleave)
        index=interleave.INDEX_BYTES if spec.get(interleave.FIELD) else 0,
        iv=mechanism.iv,
        padding=mechanism.padding(payload),
        tag=mechanism.tag,
        signature=mechanism.signature,
    )
    return parts


def message_parts(*, spec: dict[str, Any], address: str) -> dict[str, int]:
    """The bytes of one message as its protocol puts it on the socket, by component, from
    the run's spec and its `address` (the MQTT or MQTT-SN topic, or the CoAP request URI;
    see run_address). No TLS, nothing below the socket, and a CoAP token of 0 bytes (its
    length is the client's: size_breakdown takes it from the measured bytes). Raises
    ValueError for a security mechanism or SRUP signature the model does not know."""
    parts = _body_parts(spec)
    protocol = spec.get("protocol", Protocol.MQTT)
    if protocol == Protocol.SRUP:
        signature = spec.get("srup_signature")
        if signature not in SRUP_SIGNATURE_BYTES:
            raise ValueError(f"no signature size is known for SRUP's {signature!r}")
        parts.update(srup_header=SRUP_FIELDS_BYTES, token=SRUP_TOKEN_BYTES)
        parts["signature"] += SRUP_SIGNATURE_BYTES[SrupSignature(signature)]
    body = sum(parts[k] for k in BODY)
    if protocol == Protocol.COAP:
        parts.update(
            coap_header=framing.COAP_HEADER_BYTES,
            coap_options=framing.coap_options_bytes(framing.coap_request_options(address)),
            payload_marker=framing.COAP_PAYLOAD_MARKER_BYTES if body else 0,
        )
        return parts
    if protocol == Protocol.MQTTSN:
        publish = framing.mqttsn_publish_bytes(data_bytes=body)
        parts.update(
            mqttsn_header=publish - body - framing.MQTTSN_TOPIC_ID_BYTES,
            topic_id=framing.MQTTSN_TOPIC_ID_BYTES,
        )
        return parts
    topic_bytes = len(address.encode())
    parts["topic"] = topic_bytes
    parts["mqtt_header"] = framing.mqtt_publish_header_bytes(
        topic_bytes=topic_bytes,
        body_bytes=body,
        qos=int(spec["qos"]),
        mqtt5=spec.get("mqtt_version") == MqttVersion.V5,
    )
    return parts
