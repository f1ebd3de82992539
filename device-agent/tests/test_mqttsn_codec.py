"""The MQTT-SN 1.2 codec against byte strings written out from the spec's tables (§5)."""

from __future__ import annotations

import pytest

from iotsecbench_agent.mqttsn import codec

# (message, its octets): Length | MsgType | variable part, field by field as in §5.4.
VECTORS: list[tuple[codec.Message, str]] = [
    # §5.4.1 ADVERTISE: GwId 1, Duration 900 s.
    (codec.Advertise(gw_id=1, duration=900), "05 00 01 0384"),
    # §5.4.2 SEARCHGW: Radius 1.
    (codec.SearchGw(radius=1), "03 01 01"),
    # §5.4.3 GWINFO from a gateway (no GwAdd), and from a client (GwAdd 127.0.0.1).
    (codec.GwInfo(gw_id=1), "03 02 01"),
    (codec.GwInfo(gw_id=7, gw_add=bytes([127, 0, 0, 1])), "07 02 07 7f000001"),
    # §5.4.4 CONNECT: Flags CleanSession (0x04), ProtocolId 0x01, Duration 60, "dev1".
    (codec.Connect(client_id="dev1", duration=60), "0a 04 04 01 003c 64657631"),
    (codec.Connect(client_id="d", duration=0, clean_session=False), "07 04 00 01 0000 64"),
    # §5.4.5 CONNACK accepted, rejected (congestion).
    (codec.Connack(codec.ACCEPTED), "03 05 00"),
    (codec.Connack(codec.REJECTED_CONGESTION), "03 05 01"),
    # §5.4.10 REGISTER from a client: TopicId 0x0000, MsgId 1, TopicName "a/b".
    (codec.Register(topic_id=0, msg_id=1, topic_name="a/b"), "09 0a 0000 0001 612f62"),
    # §5.4.11 REGACK: TopicId 1, MsgId 1, ReturnCode accepted.
    (codec.Regack(topic_id=1, msg_id=1, return_code=0), "07 0b 0001 0001 00"),
    # §5.4.12 PUBLISH: Flags (DUP|QoS|Retain|TopicIdType), TopicId, MsgId, Data.
    (codec.Publish(topic_id=1, msg_id=0, data=b"hi"), "09 0c 00 0001 0000 6869"),
    (codec.Publish(topic_id=1, msg_id=2, data=b"hi", qos=1), "09 0c 20 0001 0002 6869"),
    (
        codec.Publish(topic_id=1, msg_id=2, data=b"", qos=1, dup=True),
        "07 0c a0 0001 0002",
    ),
    # QoS -1 (0b11) to the short topic name "ab" (TopicIdType 0b10): 0x62.
    (
        codec.Publish(
            topic_id=codec.short_topic_id("ab"),
            msg_id=0,
            data=b"hi",
            qos=-1,
            topic_id_type=codec.TOPIC_SHORT,
        ),
        "09 0c 62 6162 0000 6869",
    ),
    # Retain, predefined topic id 5 (TopicIdType 0b01): 0x11.
    (
        codec.Publish(
            topic_id=5, msg_id=0, data=b"x", retain=True, topic_id_type=codec.TOPIC_PREDEFINED
        ),
        "08 0c 11 0005 0000 78",
    ),
    # §5.4.13 PUBACK: TopicId 1, MsgId 2, rejected: invalid topic ID.
    (codec.Puback(topic_id=1, msg_id=2, return_code=0x02), "07 0d 0001 0002 02"),
    # §5.4.14 PUBREC, PUBREL, PUBCOMP: MsgId 5.
    (codec.Pubrec(msg_id=5), "04 0f 0005"),
    (codec.Pubrel(msg_id=5), "04 10 0005"),
    (codec.Pubcomp(msg_id=5), "04 0e 0005"),
    # §5.4.15 SUBSCRIBE: a topic name with a wildcard at QoS 1, a short name, a
    # predefined id.
    (codec.Subscribe(msg_id=3, topic_name="a/#", qos=1), "08 12 20 0003 612f23"),
    (
        codec.Subscribe(msg_id=3, topic_id_type=codec.TOPIC_SHORT, topic_name="ab"),
        "07 12 02 0003 6162",
    ),
    (
        codec.Subscribe(msg_id=3, topic_id_type=codec.TOPIC_PREDEFINED, topic_id=5),
        "07 12 01 0003 0005",
    ),
    # §5.4.16 SUBACK: granted QoS 1, TopicId 1, MsgId 3, accepted.
    (codec.Suback(qos=1, topic_id=1, msg_id=3, return_code=0), "08 13 20 0001 0003 00"),
    # §5.4.17 UNSUBSCRIBE, §5.4.18 UNSUBACK.
    (codec.Unsubscribe(msg_id=4, topic_name="a/#"), "08 14 00 0004 612f23"),
    (codec.Unsuback(msg_id=4), "04 15 0004"),
    # §5.4.19 PINGREQ without and with ClientId, §5.4.20 PINGRESP.
    (codec.Pingreq(), "02 16"),
    (codec.Pingreq(client_id="dev1"), "06 16 64657631"),
    (codec.Pingresp(), "02 17"),
    # §5.4.21 DISCONNECT without and with Duration.
    (codec.Disconnect(), "02 18"),
    (codec.Disconnect(duration=60), "04 18 003c"),
]


