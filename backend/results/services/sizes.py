"""Where the bytes of one message go: the message-size breakdown of a messaging run.

One measured figure and a model around it (docs/results.md, "Message sizes"):

- **Measured**: the agent counts the bytes its MQTT client wrote to the socket for each
  PUBLISH (`MessageRecord.wire_bytes`, device-agent `links/mqtt_wire.py`): the MQTT packet
  on plain TCP, the TLS records carrying it over TLS. The breakdown uses the median over the
  run's delivered (`ok`) messages.
- **From the run's parameters** (its frozen spec): the MQTT header and topic, SRUP's fields,
  token and signature, the payload, and the bytes the security mechanism adds (IV or nonce,
  padding, tag or MAC, signature) — the same formulas as the agent's
  (`mqtt_wire.publish_packet_size`, `srup/codec.py`, `security/registry.py`; the tests
  check them against the agent's own).
- **TLS record overhead** = measured minus the plaintext packet the parameters describe, so it is
  measured too. On plain TCP that difference must be 0; where it is not (or is negative over
  TLS) the model is wrong and the breakdown says so (`model_agrees`, `warning`).
- **Link, IP and TCP headers** are documented constants per TCP segment (`ASSUMPTIONS`):
  nothing below the socket is measured.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate
from typing import Any
from uuid import UUID

from iotsecbench_contract import topics

from experiments.models import MqttVersion, Protocol, Run, SrupSignature, Transport
from results.services.round_trips import run_wire_size_counts

# --- below the socket: assumed, per TCP segment -------------------------------------------
# A frame as a packet capture shows it: Ethernet II destination and source MAC (6 + 6) and
# EtherType (2). The 4-byte FCS is NOT counted (captures strip it), nor the preamble, start
# delimiter and inter-frame gap (20 bytes of line time). The Ethernet minimum frame (60 bytes
# without FCS) never pads: 14 + 20 + 32 headers are already 66 bytes.
ETHERNET_HEADER_BYTES = 14
IPV4_HEADER_BYTES = 20  # no IP options
TCP_HEADER_BYTES = 20
# Linux sends the timestamps option on every segment once both ends negotiated it
# (net.ipv4.tcp_timestamps=1, the default): NOP, NOP, kind 8 length 10 = 12 bytes.
TCP_TIMESTAMPS_BYTES = 12
ETHERNET_MTU = 1500
# Payload bytes per segment: a message larger than this is cut into several segments, each
# with its own headers.
TCP_MSS = ETHERNET_MTU - IPV4_HEADER_BYTES - TCP_HEADER_BYTES - TCP_TIMESTAMPS_BYTES

ASSUMPTIONS = (
    f"Link: Ethernet II header, {ETHERNET_HEADER_BYTES} bytes per segment; the 4-byte FCS, "
    "preamble and inter-frame gap are not counted (as in a packet capture). Assumed, not "
    "measured: the agent counts bytes at the socket.",
    f"IP: IPv4 header without options, {IPV4_HEADER_BYTES} bytes per segment. Assumed.",
    f"TCP: {TCP_HEADER_BYTES}-byte header plus the {TCP_TIMESTAMPS_BYTES}-byte timestamps "
    "option Linux sends by default, "
    f"{TCP_HEADER_BYTES + TCP_TIMESTAMPS_BYTES} bytes per segment. Assumed.",
    f"Segments: the measured bytes cut at an MSS of {TCP_MSS} bytes (MTU {ETHERNET_MTU}); the "
    "message is assumed to travel in segments of its own (TCP_NODELAY, one message in flight).",
    "Wire bytes: measured at the agent's socket, the median over delivered messages.",
)

# --- MQTT -------------------------------------------------------------------------------
TOPIC_LENGTH_BYTES = 2  # the topic's 16-bit length prefix, part of the header here
PACKET_ID_BYTES = 2  # QoS 1 and 2 only
# A run's data topic is iotsecbench_contract.topics.data_topic (experiments.services.jobs
# names it in the job; a test checks they agree).

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
    for pattern, framing in _FRAMINGS:
        match = re.fullmatch(pattern, name)
        if match is None:
            continue
        if name.startswith("rsa-"):
            return Framing(signature=int(match.group(1)) // 8)
        return framing
    return None


def _varint_bytes(value: int) -> int:
    """Length of MQTT's variable byte integer encoding of `value` (7 bits per byte)."""
    return max(1, math.ceil(value.bit_length() / 7))


