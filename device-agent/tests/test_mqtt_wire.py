"""The wire-byte meter, on hand-built MQTT byte streams (no broker)."""

from __future__ import annotations

import pytest

from iotsecbench_agent.links.mqtt_wire import OutboundMeter, publish_packet_size, varint


def publish_packet(
    topic: str, payload: bytes, *, qos: int, mid: int = 1, mqtt5: bool = False, dup: bool = False
) -> bytes:
    """A PUBLISH built independently of paho, byte by byte, from the MQTT spec."""
    body = len(topic).to_bytes(2, "big") + topic.encode()
    if qos:
        body += mid.to_bytes(2, "big")
    if mqtt5:
        body += b"\x00"  # property length 0
    body += payload
    first = 0x30 | (0x08 if dup else 0) | (qos << 1)
    return bytes([first]) + varint(len(body)) + body


def seq_payload(seq: int, size: int = 66) -> bytes:
    return seq.to_bytes(8, "big") + b"\xa5" * (size - 8)


def test_publish_packet_size_matches_the_mqtt_formula_when_topic_and_qos_are_known() -> None:
    # topic "a/b", 66-byte payload, QoS 1: remaining = 2 + 3 + 2 (packet id) + 66 = 73,
    # which fits a 1-byte varint, so 1 + 1 + 73 = 75 bytes.
    assert publish_packet_size(topic="a/b", payload_size=66, qos=1) == 75
    # QoS 0 has no packet id: 1 + 1 + (2 + 3 + 66) = 73.
    assert publish_packet_size(topic="a/b", payload_size=66, qos=0) == 73
    # remaining 2 + 3 + 2 + 200 = 207 > 127 needs a 2-byte varint: 1 + 2 + 207 = 210.
    assert publish_packet_size(topic="a/b", payload_size=200, qos=2) == 210
    # MQTT 5 adds the property length byte.
    assert publish_packet_size(topic="a/b", payload_size=66, qos=1, mqtt5=True) == 76


@pytest.mark.parametrize("value", [0, 127, 128, 16_383, 16_384, 2_097_151, 268_435_455])
def test_varint_has_spec_length_when_encoding_boundaries(value: int) -> None:
    expected = 1 if value < 128 else 2 if value < 16_384 else 3 if value < 2_097_152 else 4
    assert len(varint(value)) == expected


def test_meter_credits_each_publish_to_its_seq_when_written_in_odd_pieces() -> None:
    meter = OutboundMeter(mqtt5=False)
    stream = (
        publish_packet("t/x", seq_payload(0), qos=1, mid=1)
        + b"\x40\x02\x00\x07"  # a PUBACK for an incoming message: not a publish
        + publish_packet("t/x", seq_payload(1, 300), qos=1, mid=2)
    )
    for start in range(0, len(stream), 7):  # partial writes, as a non-blocking send does
        meter.record(stream[start : start + 7])

    assert meter.publish_bytes(0) == publish_packet_size(topic="t/x", payload_size=66, qos=1)
    assert meter.publish_bytes(1) == publish_packet_size(topic="t/x", payload_size=300, qos=1)
    assert meter.bytes_by_type["PUBACK"] == 4
    assert meter.total_bytes == len(stream)


def test_meter_counts_retransmission_for_same_seq_when_dup_is_resent() -> None:
    meter = OutboundMeter(mqtt5=False)
    packet = publish_packet("t/x", seq_payload(5), qos=1)
    meter.record(packet)
    meter.record(publish_packet("t/x", seq_payload(5), qos=1, dup=True))

    assert meter.publish_bytes(5) == 2 * len(packet)


def test_meter_skips_properties_when_protocol_is_mqtt5() -> None:
    meter = OutboundMeter(mqtt5=True)
    meter.record(publish_packet("t/x", seq_payload(9), qos=2, mqtt5=True))

    assert meter.publish_bytes(9) == publish_packet_size(
        topic="t/x", payload_size=66, qos=2, mqtt5=True
    )


def test_meter_reports_zero_when_publish_is_only_partly_written() -> None:
    meter = OutboundMeter(mqtt5=False)
    packet = publish_packet("t/x", seq_payload(3), qos=0)
    meter.record(packet[:20])

    assert meter.publish_bytes(3) == 0
    meter.record(packet[20:])
    assert meter.publish_bytes(3) == len(packet)


def test_meter_credits_tls_bytes_of_each_write_to_the_packet_it_starts_in() -> None:
    # Under TLS each paho send is recorded with the TLS bytes it put on the wire.
    meter = OutboundMeter(mqtt5=False)
    first = publish_packet("t/x", seq_payload(0), qos=1)
    second = publish_packet("t/x", seq_payload(1), qos=1)
    meter.record(first[:10], 10 + 22)  # a partial write, continued in the next call
    meter.record(first[10:], len(first) - 10 + 22)
    meter.record(b"\x40\x02\x00\x07", 4 + 22)  # PUBACK
    meter.record(second, len(second) + 22)

    assert meter.publish_bytes(0) == len(first) + 44
    assert meter.publish_bytes(1) == len(second) + 22
    assert meter.bytes_by_type["PUBACK"] == 26
    assert meter.total_bytes == len(first) + 4 + len(second)
    assert meter.wire_total == meter.total_bytes + 4 * 22
