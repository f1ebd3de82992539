"""What a SRUP endpoint accepts: signature first, then a sequence ID above the last one
from that sender; and the echo peer built on it (no broker)."""

from __future__ import annotations

import pytest

from iotsecbench_agent.security.base import SecurityError, SignatureError
from iotsecbench_agent.srup import (
    MalformedMessage,
    Receiver,
    ReplayedMessage,
    UnknownSender,
    decode,
    encode_action,
    encode_data,
    new_token,
    outcome_of,
)
from iotsecbench_agent.srup.peer import ECHO_DATA_ID, EchoPeer
from iotsecbench_agent.storage.recordlog import REJECTED_REPLAY, REJECTED_SIGNATURE
from srup_golden import CONTROLLER_ID, DEVICE_ID
from test_srup_keys import Keys


def action(keys: Keys, sequence_id: int, signature: str = "rsa-2048") -> bytes:
    return encode_action(
        sequence_id=sequence_id,
        sender_id=CONTROLLER_ID,
        token=new_token(),
        action=0xFF,
        sign=keys["controller", signature].require_signer("controller").sign,
    )


def device_receiver(keys: Keys, signature: str = "rsa-2048") -> Receiver:
    return Receiver({CONTROLLER_ID: keys["controller", signature].verifier})


def outcome(receiver: Receiver, wire: bytes) -> str:
    try:
        receiver.accept(wire)
    except SecurityError as exc:
        return outcome_of(exc)
    return "ok"


def test_receiver_accepts_messages_when_sequence_ids_increase(srup_keys: Keys) -> None:
    receiver = device_receiver(srup_keys)

    assert [receiver.accept(action(srup_keys, s)).sequence_id for s in (1, 2, 5, 6)] == [1, 2, 5, 6]
    assert receiver.last_sequence_id(CONTROLLER_ID) == 6


def test_captured_and_replayed_message_is_rejected_replay_when_received_again(
    srup_keys: Keys,
) -> None:
    receiver = device_receiver(srup_keys)
    captured = action(srup_keys, 1)
    receiver.accept(captured)
    receiver.accept(action(srup_keys, 2))

    with pytest.raises(ReplayedMessage, match=r"sequence ID 1 .* not above the last accepted, 2"):
        receiver.accept(captured)
    # An equal sequence ID is a replay too, signed afresh or not.
    assert outcome(receiver, action(srup_keys, 2)) == REJECTED_REPLAY
    assert receiver.last_sequence_id(CONTROLLER_ID) == 2


def test_sequence_id_zero_is_rejected_replay_when_first(srup_keys: Keys) -> None:
    # Senders count from 1: 0 is never above the (initial) last sequence ID.
    receiver = device_receiver(srup_keys)

    assert outcome(receiver, action(srup_keys, 0)) == REJECTED_REPLAY
    assert outcome(receiver, action(srup_keys, 1)) == "ok"


@pytest.mark.parametrize("signature", ["rsa-2048", "ed25519"])
def test_every_single_flipped_bit_is_rejected_signature_when_received(
    srup_keys: Keys, signature: str
) -> None:
    receiver = device_receiver(srup_keys, signature)
    wire = action(srup_keys, 1, signature)
    outcomes = set()
    for bit in range(len(wire) * 8):
        flipped = bytearray(wire)
        flipped[bit // 8] ^= 1 << (bit % 8)
        outcomes.add(outcome(receiver, bytes(flipped)))

    assert outcomes == {REJECTED_SIGNATURE}
    assert receiver.last_sequence_id(CONTROLLER_ID) == 0  # nothing got through
    receiver.accept(wire)


def test_forgery_does_not_move_the_sequence_id_when_it_fails_to_verify(srup_keys: Keys) -> None:
    receiver = device_receiver(srup_keys)
    # A sequence ID near the top, signed with the wrong key: if it counted, every later
    # genuine message would look like a replay.
    forged = encode_action(
        sequence_id=2**64 - 1,
        sender_id=CONTROLLER_ID,
        token=new_token(),
        action=0,
        sign=srup_keys["device", "rsa-2048"].require_signer("device").sign,
    )

    with pytest.raises(SignatureError):
        receiver.accept(forged)
    receiver.accept(action(srup_keys, 1))


def test_message_from_an_unknown_sender_is_rejected_signature_when_received(
    srup_keys: Keys,
) -> None:
    receiver = Receiver({DEVICE_ID: srup_keys["device", "rsa-2048"].verifier})

    with pytest.raises(UnknownSender, match=f"{CONTROLLER_ID:016x}"):
        receiver.accept(action(srup_keys, 1))
    with pytest.raises(MalformedMessage):
        receiver.accept(b"not SRUP")
    assert outcome(receiver, action(srup_keys, 1)) == REJECTED_SIGNATURE


def test_sequence_ids_are_kept_per_sender_when_two_send(srup_keys: Keys) -> None:
    receiver = Receiver(
        {
            CONTROLLER_ID: srup_keys["controller", "rsa-2048"].verifier,
            DEVICE_ID: srup_keys["device", "rsa-2048"].verifier,
        }
    )
    receiver.accept(action(srup_keys, 5))
    reply = encode_data(
        sequence_id=1,
        sender_id=DEVICE_ID,
        token=new_token(),
        data_id=b"echo",
        data=b"x",
        sign=srup_keys["device", "rsa-2048"].require_signer("device").sign,
    )

    assert receiver.accept(reply).sequence_id == 1  # 1 < 5, but from another sender
    assert receiver.last_sequence_id(CONTROLLER_ID) == 5


def echo_peer(keys: Keys) -> EchoPeer:
    return EchoPeer(
        device_id=DEVICE_ID,
        signer=keys["device", "rsa-2048"].require_signer("device"),
        receiver=device_receiver(keys),
    )


def test_echo_peer_answers_with_a_device_signed_data_message_when_request_verifies(
    srup_keys: Keys,
) -> None:
    peer = echo_peer(srup_keys)
    request = action(srup_keys, 1)
    controller = Receiver({DEVICE_ID: srup_keys["device", "rsa-2048"].verifier})

    reply = peer.answer(request)

    assert reply is not None
    message = controller.accept(reply)
    assert message.token == decode(request).token
    assert (message.sender_id, message.sequence_id) == (DEVICE_ID, 1)
    assert (message.data_id, message.data) == (ECHO_DATA_ID, b"\xff")
    assert peer.answer(reply) is None  # its own reply, routed back to it
    assert not peer.rejected


def test_echo_peer_counts_and_ignores_a_request_when_it_is_refused(srup_keys: Keys) -> None:
    peer = echo_peer(srup_keys)
    request = action(srup_keys, 1)
    assert peer.answer(request) is not None
    tampered = bytearray(action(srup_keys, 2))
    tampered[-1] ^= 0x01

    assert peer.answer(request) is None
    assert peer.answer(bytes(tampered)) is None
    assert peer.rejected == {REJECTED_REPLAY: 1, REJECTED_SIGNATURE: 1}