def mqtt_header_bytes(*, topic_bytes: int, body_bytes: int, qos: int, mqtt5: bool) -> int:
    """The MQTT PUBLISH bytes that are neither topic nor body: fixed header (type byte and
    the remaining length), the topic's length prefix, the packet id (QoS > 0) and, in MQTT 5,
    the properties length (no properties are sent)."""
    variable = TOPIC_LENGTH_BYTES + (PACKET_ID_BYTES if qos else 0) + (1 if mqtt5 else 0)
    remaining = variable + topic_bytes + body_bytes
    return 1 + _varint_bytes(remaining) + variable


@dataclass(frozen=True)
class SizeComponent:
    key: str
    name: str
    bytes: int
    basis: str  # a Basis


class Basis:
    MEASURED = "measured"
    SPEC = "spec"  # computed from the run's parameters
    ASSUMED = "assumed"


# Bottom of the stack first. Every breakdown lists every component (0 where it has none),
# so breakdowns of different runs stack the same way.
COMPONENTS = (
    ("link", "Ethernet header", Basis.ASSUMED),
    ("ip", "IPv4 header", Basis.ASSUMED),
    ("tcp", "TCP header", Basis.ASSUMED),
    ("tls", "TLS record overhead", Basis.MEASURED),
    ("mqtt_header", "MQTT header", Basis.SPEC),
    ("topic", "Topic", Basis.SPEC),
    ("srup_header", "SRUP header", Basis.SPEC),
    ("token", "Token", Basis.SPEC),
    ("iv", "IV / nonce", Basis.SPEC),
    ("payload", "Payload", Basis.SPEC),
    ("padding", "Padding", Basis.SPEC),
    ("tag", "Tag / MAC", Basis.SPEC),
    ("signature", "Signature", Basis.SPEC),
    ("unexplained", "Unexplained", Basis.MEASURED),
)


@dataclass(frozen=True)
class WireBytes:
    """The measured bytes per delivered message of a run."""

    messages: int
    median: int  # the lower median: a value that was measured
    min: int
    max: int


@dataclass(frozen=True)
class SizeBreakdown:
    run_id: UUID
    protocol: str
    mqtt_version: str
    qos: int
    transport: str
    security: str
    srup_signature: str | None
    payload_size: int
    wire: WireBytes
    plaintext_bytes: int
    residual_bytes: int
    model_agrees: bool
    warning: str | None
    segments: int
    frame_bytes: int
    components: list[SizeComponent]
    assumptions: tuple[str, ...] = ASSUMPTIONS


def message_parts(*, spec: dict[str, Any], topic_bytes: int) -> dict[str, int]:
    """The bytes of one message's MQTT packet by component, from the run's spec (no TLS,
    nothing below TCP). Raises ValueError for a security mechanism or SRUP signature the
    model does not know."""
    payload = int(spec["payload_size"])
    parts = dict.fromkeys((key for key, _, _ in COMPONENTS), 0) | {"payload": payload}
    security = spec.get("security", "none")
    framing = mechanism_framing(security)
    if framing is None:
        raise ValueError(f"no framing is known for the security mechanism {security!r}")
    parts.update(
        iv=framing.iv,
        padding=framing.padding(payload),
        tag=framing.tag,
        signature=framing.signature,
    )
    if spec.get("protocol") == Protocol.SRUP:
        signature = spec.get("srup_signature")
        if signature not in SRUP_SIGNATURE_BYTES:
            raise ValueError(f"no signature size is known for SRUP's {signature!r}")
        parts.update(srup_header=SRUP_FIELDS_BYTES, token=SRUP_TOKEN_BYTES)
        parts["signature"] += SRUP_SIGNATURE_BYTES[SrupSignature(signature)]
    body = sum(parts[k] for k in ("srup_header", "token", "iv", "payload", "padding", "tag"))
    body += parts["signature"]
    parts["topic"] = topic_bytes
    parts["mqtt_header"] = mqtt_header_bytes(
        topic_bytes=topic_bytes,
        body_bytes=body,
        qos=int(spec["qos"]),
        mqtt5=spec.get("mqtt_version") == MqttVersion.V5,
    )
    return parts


