"""The protocol framing formulas, worked by hand from the specifications. (Against the
agent's encoders and packet captures: backend/results/tests/services/test_size_models.py,
device-agent/tests/test_wire_sizes_capture.py.)"""

from __future__ import annotations

from iotsecbench_contract import framing


def test_mqtt_qos1_publish_header_is_6_bytes_around_a_short_topic() -> None:
    # 0x32, remaining length 12, topic length 2, packet id 2: "test/d1" + "1" = 14 bytes.
    header = framing.mqtt_publish_header_bytes(topic_bytes=7, body_bytes=1, qos=1, mqtt5=False)
    assert header == 6
    assert framing.mqtt_publish_header_bytes(topic_bytes=7, body_bytes=1, qos=0, mqtt5=True) == 5


def test_mqtt_remaining_length_takes_another_byte_at_128_and_16384() -> None:
    assert framing.varint_bytes(127) == 1
    assert framing.varint_bytes(128) == 2
    assert framing.varint_bytes(16_383) == 2
    assert framing.varint_bytes(16_384) == 3


def test_coap_uri_path_echo_on_an_ip_literal_is_one_5_byte_option() -> None:
    options = framing.coap_request_options("coap://127.0.0.1:5683/echo")
    assert options == [(framing.COAP_URI_PATH, 4)]
    assert framing.coap_options_bytes(options) == 5


def test_coap_host_name_adds_uri_host_and_deltas_stay_in_the_nibble() -> None:
    options = framing.coap_request_options("coap://example.org/a?b=1")
    # Uri-Host (3) "example.org" 1 + 11, Uri-Path (delta 8) "a" 1 + 1, Uri-Query (delta 4)
    # "b=1" 1 + 3.
    assert framing.coap_options_bytes(options) == 12 + 2 + 4


def test_coap_option_delta_and_length_past_12_take_extended_bytes() -> None:
    # Delta 13 -> 1 extended byte; length 269 -> 2 extended bytes (RFC 7252 §3.1).
    assert framing.coap_options_bytes([(13, 0)]) == 2
    assert framing.coap_options_bytes([(11, 269)]) == 1 + 2 + 269
    assert framing.coap_options_bytes([(300, 1)]) == 1 + 2 + 1


def test_mqttsn_publish_takes_the_3_octet_length_past_255_octets() -> None:
    assert framing.mqttsn_publish_bytes(data_bytes=64) == 71
    assert framing.mqttsn_publish_bytes(data_bytes=248) == 255
    assert framing.mqttsn_publish_bytes(data_bytes=249) == 258
