"""The frame another protocol would send for the same payload, beside a run's own: the SRUP
paper's headline comparison (issue #19 point 2, Poulter & Cox 2021 §6.4: an 80-byte plain
MQTT frame, topic ``test/d1`` and a 1-byte action, against 430 bytes for SRUP).

Computed from the size model only (results.services.size_model), never measured: an MQTT
run gets SRUP's frame for its payload as the SRUP paper sent it (RSA-2048 signatures, MQTT
over TLS 1.2, the run's MQTT version and QoS); a SRUP run gets the plain MQTT frame the
paper compared against (the same payload, no TLS, no payload security, the paper's topic
``test/d1``). The TLS record overhead, measured in a run's own breakdown, is ASSUMED here:
an AES-GCM record, as OpenSSL and Mosquitto negotiate by default."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from iotsecbench_contract import framing, topics

from experiments.models import Protocol, SrupSignature, Transport
from results.services.size_model import message_parts, run_stack

# The SRUP paper's setup (Poulter & Cox 2021, §3 and §6.4).
PAPER_PLAIN_TOPIC = "test/d1"
PAPER_SRUP_SIGNATURE = SrupSignature.RSA_2048
PAPER_SRUP_TRANSPORT = Transport.TLS12
# Figure 13, bytes on the wire, for the paper's message: a 1-byte action at QoS 1, MQTT 3.1.1.
PAPER_FRAMES = {Protocol.MQTT: 80, Protocol.SRUP: 430}
# One TLS record's overhead around its plaintext with an AES-GCM cipher suite (RFC 5246
# §6.2.3.3 and RFC 5288: 5-byte header, 8-byte explicit nonce, 16-byte tag; RFC 8446 §5.2:
# 5-byte header, 1-byte inner content type, 16-byte tag).
TLS_RECORD_OVERHEAD_BYTES = {Transport.TLS12: 5 + 8 + 16, Transport.TLS13: 5 + 1 + 16}
_TCP_SEGMENT_HEADERS = (
    framing.ETHERNET_HEADER_BYTES
    + framing.IPV4_HEADER_BYTES
    + framing.TCP_HEADER_BYTES
    + framing.TCP_TIMESTAMPS_BYTES
)
# A TCP segment's payload on a 1500-byte Ethernet MTU (as results.services.sizes).
_TCP_MSS = (
    1500 - framing.IPV4_HEADER_BYTES - framing.TCP_HEADER_BYTES - framing.TCP_TIMESTAMPS_BYTES
)


@dataclass(frozen=True)
class ReferenceFrame:
    protocol: str
    stack: str  # e.g. "SRUP (signed MQTT) with RSA-2048 ... over MQTT 3.1.1 over TLS 1.2"
    topic: str
    message_bytes: int  # the MQTT PUBLISH, without TLS
    socket_bytes: int  # what the client writes to its TCP socket (TLS records over TLS)
    frame_bytes: int  # Ethernet frames on the wire, as a packet capture counts them
    paper_frame_bytes: int | None  # what the paper's Figure 13 shows for this protocol
    note: str


def _frame(spec: dict[str, Any], topic: str) -> tuple[int, int, int]:
    """(message, socket, frame) bytes of one message of ``spec`` on ``topic``."""
    message = sum(message_parts(spec=spec, address=topic).values())
    socket = message + TLS_RECORD_OVERHEAD_BYTES.get(spec["transport"], 0)
    segments = max(1, -(-socket // _TCP_MSS))
    return message, socket, socket + segments * _TCP_SEGMENT_HEADERS


def _is_papers_message(spec: dict[str, Any]) -> bool:
    return (spec["payload_size"], spec["qos"], spec["mqtt_version"]) == (1, 1, "3.1.1")


def _reference_spec(spec: dict[str, Any], protocol: str) -> dict[str, Any]:
    common = {
        "payload_size": int(spec["payload_size"]),
        "qos": int(spec["qos"]),
        "mqtt_version": spec.get("mqtt_version", "3.1.1"),
        "security": "none",
    }
    if protocol == Protocol.SRUP:
        return {
            **common,
            "protocol": Protocol.SRUP,
            "srup_signature": PAPER_SRUP_SIGNATURE,
            "transport": PAPER_SRUP_TRANSPORT,
        }
    return {**common, "protocol": Protocol.MQTT, "transport": Transport.TCP}


def reference_frames(spec: dict[str, Any]) -> list[ReferenceFrame]:
    """The other side of the SRUP paper's comparison for an MQTT or SRUP run (with the
    run's payload size and QoS); none for CoAP and MQTT-SN runs."""
    protocol = spec.get("protocol", Protocol.MQTT)
    if protocol not in (Protocol.MQTT, Protocol.SRUP) or int(spec.get("qos", 0)) < 0:
        return []
    other = Protocol.SRUP if protocol == Protocol.MQTT else Protocol.MQTT
    other_spec = _reference_spec(spec, other)
    topic = topics.srup_topic(0) if other == Protocol.SRUP else PAPER_PLAIN_TOPIC
    message, socket, frame = _frame(other_spec, topic)
    if other == Protocol.SRUP:
        note = (
            "SRUP's data message for this payload as the SRUP paper sent it (RSA-2048 "
            "signature, MQTT over TLS 1.2 to SRUP/<device id>), from the size model: the "
            "agent's SRUP fields, 36-byte token and 256-byte signature; the TLS record "
            f"overhead assumed ({TLS_RECORD_OVERHEAD_BYTES[Transport.TLS12]} bytes, AES-GCM). "
            "The paper's own SRUP frame (430 bytes) had a shorter token and no data ID."
        )
    else:
        note = (
            "The plain MQTT frame the SRUP paper compared against: the same payload on topic "
            "test/d1, no TLS and no payload security, from the size model."
        )
    return [
        ReferenceFrame(
            protocol=other,
            stack=run_stack(other_spec),
            topic=topic,
            message_bytes=message,
            socket_bytes=socket,
            frame_bytes=frame,
            paper_frame_bytes=PAPER_FRAMES[other] if _is_papers_message(other_spec) else None,
            note=note,
        )
    ]
