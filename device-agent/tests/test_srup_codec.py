"""The SRUP message codec against hand-assembled bytes (no cryptography: a stand-in
signature, so each byte of the layout is known)."""

from __future__ import annotations

import re

import pytest

from iotsecbench_agent.srup import (
    TOKEN_BYTES,
    MalformedMessage,
    decode,
    encode_action,
    encode_data,
    new_token,
    sender_of,
)
from iotsecbench_agent.srup.codec import TYPE_ACTION, TYPE_DATA

TOKEN = b"3f2c8a4e-9b1d-4c7e-8f6a-2d5b7c9e1a03"
SIGNATURE = bytes(range(0x40, 0x40 + 10))  # a stand-in: 10 known bytes


class FixedSigner:
    """Records what it was asked to sign and answers SIGNATURE."""

    def __init__(self) -> None:
        self.signed: list[bytes] = []

    def __call__(self, message: bytes) -> bytes:
        self.signed.append(message)
        return SIGNATURE


# Hand-assembled, field by field, from the format in ../shared/DESIGN.md.
HEAD_ACTION = (
    b"\x05"  # version
    + b"\x04"  # type: action
    + bytes([0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01])  # seq 0x0102030405060708, LE
    + bytes([0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01])  # sender 0x0123456789ABCDEF, LE
    + b"\x00\x24"  # token length 36, BE
    + TOKEN
)
SIG_FIELDS = b"\x00\x0a" + SIGNATURE  # signature length 10, BE
ACTION_FIELDS = b"\xff"


def test_action_message_matches_the_hand_assembled_bytes_when_encoded() -> None:
    signer = FixedSigner()
    wire = encode_action(
        sequence_id=0x0102030405060708,
        sender_id=0x0123456789ABCDEF,
        token=TOKEN,
        action=0xFF,
        sign=signer,
    )

    assert wire == HEAD_ACTION + SIG_FIELDS + ACTION_FIELDS
    assert len(wire) == 1 + 1 + 8 + 8 + 2 + 36 + 2 + 10 + 1
    # Signed: the message without the signature length and signature fields.
    assert signer.signed == [HEAD_ACTION + ACTION_FIELDS]


def test_data_message_matches_the_hand_assembled_bytes_when_encoded() -> None:
    signer = FixedSigner()
    data = bytes(300)  # a data length above 255 shows the byte order of the length
    wire = encode_data(
        sequence_id=1, sender_id=2, token=TOKEN, data_id=b"echo", data=data, sign=signer
    )

    head = (
        b"\x05\x05"
        + b"\x01\x00\x00\x00\x00\x00\x00\x00"
        + b"\x02\x00\x00\x00\x00\x00\x00\x00"
        + b"\x00\x24"
        + TOKEN
    )
    fields = b"\x00\x04" + b"echo" + b"\x01\x2c" + data  # 300 = 0x012c, BE
    assert wire == head + SIG_FIELDS + fields
    assert signer.signed == [head + fields]


def test_sequence_and_sender_ids_are_little_endian_when_on_the_wire() -> None:
    wire = encode_action(
        sequence_id=1, sender_id=2**64 - 2, token=TOKEN, action=0, sign=FixedSigner()
    )

    assert wire[2:10] == b"\x01" + bytes(7)
    assert wire[10:18] == b"\xfe" + b"\xff" * 7
    assert sender_of(wire) == 2**64 - 2


def test_token_is_36_bytes_of_uuid_text_when_new() -> None:
    tokens = {new_token() for _ in range(100)}

    assert len(tokens) == 100
    for token in tokens:
        assert len(token) == TOKEN_BYTES == 36
        assert re.fullmatch(
            rb"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", token
        )


def test_decode_returns_every_field_and_the_signed_bytes_when_wellformed() -> None:
    action = decode(HEAD_ACTION + SIG_FIELDS + ACTION_FIELDS)
    assert action.msg_type == TYPE_ACTION
    assert action.sequence_id == 0x0102030405060708
    assert action.sender_id == 0x0123456789ABCDEF
    assert action.token == TOKEN
    assert action.signature == SIGNATURE
    assert action.action == 0xFF
    assert action.data is None
    assert action.signed == HEAD_ACTION + ACTION_FIELDS

    wire = encode_data(
        sequence_id=7, sender_id=9, token=b"t", data_id=b"", data=b"xyz", sign=FixedSigner()
    )
    data = decode(wire)
    assert (data.msg_type, data.sequence_id, data.sender_id, data.token) == (TYPE_DATA, 7, 9, b"t")
    assert (data.data_id, data.data, data.action) == (b"", b"xyz", None)


GOOD = HEAD_ACTION + SIG_FIELDS + ACTION_FIELDS


@pytest.mark.parametrize(
    ("wire", "message"),
    [
        (b"\x06" + GOOD[1:], "version 0x06"),
        (GOOD[:1] + b"\x02" + GOOD[2:], "type 0x02"),
        (GOOD[:15], "too short"),
        (GOOD[:-1], "ends in 1 byte, not 0"),
        (GOOD + b"\x00", "ends in 1 byte, not 2"),
        (GOOD[:18] + b"\x00\x00" + b"\x00\x0a" + SIGNATURE + b"\xff", "empty token"),
        (GOOD[:18] + b"\x01\x00" + TOKEN, "token runs past the end"),
        (GOOD[:56] + b"\x00", "before the signature length"),
    ],
)
def test_decode_raises_malformed_when_fields_do_not_add_up(wire: bytes, message: str) -> None:
    with pytest.raises(MalformedMessage, match=message):
        decode(wire)


def test_decode_raises_malformed_when_a_data_message_has_trailing_bytes() -> None:
    wire = encode_data(
        sequence_id=1, sender_id=2, token=TOKEN, data_id=b"d", data=b"x", sign=FixedSigner()
    )
    with pytest.raises(MalformedMessage, match="1 bytes after the data"):
        decode(wire + b"!")
    with pytest.raises(MalformedMessage, match="data runs past"):
        decode(wire[:-1])


@pytest.mark.parametrize(
    ("sequence_id", "sender_id", "token", "data_id", "data"),
    [
        (2**64, 2, TOKEN, b"d", b"x"),
        (1, -1, TOKEN, b"d", b"x"),
        (1, 2, b"", b"d", b"x"),
        (1, 2, TOKEN, b"d", bytes(0x10000)),
        (1, 2, TOKEN, bytes(0x10000), b"x"),
    ],
)
def test_encode_refuses_fields_when_out_of_range(
    sequence_id: int, sender_id: int, token: bytes, data_id: bytes, data: bytes
) -> None:
    with pytest.raises(ValueError, match=r"64-bit|token|SRUP fields hold"):
        encode_data(
            sequence_id=sequence_id,
            sender_id=sender_id,
            token=token,
            data_id=data_id,
            data=data,
            sign=FixedSigner(),
        )
