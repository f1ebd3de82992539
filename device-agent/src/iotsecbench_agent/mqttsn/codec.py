"""MQTT-SN 1.2 messages as bytes, and back (the spec's §5, "Message Formats").

Every message is ``Length | MsgType | variable part`` (§5.2). Length counts the whole
message, itself included, and is one octet for messages of up to 255 octets, or three
octets, ``0x01`` then the length as 16 bits big-endian, for up to 65535 (§5.2.1).
``encode`` uses the short form whenever it fits, as the spec allows; ``decode`` reads both
(a small message in the long form is valid too).

The messages here are the ones a client and a transparent gateway exchange for
connecting, registering topics, publishing at QoS −1, 0 and 1, subscribing, keep-alive and
disconnecting, plus gateway discovery (§5.4.1–5.4.3) and QoS 2's PUBREC/PUBREL/PUBCOMP
(§5.4.14). The will messages (§5.4.6–5.4.9, §5.4.22–5.4.25) and the forwarder
encapsulation (§5.5) are not implemented: ``decode`` raises ``UnsupportedMessage`` for
them, so a gateway can answer "not supported".

Topic ids (§5.3.11, §6.7): a ``normal`` id is assigned by REGISTER/REGACK or SUBACK, a
``predefined`` id is known in advance by both sides, and a ``short`` topic name is a
two-character topic name carried in the two TopicId octets itself (``short_topic_id``).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar, TypeVar, Union, get_args

# §5.2.2, Table 3: MsgType values.
ADVERTISE = 0x00
SEARCHGW = 0x01
GWINFO = 0x02
CONNECT = 0x04
CONNACK = 0x05
REGISTER = 0x0A
REGACK = 0x0B
PUBLISH = 0x0C
PUBACK = 0x0D
PUBCOMP = 0x0E
PUBREC = 0x0F
PUBREL = 0x10
SUBSCRIBE = 0x12
SUBACK = 0x13
UNSUBSCRIBE = 0x14
UNSUBACK = 0x15
PINGREQ = 0x16
PINGRESP = 0x17
DISCONNECT = 0x18
# Defined by the spec, not implemented here (will handling, forwarder encapsulation).
UNSUPPORTED_TYPES = {
    0x06: "WILLTOPICREQ",
    0x07: "WILLTOPIC",
    0x08: "WILLMSGREQ",
    0x09: "WILLMSG",
    0x1A: "WILLTOPICUPD",
    0x1B: "WILLTOPICRESP",
    0x1C: "WILLMSGUPD",
    0x1D: "WILLMSGRESP",
    0xFE: "Encapsulated message",
}

# §5.3.10, Table 5: ReturnCode values.
ACCEPTED = 0x00
REJECTED_CONGESTION = 0x01
REJECTED_INVALID_TOPIC_ID = 0x02
REJECTED_NOT_SUPPORTED = 0x03
RETURN_CODES = {
    ACCEPTED: "accepted",
    REJECTED_CONGESTION: "rejected: congestion",
    REJECTED_INVALID_TOPIC_ID: "rejected: invalid topic ID",
    REJECTED_NOT_SUPPORTED: "rejected: not supported",
}

# §5.3.4, Table 4: the TopicIdType values of the Flags octet.
TOPIC_NORMAL = 0b00
TOPIC_PREDEFINED = 0b01
TOPIC_SHORT = 0b10
TOPIC_ID_TYPES = (TOPIC_NORMAL, TOPIC_PREDEFINED, TOPIC_SHORT)

PROTOCOL_ID = 0x01  # §5.3.8: the only ProtocolId of MQTT-SN 1.2
SHORT_LENGTH_MAX = 255  # the longest message the 1-octet Length can give (§5.2.1)
LONG_LENGTH_MARK = 0x01
MAX_MESSAGE_BYTES = 65535  # the 3-octet Length's largest value (§5.2.1)
# The 0x0000 and 0xFFFF topic ids are reserved (§5.3.11); 0x0000 also means "no id".
MAX_TOPIC_ID = 0xFFFE
_QOS_BITS = {0: 0b00, 1: 0b01, 2: 0b10, -1: 0b11}  # §5.3.4: QoS −1 is 0b11
_BITS_QOS = {bits: qos for qos, bits in _QOS_BITS.items()}


class CodecError(ValueError):
    """Bytes that are not a well-formed MQTT-SN 1.2 message, or a message that cannot be
    encoded (a field out of range, too long for one message)."""


class UnsupportedMessage(CodecError):
    """A well-formed header of a message type this codec does not implement."""

    def __init__(self, msg_type: int) -> None:
        name = UNSUPPORTED_TYPES.get(msg_type, f"reserved type 0x{msg_type:02x}")
        super().__init__(f"MQTT-SN message {name} is not supported")
        self.msg_type = msg_type


@dataclass(frozen=True)
class Flags:
    """The Flags octet (§5.3.4): DUP (bit 7), QoS (bits 6–5; −1 is 0b11), Retain (4),
    Will (3), CleanSession (2), TopicIdType (bits 1–0)."""

    dup: bool = False
    qos: int = 0
    retain: bool = False
    will: bool = False
    clean_session: bool = False
    topic_id_type: int = TOPIC_NORMAL

    def to_byte(self) -> int:
        if self.qos not in _QOS_BITS:
            raise CodecError(f"QoS {self.qos} does not exist in MQTT-SN (-1, 0, 1, 2)")
        if self.topic_id_type not in TOPIC_ID_TYPES:
            raise CodecError(f"TopicIdType {self.topic_id_type} is reserved")
        return (
            (self.dup << 7)
            | (_QOS_BITS[self.qos] << 5)
            | (self.retain << 4)
            | (self.will << 3)
            | (self.clean_session << 2)
            | self.topic_id_type
        )

    @classmethod
    def from_byte(cls, value: int) -> Flags:
        topic_id_type = value & 0b11
        if topic_id_type not in TOPIC_ID_TYPES:
            raise CodecError("TopicIdType 0b11 is reserved")
        return cls(
            dup=bool(value & 0x80),
            qos=_BITS_QOS[(value >> 5) & 0b11],
            retain=bool(value & 0x10),
            will=bool(value & 0x08),
            clean_session=bool(value & 0x04),
            topic_id_type=topic_id_type,
        )


def short_topic_id(name: str) -> int:
    """The TopicId octets of a short topic name (§6.7): its two characters' bytes."""
    raw = name.encode("utf-8")
    if len(raw) != 2:
        raise CodecError(f"a short topic name is exactly 2 bytes, {name!r} is {len(raw)}")
    return int.from_bytes(raw, "big")


