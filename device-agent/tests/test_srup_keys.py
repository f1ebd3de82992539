"""Signing and verifying SRUP messages: RSA-2048 and RSA-4096 PKCS#1 v1.5 over SHA-256, and
the Ed25519 variant, with the TEST-ONLY keys of fixtures/srup/ (loaded once per session)."""

from __future__ import annotations

import pytest
from Crypto.Hash import SHA256
from Crypto.PublicKey import RSA
from Crypto.Signature import pkcs1_15

from iotsecbench_agent.security.base import MechanismError, SignatureError
from iotsecbench_agent.srup import SIGNATURES, PartyKey, decode, encode_data, load_key, new_token
from iotsecbench_agent.srup.keys import SIGNATURE_BYTES
from srup_golden import KEYS

Keys = dict[tuple[str, str], PartyKey]


def request(key: PartyKey) -> bytes:
    return encode_data(
        sequence_id=1,
        sender_id=0x5E4D3C2B1A090807,
        token=new_token(),
        data_id=b"data",
        data=bytes(66),
        sign=key.require_signer("controller").sign,
    )


@pytest.mark.parametrize("signature", SIGNATURES)
def test_message_verifies_with_the_senders_public_key_when_signed(
    srup_keys: Keys, signature: str
) -> None:
    wire = request(srup_keys["controller", signature])
    message = decode(wire)

    assert len(message.signature) == SIGNATURE_BYTES[signature]
    srup_keys["controller", signature].verifier.verify(message.signed, message.signature)
    with pytest.raises(SignatureError):
        srup_keys["device", signature].verifier.verify(message.signed, message.signature)


@pytest.mark.parametrize("signature", ["rsa-2048", "rsa-4096"])
def test_rsa_signature_is_pkcs1v15_over_sha256_when_signed(srup_keys: Keys, signature: str) -> None:
    message = decode(request(srup_keys["controller", signature]))
    private = RSA.import_key((KEYS / f"controller-{signature}.pem").read_bytes())

    assert message.signature == pkcs1_15.new(private).sign(SHA256.new(message.signed))


def test_public_key_verifies_but_cannot_sign_when_loaded() -> None:
    private = RSA.import_key((KEYS / "device-rsa-2048.pem").read_bytes())
    key = load_key("rsa-2048", private.public_key().export_key("DER"), slot="test")

    assert key.signer is None
    with pytest.raises(MechanismError, match="public key"):
        key.require_signer("device")


@pytest.mark.parametrize(
    ("signature", "key_file", "message"),
    [
        ("rsa-4096", "device-rsa-2048.pem", "4096-bit RSA key, got 2048"),
        ("rsa-2048", "device-ed25519.pem", "not a PEM or DER RSA key"),
        ("ed25519", "device-rsa-2048.pem", "Ed25519"),
        ("rsa-1024", "device-rsa-2048.pem", "not supported"),
    ],
)
def test_load_key_refuses_a_key_when_it_does_not_fit_the_signature(
    signature: str, key_file: str, message: str
) -> None:
    with pytest.raises(MechanismError, match=message):
        load_key(signature, (KEYS / key_file).read_bytes(), slot="test")


def test_generated_rsa_keys_differ_by_party_and_are_reused_when_asked_again() -> None:
    controller = load_key("rsa-2048", slot="test-controller").require_signer("controller")
    again = load_key("rsa-2048", slot="test-controller").verifier
    device = load_key("rsa-2048", slot="test-device").verifier
    signed = b"signed bytes"
    signature = controller.sign(signed)

    again.verify(signed, signature)  # the same key pair, generated once
    with pytest.raises(SignatureError):
        device.verify(signed, signature)  # another party, another key pair
