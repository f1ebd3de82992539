"""Where the bytes of one message go: the message-size breakdown of a messaging run.

One measured figure and a model around it, one model per protocol and carrier
(docs/results.md, "Message sizes"):

- **Measured**: the agent counts the bytes its client wrote to the socket for each message
  (`MessageRecord.wire_bytes`, device-agent docs/wire-bytes.md): for MQTT and SRUP the
  PUBLISH on plain TCP, the TLS records carrying it over TLS (a one-way run: the PUBLISH as
  it arrived at the device); for CoAP the UDP payloads of the request datagrams (header,
  token, options, payload marker, body); for MQTT-SN the UDP payload of the PUBLISH to the
  gateway. The breakdown uses the median over the run's delivered (`ok`) messages.
- **From the run's parameters** (its frozen spec) and the protocols' specifications
  (`iotsecbench_contract.framing`): MQTT's header and topic, SRUP's fields, token and
  signature, CoAP's header and options (from the request URI), MQTT-SN's header and 2-byte
  topic id, the payload, and the bytes the security mechanism adds (IV or nonce, padding,
  tag or MAC, signature). The tests check each against the agent's own encoders and a packet
  capture.
- **Measured as the remainder**: over TLS the record overhead, for CoAP the token (its
  length is the client's choice: aiocoap's is 2 bytes), each = measured minus what the
  parameters describe. Anywhere else the remainder must be 0; where it is not (or is
  negative, or a CoAP token would be longer than RFC 7252's 8 bytes) the model is wrong for
  the run and the breakdown says so (`model_agrees`, `warning`).
- **Below the socket**, documented constants (`assumptions`): Ethernet and IPv4 headers, and
  a TCP header per segment (MQTT, SRUP) or one UDP header per datagram (CoAP, MQTT-SN).
  Nothing below the socket is measured.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass, field, replace
from itertools import accumulate
from typing import Any
from uuid import UUID

from django.db import connection
from iotsecbench_contract import framing, topics

from experiments.addressing import coap_request_uri, resolve_topic
from experiments.models import Measurement, MqttVersion, Protocol, Run, Transport
from measurements.models import MessageRecord
from results.services.interleaved import rotation, run_parts
from results.services.round_trips import run_wire_size_counts
from results.services.size_model import (
    BODY,
    COAP_DEFAULT_BLOCK_BYTES,
    COMPONENTS,
    SRUP_TOPIC,
    Carrier,
    message_parts,
    run_carrier,
    run_stack,
)
from results.services.size_reference import ReferenceFrame, reference_frames

# --- below the socket: assumed -------------------------------------------------------------
# Header sizes per packet: iotsecbench_contract.framing (a frame as a packet capture shows
# it; the agent's capture tests check them). The Ethernet minimum frame (60 bytes without
# FCS) is not padded for: a TCP segment's headers are already 66 bytes, and a UDP
# datagram's 42 plus the smallest CoAP request or MQTT-SN PUBLISH the agent sends pass 60.
ETHERNET_HEADER_BYTES = framing.ETHERNET_HEADER_BYTES
IPV4_HEADER_BYTES = framing.IPV4_HEADER_BYTES
TCP_HEADER_BYTES = framing.TCP_HEADER_BYTES
TCP_TIMESTAMPS_BYTES = framing.TCP_TIMESTAMPS_BYTES
UDP_HEADER_BYTES = framing.UDP_HEADER_BYTES
ETHERNET_MTU = 1500
# Payload bytes per segment: a message larger than this is cut into several segments, each
# with its own headers.
TCP_MSS = ETHERNET_MTU - IPV4_HEADER_BYTES - TCP_HEADER_BYTES - TCP_TIMESTAMPS_BYTES
# IPv4 fragment payload: a UDP datagram larger than the MTU is cut into IP fragments of at
# most this many bytes (a multiple of 8, RFC 791); the UDP header is in the first only.
IPV4_FRAGMENT_BYTES = (ETHERNET_MTU - IPV4_HEADER_BYTES) // 8 * 8


_LINK = (
    f"Link: Ethernet II header, {ETHERNET_HEADER_BYTES} bytes per {{unit}}; the 4-byte FCS, "
    "preamble and inter-frame gap are not counted (as in a packet capture). Assumed, not "
    "measured: the agent counts bytes at the socket."
)
_IP = f"IP: IPv4 header without options, {IPV4_HEADER_BYTES} bytes per {{unit}}. Assumed."
_MEASURED = "Wire bytes: measured at the agent's socket, the median over delivered messages."
_TCP_ASSUMPTIONS = (
    _LINK.format(unit="segment"),
    _IP.format(unit="segment"),
    f"TCP: {TCP_HEADER_BYTES}-byte header plus the {TCP_TIMESTAMPS_BYTES}-byte timestamps "
    "option Linux sends by default, "
    f"{TCP_HEADER_BYTES + TCP_TIMESTAMPS_BYTES} bytes per segment. Assumed.",
    f"Segments: the measured bytes cut at an MSS of {TCP_MSS} bytes (MTU {ETHERNET_MTU}); the "
    "message is assumed to travel in segments of its own (TCP_NODELAY, one message in flight).",
    _MEASURED,
)
_UDP_ASSUMPTIONS = (
    _LINK.format(unit="IP packet"),
    _IP.format(unit="IP packet"),
    f"UDP: {UDP_HEADER_BYTES}-byte header, once per datagram; no TCP segments, no TCP "
    "options. Assumed.",
    f"IP packets: one per datagram up to the MTU of {ETHERNET_MTU} bytes; a larger datagram "
    f"is cut into IPv4 fragments of {IPV4_FRAGMENT_BYTES} bytes, each with its own Ethernet "
    "and IPv4 headers. Assumed.",
    _MEASURED,
)
ASSUMPTIONS = {
    Carrier.TCP: _TCP_ASSUMPTIONS,
    Carrier.TLS: _TCP_ASSUMPTIONS,
    Carrier.UDP: _UDP_ASSUMPTIONS,
}


@dataclass(frozen=True)
class SizeComponent:
    key: str
    name: str
    bytes: int
    basis: str  # a Basis


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
    carrier: str  # a Carrier: what the wire bytes were counted on
    stack: str  # the protocol stack in words, e.g. "CoAP (CON GET) over UDP"
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
    assumptions: tuple[str, ...]
    # The SRUP paper's comparison: the other protocol's frame for the same payload (model).
    reference_frames: list[ReferenceFrame]
    # An interleaved run's: this breakdown's mechanism (its messages only), and on the run's
    # breakdown (its first mechanism's) every mechanism's breakdown in rotation order.
    mechanism: str | None = None
    mechanisms: list[SizeBreakdown] = field(default_factory=list)


def _remainder(
    spec: dict[str, Any], carrier: str, plaintext: int, wire: WireBytes, parts: dict[str, int]
) -> str | None:
    """Puts measured minus modelled where it belongs (TLS records, the CoAP token, or
    unexplained) and returns the warning when the model is wrong for the run."""
    residual = wire.median - plaintext
    protocol = spec.get("protocol", Protocol.MQTT)
    if protocol == Protocol.COAP:
        block = int(spec.get("block_size", COAP_DEFAULT_BLOCK_BYTES))
        body = sum(parts[k] for k in BODY)
        if body > block:
            parts["unexplained"] = max(residual, 0)
            return (
                f"The {body}-byte body is longer than one {block}-byte block: it went "
                "block-wise (RFC 7959), in several request datagrams this model does not "
                "follow; the difference is shown as unexplained."
            )
        if 0 <= residual <= framing.COAP_MAX_TOKEN_BYTES:
            parts["coap_token"] = residual
            return None
        if residual > 0:
            parts["unexplained"] = residual
            return (
                f"The measured {wire.median} bytes are {residual} more than the {plaintext} "
                "bytes of the CoAP request the run's parameters describe plus the longest "
                f"token ({framing.COAP_MAX_TOKEN_BYTES} bytes): the model is wrong for this "
                "run; the difference is shown as unexplained."
            )
    if residual < 0:
        return (
            f"The measured {wire.median} bytes are {-residual} fewer than the {plaintext} bytes "
            "the run's parameters describe: the model is wrong for this run, and the bar shows "
            "the model's bytes."
        )
    if carrier == Carrier.TLS:
        parts["tls"] = residual
        return None
    if residual:
        parts["unexplained"] = residual
        return (
            f"The measured {wire.median} bytes are {residual} more than the {plaintext} bytes "
            f"of the message the run's parameters describe ({run_stack(spec)} carries no "
            "more): the model is wrong for this run; the difference is shown as unexplained."
        )
    return None


def _below_socket(carrier: str, carried: int, parts: dict[str, int]) -> int:
    """Adds the assumed headers below the socket for `carried` bytes at the socket; returns
    the number of TCP segments or IP packets."""
    if carrier == Carrier.UDP:
        packets = max(1, math.ceil((UDP_HEADER_BYTES + carried) / IPV4_FRAGMENT_BYTES))
        parts["udp"] = UDP_HEADER_BYTES
    else:
        packets = max(1, math.ceil(carried / TCP_MSS))
        parts["tcp"] = packets * (TCP_HEADER_BYTES + TCP_TIMESTAMPS_BYTES)
    parts.update(link=packets * ETHERNET_HEADER_BYTES, ip=packets * IPV4_HEADER_BYTES)
    return packets


def size_breakdown(
    *,
    run_id: UUID,
    spec: dict[str, Any],
    address: str,
    wire: WireBytes,
    mechanism: str | None = None,
) -> SizeBreakdown:
    """The breakdown of one message of a run: its protocol message from the spec, the
    measured remainder (TLS records, a CoAP token, or unexplained bytes) and the assumed
    headers below the socket."""
    carrier = run_carrier(spec)
    parts = message_parts(spec=spec, address=address)
    plaintext = sum(parts.values())
    warning = _remainder(spec, carrier, plaintext, wire, parts)
    carried = sum(parts.values())  # bytes at the socket (the model's when it claims more)
    segments = _below_socket(carrier, carried, parts)
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
        carrier=carrier,
        stack=run_stack(spec),
        security=spec.get("security", "none"),
        srup_signature=spec.get("srup_signature"),
        payload_size=int(spec["payload_size"]),
        wire=wire,
        plaintext_bytes=plaintext,
        residual_bytes=wire.median - plaintext,
        model_agrees=warning is None,
        warning=warning,
        segments=segments,
        frame_bytes=sum(c.bytes for c in components),
        components=components,
        assumptions=ASSUMPTIONS[carrier],
        reference_frames=reference_frames(spec),
        mechanism=mechanism,
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


def run_address(*, run: Run) -> str:
    """Where the run's messages went, as its protocol addresses them: CoAP's request URI
    (`coap_url` and `coap_path`, experiments.addressing.coap_request_uri: the agent's own
    echo server when the run names no server); the spec's `topic` when the run names one;
    else what the platform dispatches today (experiments.services.jobs): SRUP round trips
    SRUP/<device id>, every other run (one-way SRUP too) the data topic of its first
    device."""
    spec = run.spec
    protocol = spec.get("protocol", Protocol.MQTT)
    if protocol == Protocol.COAP:
        return coap_request_uri(str(spec.get("coap_url") or ""), str(spec.get("coap_path") or ""))
    first = next(iter(run.run_devices.all()), None)
    device_id = first.device_id if first is not None else UUID(int=0)
    if spec.get("topic"):  # the design's own, {device} as its first device's id
        return resolve_topic(str(spec["topic"]), device_id)
    if protocol == Protocol.SRUP and spec.get("measurement") != Measurement.ONE_WAY:
        return SRUP_TOPIC
    return topics.data_topic(run.pk, device_id)


def run_sizes_compute(*, run: Run) -> SizeBreakdown | None:
    """The message-size breakdown of a messaging run; None when it has no delivered message
    (nothing was measured to break down). An interleaved run's is its first mechanism's
    (with a delivered message), with every mechanism's in `mechanisms`: each its own
    messages' wire bytes against the model of the run's spec with that mechanism."""
    if not rotation(run.spec):
        wire = run_wire_bytes(run=run)
        if wire is None:
            return None
        return size_breakdown(run_id=run.pk, spec=run.spec, address=run_address(run=run), wire=wire)
    wires = run_mechanism_wire_bytes(run=run)
    address = run_address(run=run)
    breakdowns = [
        size_breakdown(
            run_id=run.pk,
            spec=spec,
            address=address,
            wire=wires[part.mechanism],
            mechanism=part.mechanism,
        )
        for spec, part in run_parts(run.spec)
        if part is not None and part.mechanism in wires
    ]
    return replace(breakdowns[0], mechanisms=breakdowns) if breakdowns else None


_MECHANISM_WIRE_SQL = f"""
SELECT r.mechanism, count(*), percentile_disc(0.5) WITHIN GROUP (ORDER BY r.wire_bytes),
       min(r.wire_bytes), max(r.wire_bytes)
FROM {MessageRecord._meta.db_table} r
JOIN experiments_rundevice rd ON rd.id = r.run_device_id
WHERE rd.run_id = %s AND r.outcome = 'ok' AND r.wire_bytes IS NOT NULL
GROUP BY r.mechanism
"""


def run_mechanism_wire_bytes(*, run: Run) -> dict[str, WireBytes]:
    """An interleaved run's wire bytes per mechanism (its records' stored `mechanism`):
    count, lower median (percentile_disc(0.5): the value of rank (n - 1) // 2), min, max of
    the delivered messages."""
    with connection.cursor() as cursor:
        cursor.execute(_MECHANISM_WIRE_SQL, [run.pk])
        rows = cursor.fetchall()
    return {
        str(mechanism): WireBytes(messages=n, median=median, min=lo, max=hi)
        for mechanism, n, median, lo, hi in rows
        if mechanism is not None
    }