@pytest.mark.parametrize(("message", "octets"), VECTORS, ids=[type(m).__name__ for m, _ in VECTORS])
def test_codec_encodes_each_message_as_the_spec_tables_say(
    message: codec.Message, octets: str
) -> None:
    assert codec.encode(message) == bytes.fromhex(octets)


@pytest.mark.parametrize(("message", "octets"), VECTORS, ids=[type(m).__name__ for m, _ in VECTORS])
def test_codec_decodes_each_message_from_the_spec_tables(
    message: codec.Message, octets: str
) -> None:
    assert codec.decode(bytes.fromhex(octets)) == message


def test_codec_uses_the_three_octet_length_when_a_message_exceeds_255_octets() -> None:
    data = bytes(range(256)) + bytes(44)  # 300 octets of data
    publish = codec.Publish(topic_id=1, msg_id=2, data=data, qos=1)

    octets = codec.encode(publish)

    # 0x01, then 3 + 1 + 1 + 2 + 2 + 300 = 309 = 0x0135 (§5.2.1), then MsgType PUBLISH.
    assert octets[:9] == bytes.fromhex("01 0135 0c 20 0001 0002")
    assert octets[9:] == data
    assert len(octets) == 309 == codec.publish_size(300)
    assert codec.decode(octets) == publish


def test_codec_keeps_the_one_octet_length_up_to_255_octets() -> None:
    largest = codec.encode(codec.Publish(topic_id=1, msg_id=0, data=bytes(248)))
    smallest_long = codec.encode(codec.Publish(topic_id=1, msg_id=0, data=bytes(249)))

    assert (largest[0], len(largest)) == (255, 255)
    assert smallest_long[:3] == bytes.fromhex("01 0102")
    assert len(smallest_long) == 258


def test_codec_decodes_a_small_message_sent_in_the_three_octet_form() -> None:
    # "Messages with lengths smaller than 256 octets may use the shorter 1-octet format":
    # may, so the 3-octet form of a PINGRESP is valid too.
    assert codec.decode(bytes.fromhex("01 0004 17")) == codec.Pingresp()
    assert codec.decode(bytes.fromhex("01 0009 0c 62 6162 0000")) == codec.Publish(
        topic_id=0x6162, msg_id=0, data=b"", qos=-1, topic_id_type=codec.TOPIC_SHORT
    )


def test_codec_refuses_to_encode_a_message_longer_than_65535_octets() -> None:
    fits = codec.Publish(topic_id=1, msg_id=0, data=bytes(65535 - 9))
    too_long = codec.Publish(topic_id=1, msg_id=0, data=bytes(65535 - 8))

    assert len(codec.encode(fits)) == 65535
    with pytest.raises(codec.CodecError, match="65535"):
        codec.encode(too_long)


@pytest.mark.parametrize(
    ("qos", "bits"),
    [(0, 0x00), (1, 0x20), (2, 0x40), (-1, 0x60)],
)
def test_flags_carry_each_qos_level_in_bits_6_and_5(qos: int, bits: int) -> None:
    flags = codec.Flags(qos=qos)

    assert flags.to_byte() == bits
    assert codec.Flags.from_byte(bits) == flags


def test_flags_carry_every_other_bit_of_table_4() -> None:
    flags = codec.Flags(
        dup=True,
        qos=1,
        retain=True,
        will=True,
        clean_session=True,
        topic_id_type=codec.TOPIC_SHORT,
    )

    assert flags.to_byte() == 0b1011_1110
    assert codec.Flags.from_byte(0b1011_1110) == flags


def test_short_topic_names_are_their_two_characters_as_the_topic_id() -> None:
    assert codec.short_topic_id("ab") == 0x6162
    assert codec.short_topic_name(0x6162) == "ab"
    with pytest.raises(codec.CodecError, match="exactly 2 bytes"):
        codec.short_topic_id("abc")


@pytest.mark.parametrize(
    ("octets", "message"),
    [
        ("", "at least 2"),
        ("05 17", "Length says 5"),  # Length disagrees with the datagram
        ("01 0009 17", "Length says 9"),
        ("00 17", "Length says 0"),
        ("04 0c 20 00", "PUBLISH has a variable part of 2"),
        ("09 0c 03 0001 0000 6869", "TopicIdType 0b11"),
        ("06 0d 0001 0002", "PUBACK has a variable part of 4"),
        ("06 12 02 0003 61", "TopicId"),  # a short topic name of 1 octet
    ],
)
def test_decode_refuses_malformed_messages(octets: str, message: str) -> None:
    with pytest.raises(codec.CodecError, match=message):
        codec.decode(bytes.fromhex(octets))


@pytest.mark.parametrize(
    ("octets", "name"), [("02 06", "WILLTOPICREQ"), ("03 1d 00", "WILLMSGRESP"), ("02 03", "0x03")]
)
def test_decode_names_message_types_it_does_not_implement(octets: str, name: str) -> None:
    with pytest.raises(codec.UnsupportedMessage, match=name):
        codec.decode(bytes.fromhex(octets))