def size_breakdown(
    *, run_id: UUID, spec: dict[str, Any], topic_bytes: int, wire: WireBytes
) -> SizeBreakdown:
    """The breakdown of one message of a run: its packet from the spec, TLS (or the
    unexplained rest) as measured minus modelled, and the assumed headers per segment."""
    parts = message_parts(spec=spec, topic_bytes=topic_bytes)
    plaintext = sum(parts.values())
    residual = wire.median - plaintext
    tls = spec.get("transport", Transport.TCP) != Transport.TCP
    warning = None
    if residual < 0:
        warning = (
            f"The measured {wire.median} bytes are {-residual} fewer than the {plaintext} bytes "
            "the run's parameters describe: the model is wrong for this run, and the bar shows "
            "the model's bytes."
        )
    elif residual and not tls:
        warning = (
            f"The measured {wire.median} bytes are {residual} more than the {plaintext} bytes "
            "of the MQTT packet the run's parameters describe (plain TCP carries no more): the "
            "model is wrong for this run; the difference is shown as unexplained."
        )
    parts["tls" if tls else "unexplained"] = max(residual, 0)
    carried = plaintext + parts["tls"] + parts["unexplained"]  # TCP payload bytes
    segments = max(1, math.ceil(carried / TCP_MSS))
    parts.update(
        link=segments * ETHERNET_HEADER_BYTES,
        ip=segments * IPV4_HEADER_BYTES,
        tcp=segments * (TCP_HEADER_BYTES + TCP_TIMESTAMPS_BYTES),
    )
    components = [
        SizeComponent(key=key, name=name, bytes=parts[key], basis=basis)
        for key, name, basis in COMPONENTS
    ]
    return SizeBreakdown(
        run_id=run_id,
        protocol=spec.get("protocol", Protocol.MQTT),
        mqtt_version=spec.get("mqtt_version", MqttVersion.V311),
        qos=int(spec["qos"]),
        transport=spec.get("transport", Transport.TCP),
        security=spec.get("security", "none"),
        srup_signature=spec.get("srup_signature"),
        payload_size=int(spec["payload_size"]),
        wire=wire,
        plaintext_bytes=plaintext,
        residual_bytes=residual,
        model_agrees=warning is None,
        warning=warning,
        segments=segments,
        frame_bytes=sum(c.bytes for c in components),
        components=components,
    )


def run_wire_bytes(*, run: Run) -> WireBytes | None:
    """Count, lower median, min and max of the wire bytes of the run's delivered messages;
    None when it has none. From the counts by size (results.services.round_trips, cached
    for a completed run)."""
    counts = run_wire_size_counts(run=run)
    total = sum(n for _, n in counts)
    if not total:
        return None
    # The lower median: the first size whose running count passes rank (total - 1) // 2.
    running = list(accumulate(n for _, n in counts))
    median = counts[bisect_right(running, (total - 1) // 2)][0]
    return WireBytes(messages=total, median=median, min=counts[0][0], max=counts[-1][0])


def run_topic_bytes(*, run: Run) -> int:
    """Length of the topic the run's messages were published to (UTF-8 bytes)."""
    if run.spec.get("protocol") == Protocol.SRUP:
        return len(SRUP_TOPIC)
    first = next(iter(run.run_devices.all()), None)
    device_id = first.device_id if first is not None else UUID(int=0)
    return len(topics.data_topic(run.pk, device_id).encode())


def run_sizes_compute(*, run: Run) -> SizeBreakdown | None:
    """The message-size breakdown of a messaging run; None when it has no delivered message
    (nothing was measured to break down)."""
    wire = run_wire_bytes(run=run)
    if wire is None:
        return None
    return size_breakdown(
        run_id=run.pk, spec=run.spec, topic_bytes=run_topic_bytes(run=run), wire=wire
    )
