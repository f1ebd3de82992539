"""How many bytes each messaging protocol puts around a body, derived from its specification.

Pure formulas, no codec: the platform's message-size model (backend results.services.sizes)
uses them, and its tests check every one against the bytes the device agent really sends
(its codecs, and packet captures). Nothing here imports a protocol library.

- MQTT 3.1.1 §2.2 / 3.3 and MQTT 5 §2.1 / 3.3: a PUBLISH is a fixed header (type byte and
  the Remaining Length as a variable byte integer), the topic with its 16-bit length, a
  packet identifier at QoS 1 and 2, in MQTT 5 the properties length, then the body.
- CoAP, RFC 7252 §3: a 4-byte header (version, type, token length, code, message ID), a
  token of 0 to 8 bytes, options delta-encoded in number order (§3.1), and before a
  non-empty payload the 0xFF marker.
- MQTT-SN 1.2 §5.2, §5.4.12: Length (1 octet, or 0x01 and 2 octets past 255), MsgType,
  Flags, TopicId (2), MsgId (2), then Data; the topic travels as a 2-byte id whatever its
  type (normal, short or predefined).

Below the socket, the header sizes a packet capture shows (the size model ASSUMES them: the
agent counts bytes at the socket): Ethernet II, IPv4 without options, TCP with Linux's
timestamps option, UDP.
"""

from __future__ import annotations

import math
import urllib.parse
from collections.abc import Iterable

# --- below the socket ----------------------------------------------------------------------
# Ethernet II destination and source MAC (6 + 6) and EtherType (2), as a capture shows a
# frame: without the 4-byte FCS, preamble, start delimiter and inter-frame gap.
ETHERNET_HEADER_BYTES = 14
IPV4_HEADER_BYTES = 20  # no IP options
TCP_HEADER_BYTES = 20
# Linux sends the timestamps option on every segment once both ends negotiated it
# (net.ipv4.tcp_timestamps=1, the default): NOP, NOP, kind 8 length 10 = 12 bytes.
TCP_TIMESTAMPS_BYTES = 12
UDP_HEADER_BYTES = 8  # RFC 768: ports, length, checksum

# --- MQTT ---------------------------------------------------------------------------------
MQTT_TOPIC_LENGTH_BYTES = 2  # the topic's 16-bit length prefix
MQTT_PACKET_ID_BYTES = 2  # QoS 1 and 2 only
MQTT5_PROPERTIES_LENGTH_BYTES = 1  # a PUBLISH without properties: length 0, one byte


def varint_bytes(value: int) -> int:
    """Length of MQTT's variable byte integer encoding of ``value`` (7 bits per byte)."""
    return max(1, math.ceil(value.bit_length() / 7))


def mqtt_publish_header_bytes(*, topic_bytes: int, body_bytes: int, qos: int, mqtt5: bool) -> int:
    """The PUBLISH bytes that are neither topic nor body: the fixed header (type byte and
    Remaining Length), the topic's length prefix, the packet id (QoS > 0) and, in MQTT 5,
    the properties length (no properties are sent)."""
    variable = (
        MQTT_TOPIC_LENGTH_BYTES
        + (MQTT_PACKET_ID_BYTES if qos > 0 else 0)
        + (MQTT5_PROPERTIES_LENGTH_BYTES if mqtt5 else 0)
    )
    remaining = variable + topic_bytes + body_bytes
    return 1 + varint_bytes(remaining) + variable


# --- CoAP ---------------------------------------------------------------------------------
COAP_HEADER_BYTES = 4  # Ver, T, TKL (1) + Code (1) + Message ID (2)
COAP_MAX_TOKEN_BYTES = 8  # TKL 9..15 are reserved (RFC 7252 §3)
COAP_PAYLOAD_MARKER_BYTES = 1  # 0xFF, only before a non-empty payload
COAP_DEFAULT_PORT = 5683
# Option numbers (RFC 7252 §5.10)
COAP_URI_HOST = 3
COAP_URI_PORT = 7
COAP_URI_PATH = 11
COAP_URI_QUERY = 15
_OPTION_NIBBLE_MAX = 12  # values 13 and 14 of a nibble announce 1 or 2 extended bytes
_OPTION_ONE_BYTE_MAX = 268  # 13 + 255


def _extended_bytes(value: int) -> int:
    """Extra bytes an option delta or length of ``value`` needs (RFC 7252 §3.1)."""
    if value <= _OPTION_NIBBLE_MAX:
        return 0
    return 1 if value <= _OPTION_ONE_BYTE_MAX else 2


def coap_options_bytes(options: Iterable[tuple[int, int]]) -> int:
    """Encoded size of the options (number, value length): one byte of delta and length
    nibbles each, their extended bytes, and the value; in number order, each delta from the
    previous option's number."""
    total = 0
    previous = 0
    for number, length in sorted(options):
        delta = number - previous
        total += 1 + _extended_bytes(delta) + _extended_bytes(length) + length
        previous = number
    return total


def coap_request_options(uri: str) -> list[tuple[int, int]]:
    """The (number, value length) of the options a request to ``uri`` carries, as a client
    that sets them from the URL does (aiocoap's ``Message.set_request_uri``): Uri-Host for a
    host name (not for an IP literal, RFC 7252 §6.4), one Uri-Path per path segment, one
    Uri-Query per query argument; no Uri-Port (the port addresses the datagram)."""
    parsed = urllib.parse.urlsplit(uri)
    options: list[tuple[int, int]] = []
    host = parsed.hostname or ""
    if host and not _is_ip_literal(parsed.netloc, host):
        options.append((COAP_URI_HOST, len(host.encode())))
    if parsed.path not in ("", "/"):
        for segment in parsed.path.split("/")[1:]:
            options.append((COAP_URI_PATH, len(urllib.parse.unquote(segment).encode())))
    if parsed.query:
        for argument in parsed.query.split("&"):
            options.append((COAP_URI_QUERY, len(urllib.parse.unquote(argument).encode())))
    return options


def _is_ip_literal(netloc: str, host: str) -> bool:
    if netloc.startswith("["):
        return True
    parts = host.split(".")
    return len(parts) == 4 and all(p.isdigit() and int(p) <= 255 for p in parts)


# --- MQTT-SN ------------------------------------------------------------------------------
MQTTSN_SHORT_LENGTH_MAX = 255  # the longest message the 1-octet Length gives
MQTTSN_LONG_LENGTH_BYTES = 3  # 0x01 and a 16-bit length
MQTTSN_TOPIC_ID_BYTES = 2
MQTTSN_PUBLISH_FIXED_BYTES = 1 + 1 + MQTTSN_TOPIC_ID_BYTES + 2  # MsgType, Flags, TopicId, MsgId


def mqttsn_publish_bytes(*, data_bytes: int) -> int:
    """Octets of an MQTT-SN PUBLISH carrying ``data_bytes`` of Data, Length to Data."""
    rest = MQTTSN_PUBLISH_FIXED_BYTES + data_bytes
    return 1 + rest if 1 + rest <= MQTTSN_SHORT_LENGTH_MAX else MQTTSN_LONG_LENGTH_BYTES + rest