def short_topic_name(topic_id: int) -> str:
    """The short topic name carried in a TopicId field (§6.7)."""
    try:
        return _u16(topic_id, "TopicId").decode("utf-8")
    except UnicodeDecodeError:
        raise CodecError(f"short topic name 0x{topic_id:04x} is not UTF-8") from None


def _u16(value: int, what: str) -> bytes:
    if not 0 <= value <= 0xFFFF:
        raise CodecError(f"{what} {value} does not fit in two octets")
    return value.to_bytes(2, "big")


def _u8(value: int, what: str) -> bytes:
    if not 0 <= value <= 0xFF:
        raise CodecError(f"{what} {value} does not fit in one octet")
    return bytes((value,))


def _text(raw: bytes, what: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise CodecError(f"{what} is not UTF-8") from None


def _need(body: bytes, size: int, name: str, exact: bool = True) -> None:
    if len(body) < size or (exact and len(body) != size):
        raise CodecError(f"{name} has a variable part of {len(body)} octets, expected {size}")


# -- the messages (§5.4) ----------------------------------------------------------------

_A = TypeVar("_A", bound="_TopicAck")
_M = TypeVar("_M", bound="_MsgIdOnly")


@dataclass(frozen=True)
class Advertise:
    """§5.4.1: a gateway announces itself every ``duration`` seconds."""

    TYPE: ClassVar[int] = ADVERTISE
    gw_id: int
    duration: int

    def body(self) -> bytes:
        return _u8(self.gw_id, "GwId") + _u16(self.duration, "Duration")

    @classmethod
    def parse(cls, body: bytes) -> Advertise:
        _need(body, 3, "ADVERTISE")
        return cls(gw_id=body[0], duration=int.from_bytes(body[1:3], "big"))


@dataclass(frozen=True)
class SearchGw:
    """§5.4.2: a client looks for a gateway within ``radius`` hops."""

    TYPE: ClassVar[int] = SEARCHGW
    radius: int

    def body(self) -> bytes:
        return _u8(self.radius, "Radius")

    @classmethod
    def parse(cls, body: bytes) -> SearchGw:
        _need(body, 1, "SEARCHGW")
        return cls(radius=body[0])


@dataclass(frozen=True)
class GwInfo:
    """§5.4.3: the answer to SEARCHGW; ``gw_add`` only when a client answers for a
    gateway."""

    TYPE: ClassVar[int] = GWINFO
    gw_id: int
    gw_add: bytes = b""

    def body(self) -> bytes:
        return _u8(self.gw_id, "GwId") + self.gw_add

    @classmethod
    def parse(cls, body: bytes) -> GwInfo:
        _need(body, 1, "GWINFO", exact=False)
        return cls(gw_id=body[0], gw_add=bytes(body[1:]))


@dataclass(frozen=True)
class Connect:
    """§5.4.4: Flags (Will, CleanSession), ProtocolId, Duration (keep-alive, s), ClientId."""

    TYPE: ClassVar[int] = CONNECT
    client_id: str
    duration: int
    clean_session: bool = True
    will: bool = False
    protocol_id: int = PROTOCOL_ID

    def body(self) -> bytes:
        flags = Flags(will=self.will, clean_session=self.clean_session).to_byte()
        return (
            bytes((flags,))
            + _u8(self.protocol_id, "ProtocolId")
            + _u16(self.duration, "Duration")
            + self.client_id.encode("utf-8")
        )

    @classmethod
    def parse(cls, body: bytes) -> Connect:
        _need(body, 4, "CONNECT", exact=False)
        flags = Flags.from_byte(body[0])
        return cls(
            client_id=_text(body[4:], "ClientId"),
            duration=int.from_bytes(body[2:4], "big"),
            clean_session=flags.clean_session,
            will=flags.will,
            protocol_id=body[1],
        )


@dataclass(frozen=True)
class Connack:
    """§5.4.5."""

    TYPE: ClassVar[int] = CONNACK
    return_code: int

    def body(self) -> bytes:
        return _u8(self.return_code, "ReturnCode")

    @classmethod
    def parse(cls, body: bytes) -> Connack:
        _need(body, 1, "CONNACK")
        return cls(return_code=body[0])


@dataclass(frozen=True)
class Register:
    """§5.4.10: sent by a client with ``topic_id`` 0x0000 to ask for an id, or by a gateway
    to tell a client the id it will use for a topic name."""

    TYPE: ClassVar[int] = REGISTER
    topic_id: int
    msg_id: int
    topic_name: str

    def body(self) -> bytes:
        return (
            _u16(self.topic_id, "TopicId")
            + _u16(self.msg_id, "MsgId")
            + self.topic_name.encode("utf-8")
        )

    @classmethod
    def parse(cls, body: bytes) -> Register:
        _need(body, 4, "REGISTER", exact=False)
        return cls(
            topic_id=int.from_bytes(body[0:2], "big"),
            msg_id=int.from_bytes(body[2:4], "big"),
            topic_name=_text(body[4:], "TopicName"),
        )


@dataclass(frozen=True)
class _TopicAck:
    """TopicId, MsgId, ReturnCode: the variable part of REGACK (§5.4.11) and PUBACK
    (§5.4.13)."""

    TYPE: ClassVar[int]
    topic_id: int
    msg_id: int
    return_code: int

    def body(self) -> bytes:
        return (
            _u16(self.topic_id, "TopicId")
            + _u16(self.msg_id, "MsgId")
            + _u8(self.return_code, "ReturnCode")
        )

    @classmethod
    def parse(cls: type[_A], body: bytes) -> _A:
        _need(body, 5, cls.__name__.upper())
        return cls(
            topic_id=int.from_bytes(body[0:2], "big"),
            msg_id=int.from_bytes(body[2:4], "big"),
            return_code=body[4],
        )


@dataclass(frozen=True)
class Regack(_TopicAck):
    """§5.4.11."""

    TYPE: ClassVar[int] = REGACK


@dataclass(frozen=True)
class Publish:
    """§5.4.12: Flags (DUP, QoS, Retain, TopicIdType), TopicId, MsgId (0x0000 unless QoS 1
    or 2), Data."""

    TYPE: ClassVar[int] = PUBLISH
    topic_id: int
    msg_id: int
    data: bytes
    qos: int = 0
    topic_id_type: int = TOPIC_NORMAL
    retain: bool = False
    dup: bool = False

    def body(self) -> bytes:
        flags = Flags(
            dup=self.dup, qos=self.qos, retain=self.retain, topic_id_type=self.topic_id_type
        )
        return (
            bytes((flags.to_byte(),))
            + _u16(self.topic_id, "TopicId")
            + _u16(self.msg_id, "MsgId")
            + self.data
        )

    @classmethod
    def parse(cls, body: bytes) -> Publish:
        _need(body, 5, "PUBLISH", exact=False)
        flags = Flags.from_byte(body[0])
        return cls(
            topic_id=int.from_bytes(body[1:3], "big"),
            msg_id=int.from_bytes(body[3:5], "big"),
            data=bytes(body[5:]),
            qos=flags.qos,
            topic_id_type=flags.topic_id_type,
            retain=flags.retain,
            dup=flags.dup,
        )


@dataclass(frozen=True)
class Puback(_TopicAck):
    """§5.4.13: acknowledges a QoS 1 PUBLISH, or rejects any PUBLISH (``return_code``)."""

    TYPE: ClassVar[int] = PUBACK


@dataclass(frozen=True)
class _MsgIdOnly:
    """§5.4.14 (PUBREC, PUBREL, PUBCOMP) and §5.4.18 (UNSUBACK): just a MsgId."""

    TYPE: ClassVar[int]
    msg_id: int

    def body(self) -> bytes:
        return _u16(self.msg_id, "MsgId")

    @classmethod
    def parse(cls: type[_M], body: bytes) -> _M:
        _need(body, 2, cls.__name__.upper())
        return cls(msg_id=int.from_bytes(body, "big"))


@dataclass(frozen=True)
class Pubrec(_MsgIdOnly):
    """§5.4.14."""

    TYPE: ClassVar[int] = PUBREC


@dataclass(frozen=True)
class Pubrel(_MsgIdOnly):
    """§5.4.14."""

    TYPE: ClassVar[int] = PUBREL


@dataclass(frozen=True)
class Pubcomp(_MsgIdOnly):
    """§5.4.14."""

    TYPE: ClassVar[int] = PUBCOMP


@dataclass(frozen=True)
class Unsuback(_MsgIdOnly):
    """§5.4.18."""

    TYPE: ClassVar[int] = UNSUBACK


def _topic_field(topic_id_type: int, topic_name: str, topic_id: int) -> bytes:
    """SUBSCRIBE/UNSUBSCRIBE's last field (§5.4.15): a TopicName of any length for normal
    topics, two octets otherwise (the predefined id, or the short name's characters)."""
    if topic_id_type == TOPIC_NORMAL:
        return topic_name.encode("utf-8")
    if topic_id_type == TOPIC_SHORT:
        return _u16(short_topic_id(topic_name), "TopicId")
    return _u16(topic_id, "TopicId")


def _parse_topic_field(topic_id_type: int, raw: bytes, name: str) -> tuple[str, int]:
    if topic_id_type == TOPIC_NORMAL:
        return _text(raw, "TopicName"), 0
    _need(raw, 2, f"{name}'s TopicId")
    topic_id = int.from_bytes(raw, "big")
    if topic_id_type == TOPIC_SHORT:
        return short_topic_name(topic_id), 0
    return "", topic_id


@dataclass(frozen=True)
class Subscribe:
    """§5.4.15: Flags (DUP, QoS, TopicIdType), MsgId, then a topic name (normal: any
    length, may hold wildcards; short: 2 characters) or a predefined ``topic_id``."""

    TYPE: ClassVar[int] = SUBSCRIBE
    msg_id: int
    topic_id_type: int = TOPIC_NORMAL
    topic_name: str = ""
    topic_id: int = 0
    qos: int = 0
    dup: bool = False

    def body(self) -> bytes:
        flags = Flags(dup=self.dup, qos=self.qos, topic_id_type=self.topic_id_type)
        return (
            bytes((flags.to_byte(),))
            + _u16(self.msg_id, "MsgId")
            + _topic_field(self.topic_id_type, self.topic_name, self.topic_id)
        )

    @classmethod
    def parse(cls, body: bytes) -> Subscribe:
        _need(body, 3, "SUBSCRIBE", exact=False)
        flags = Flags.from_byte(body[0])
        name, topic_id = _parse_topic_field(flags.topic_id_type, body[3:], "SUBSCRIBE")
        return cls(
            msg_id=int.from_bytes(body[1:3], "big"),
            topic_id_type=flags.topic_id_type,
            topic_name=name,
            topic_id=topic_id,
            qos=flags.qos,
            dup=flags.dup,
        )


@dataclass(frozen=True)
class Suback:
    """§5.4.16: Flags (granted QoS), TopicId (the id the gateway will publish a normal,
    wildcard-free topic with; 0x0000 otherwise), MsgId, ReturnCode."""

    TYPE: ClassVar[int] = SUBACK
    qos: int
    topic_id: int
    msg_id: int
    return_code: int

    def body(self) -> bytes:
        return (
            bytes((Flags(qos=self.qos).to_byte(),))
            + _u16(self.topic_id, "TopicId")
            + _u16(self.msg_id, "MsgId")
            + _u8(self.return_code, "ReturnCode")
        )

    @classmethod
    def parse(cls, body: bytes) -> Suback:
        _need(body, 6, "SUBACK")
        return cls(
            qos=Flags.from_byte(body[0]).qos,
            topic_id=int.from_bytes(body[1:3], "big"),
            msg_id=int.from_bytes(body[3:5], "big"),
            return_code=body[5],
        )


@dataclass(frozen=True)
class Unsubscribe:
    """§5.4.17: as SUBSCRIBE, with the QoS and DUP flags unused."""

    TYPE: ClassVar[int] = UNSUBSCRIBE
    msg_id: int
    topic_id_type: int = TOPIC_NORMAL
    topic_name: str = ""
    topic_id: int = 0

    def body(self) -> bytes:
        flags = Flags(topic_id_type=self.topic_id_type)
        return (
            bytes((flags.to_byte(),))
            + _u16(self.msg_id, "MsgId")
            + _topic_field(self.topic_id_type, self.topic_name, self.topic_id)
        )

    @classmethod
    def parse(cls, body: bytes) -> Unsubscribe:
        _need(body, 3, "UNSUBSCRIBE", exact=False)
        flags = Flags.from_byte(body[0])
        name, topic_id = _parse_topic_field(flags.topic_id_type, body[3:], "UNSUBSCRIBE")
        return cls(
            msg_id=int.from_bytes(body[1:3], "big"),
            topic_id_type=flags.topic_id_type,
            topic_name=name,
            topic_id=topic_id,
        )


@dataclass(frozen=True)
class Pingreq:
    """§5.4.19: ClientId only from a sleeping client that wakes up (§6.14)."""

    TYPE: ClassVar[int] = PINGREQ
    client_id: str = ""

    def body(self) -> bytes:
        return self.client_id.encode("utf-8")

    @classmethod
    def parse(cls, body: bytes) -> Pingreq:
        return cls(client_id=_text(body, "ClientId"))


@dataclass(frozen=True)
class Pingresp:
    """§5.4.20."""

    TYPE: ClassVar[int] = PINGRESP

    def body(self) -> bytes:
        return b""

    @classmethod
    def parse(cls, body: bytes) -> Pingresp:
        _need(body, 0, "PINGRESP")
        return cls()


@dataclass(frozen=True)
class Disconnect:
    """§5.4.21: ``duration`` (seconds) only from a client going to sleep (§6.14)."""

    TYPE: ClassVar[int] = DISCONNECT
    duration: int | None = None

    def body(self) -> bytes:
        return b"" if self.duration is None else _u16(self.duration, "Duration")

    @classmethod
    def parse(cls, body: bytes) -> Disconnect:
        if not body:
            return cls()
        _need(body, 2, "DISCONNECT")
        return cls(duration=int.from_bytes(body, "big"))


Message = Union[
    Advertise,
    SearchGw,
    GwInfo,
    Connect,
    Connack,
    Register,
    Regack,
    Publish,
    Puback,
    Pubrec,
    Pubrel,
    Pubcomp,
    Subscribe,
    Suback,
    Unsubscribe,
    Unsuback,
    Pingreq,
    Pingresp,
    Disconnect,
]

_CLASSES: dict[int, type[Message]] = {cls.TYPE: cls for cls in get_args(Message)}


def header(total: int) -> bytes:
    """The Length field (§5.2.1) of a message of ``total`` octets, Length included: the
    caller has counted 1 octet for a total up to 255 and 3 above."""
    if total <= SHORT_LENGTH_MAX:
        return bytes((total,))
    if total > MAX_MESSAGE_BYTES:
        raise CodecError(f"an MQTT-SN message is at most {MAX_MESSAGE_BYTES} octets, not {total}")
    return bytes((LONG_LENGTH_MARK,)) + struct.pack(">H", total)


def message_size(body_len: int) -> int:
    """Octets of a message whose MsgType and variable part are ``body_len`` octets: the
    1-octet Length form when the total fits in 255 octets, else the 3-octet form."""
    short = 1 + body_len
    return short if short <= SHORT_LENGTH_MAX else 3 + body_len


def encode(message: Message) -> bytes:
    """The message's octets, with the shorter Length form that fits (§5.2.1)."""
    rest = bytes((message.TYPE,)) + message.body()
    return header(message_size(len(rest))) + rest


def decode(data: bytes) -> Message:
    """The message in ``data`` (one datagram: exactly one message). CodecError if it is
    malformed (its Length disagrees with the datagram's size, a field is short or a
    reserved value is used); UnsupportedMessage for a type not implemented here."""
    if len(data) < 2:
        raise CodecError(f"an MQTT-SN message has at least 2 octets, got {len(data)}")
    if data[0] == LONG_LENGTH_MARK:
        if len(data) < 4:
            raise CodecError("a 3-octet Length needs at least 4 octets")
        length = int.from_bytes(data[1:3], "big")
        start = 3
    else:
        length = data[0]
        start = 1
    if length != len(data):
        raise CodecError(f"Length says {length} octets, the datagram has {len(data)}")
    if data[0] == 0:
        raise CodecError("Length 0x00 is not a valid length")
    msg_type = data[start]
    cls = _CLASSES.get(msg_type)
    if cls is None:
        raise UnsupportedMessage(msg_type)
    return cls.parse(bytes(data[start + 1 :]))


def publish_size(data_len: int) -> int:
    """Octets of a PUBLISH carrying ``data_len`` octets of data (§5.4.12): MsgType, Flags,
    TopicId and MsgId are 6 octets, plus a 1- or 3-octet Length."""
    return message_size(6 + data_len)
