"""SRUP action and data messages on the wire, reimplemented from the format of the SRUP
reference library v6 (Poulter, dstl/srup) as the design notes give it:

    version(1) = 0x05 | type(1) | sequence ID(8, little-endian) | sender ID(8, little-endian)
    | token length(2, big-endian) | token | signature length(2, big-endian) | signature
    | type fields

    type fields of an action message (type 0x04): action(1)
    type fields of a data message (type 0x05):
        data ID length(2, big-endian) | data ID | data length(2, big-endian) | data

The signature covers the message WITHOUT the signature length and signature fields: the
bytes from version to token, followed by the type fields (``Message.signed``). The
reference library writes the 64-bit IDs byte by byte from the least significant (its
``getByteVal``), and every length most significant byte first (``encodeLength``); a token
is a UUID as 36 characters of text.

The codec does no cryptography: ``encode_*`` take the signing function (``sign(signed) ->
signature``; see ``srup.keys``), and ``decode`` returns what the receiver must verify
(``srup.receiver``). ``decode`` is strict: a message must be exactly its fields, so a
corrupted length is found here and not passed on as a shorter or longer message.
"""

from __future__ import annotations

import struct
import uuid
from dataclasses import dataclass
from typing import Callable

from iotsecbench_agent.security.base import SignatureError

VERSION = 0x05
TYPE_ACTION = 0x04
TYPE_DATA = 0x05
TYPE_NAMES = {TYPE_ACTION: "action", TYPE_DATA: "data"}
TOKEN_BYTES = 36  # str(uuid4()): 32 hex digits and 4 dashes
HEADER_BYTES = 18  # version, type, sequence ID, sender ID
SENDER_OFFSET = 10
MAX_FIELD_BYTES = 0xFFFF  # every variable field has a 16-bit length
MAX_ID = 2**64 - 1

_HEADER = struct.Struct("<BBQQ")  # version, type, sequence ID, sender ID (little-endian)
_LENGTH = struct.Struct(">H")  # the length of a variable field (big-endian)
_SENDER = struct.Struct("<Q")

Sign = Callable[[bytes], bytes]


class MalformedMessage(SignatureError):
    """The bytes are not a SRUP v5 action or data message (wrong version or type, or
    lengths that do not add up). Counted as ``rejected_signature``: such bytes cannot carry
    a valid signature, and no field of them can be trusted."""


@dataclass(frozen=True)
class Message:
    """A decoded SRUP message. ``action`` is set for action messages, ``data_id`` and
    ``data`` for data messages. ``signed`` is what ``signature`` must be a signature of."""

    msg_type: int
    sequence_id: int
    sender_id: int
    token: bytes
    signature: bytes
    signed: bytes
    action: int | None = None
    data_id: bytes | None = None
    data: bytes | None = None


def new_token() -> bytes:
    """A fresh token: a random (version 4) UUID as 36 bytes of text, as the reference
    library's ``str(uuid.uuid4())``."""
    return str(uuid.uuid4()).encode("ascii")


def encode_action(
    *, sequence_id: int, sender_id: int, token: bytes, action: int, sign: Sign
) -> bytes:
    """A signed action message (type 0x04) carrying the one-byte ``action``."""
    if not 0 <= action <= 0xFF:
        raise ValueError(f"an action is one byte, got {action}")
    return _encode(TYPE_ACTION, sequence_id, sender_id, token, bytes((action,)), sign)


def encode_data(
    *,
    sequence_id: int,
    sender_id: int,
    token: bytes,
    data_id: bytes,
    data: bytes,
    sign: Sign,
) -> bytes:
    """A signed data message (type 0x05) carrying ``data`` under ``data_id``."""
    _check_length("data ID", data_id)
    _check_length("data", data)
    body = _LENGTH.pack(len(data_id)) + data_id + _LENGTH.pack(len(data)) + data
    return _encode(TYPE_DATA, sequence_id, sender_id, token, body, sign)


def _encode(
    msg_type: int, sequence_id: int, sender_id: int, token: bytes, body: bytes, sign: Sign
) -> bytes:
    if not (0 <= sequence_id <= MAX_ID and 0 <= sender_id <= MAX_ID):
        raise ValueError("sequence and sender IDs are unsigned 64-bit integers")
    if not token:
        raise ValueError("a SRUP message needs a token")
    _check_length("token", token)
    head = _HEADER.pack(VERSION, msg_type, sequence_id, sender_id) + _LENGTH.pack(len(token))
    head += token
    signature = sign(head + body)
    _check_length("signature", signature)
    return head + _LENGTH.pack(len(signature)) + signature + body


def _check_length(what: str, value: bytes) -> None:
    if len(value) > MAX_FIELD_BYTES:
        raise ValueError(f"the {what} is {len(value)} bytes; SRUP fields hold {MAX_FIELD_BYTES}")


def sender_of(wire: bytes) -> int | None:
    """The sender ID of a message without decoding the rest (None if too short): how an
    endpoint skips its own messages, which the broker routes back to it."""
    if len(wire) < HEADER_BYTES:
        return None
    sender: int = _SENDER.unpack_from(wire, SENDER_OFFSET)[0]
    return sender


def decode(wire: bytes) -> Message:
    """The fields of a SRUP action or data message; MalformedMessage if ``wire`` is not
    exactly one. The signature is not checked here."""
    size = len(wire)
    if size < HEADER_BYTES + 2:
        raise MalformedMessage(f"SRUP: {size} bytes are too short for a message")
    version, msg_type, sequence_id, sender_id = _HEADER.unpack_from(wire, 0)
    if version != VERSION:
        raise MalformedMessage(f"SRUP: version 0x{version:02x}, expected 0x{VERSION:02x}")
    if msg_type not in TYPE_NAMES:
        raise MalformedMessage(f"SRUP: message type 0x{msg_type:02x} is not action or data")
    token, pos = _field(wire, HEADER_BYTES, "token")
    head_end = pos
    signature, pos = _field(wire, pos, "signature")
    if not token or not signature:
        raise MalformedMessage("SRUP: empty token or signature")
    body = wire[pos:]
    signed = wire[:head_end] + body
    if msg_type == TYPE_ACTION:
        if len(body) != 1:
            raise MalformedMessage(f"SRUP: an action message ends in 1 byte, not {len(body)}")
        return Message(msg_type, sequence_id, sender_id, token, signature, signed, action=body[0])
    data_id, pos = _field(wire, pos, "data ID")
    data, pos = _field(wire, pos, "data")
    if pos != size:
        raise MalformedMessage(f"SRUP: {size - pos} bytes after the data")
    return Message(
        msg_type, sequence_id, sender_id, token, signature, signed, data_id=data_id, data=data
    )


def _field(wire: bytes, pos: int, what: str) -> tuple[bytes, int]:
    """The length-prefixed field at ``pos`` and the position after it."""
    if pos + 2 > len(wire):
        raise MalformedMessage(f"SRUP: the message ends before the {what} length")
    (length,) = _LENGTH.unpack_from(wire, pos)
    start = pos + 2
    end = start + length
    if end > len(wire):
        raise MalformedMessage(f"SRUP: the {what} runs past the end of the message")
    return wire[start:end], end
