"""The pycryptodome mechanisms and the registry: round trips, exact overhead, tampering,
interoperability with the standard modes, and key handling."""

from __future__ import annotations

import os

import pytest
from Crypto.Cipher import AES, DES3
from Crypto.PublicKey import ECC, RSA
from Crypto.Util.Padding import unpad
from iotsecbench_contract.mechanisms import AEAD, CIPHER, MAC, SIGNATURE

from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import (
    DecryptError,
    Mechanism,
    MechanismError,
    SecurityError,
    SignatureError,
    UnknownMechanism,
)
from iotsecbench_agent.security.mechanisms import Signature

MAX_LENGTH = 300
LIBRARY_MECHANISMS = [info.name for info in registry.infos() if not info.native]
INTEGRITY_KINDS = (AEAD, MAC, SIGNATURE)


@pytest.fixture(scope="module")
def mechanisms() -> dict[str, Mechanism]:
    """One instance per mechanism for the module (RSA keys come from the registry's
    per-process cache, so RSA-4096 is generated once)."""
    return {name: registry.create(name) for name in LIBRARY_MECHANISMS}


def expected_error(kind: str) -> type[SecurityError]:
    return SignatureError if kind in (MAC, SIGNATURE) else DecryptError


@pytest.mark.parametrize("name", LIBRARY_MECHANISMS)
def test_mechanism_round_trips_every_length_with_exact_overhead_when_unsecured(
    name: str, mechanisms: dict[str, Mechanism]
) -> None:
    mech = mechanisms[name]
    for length in range(MAX_LENGTH + 1):
        payload = os.urandom(length)
        wire = mech.secure(payload)
        assert len(wire) - len(payload) == mech.overhead(length) == mech.info.overhead(length)
        assert mech.unsecure(wire) == payload


@pytest.mark.parametrize("name", LIBRARY_MECHANISMS)
def test_mechanism_frames_differ_when_the_same_payload_is_secured_twice(
    name: str, mechanisms: dict[str, Mechanism]
) -> None:
    mech = mechanisms[name]
    payload = b"\x00" * 8 + b"same payload"
    first, second = mech.secure(payload), mech.secure(payload)
    if mech.kind in (CIPHER, AEAD) or name.endswith("-pss"):
        assert first != second  # a fresh IV/nonce per message, a random PSS salt
    else:
        assert first == second  # none, null, HMAC, RSA v1.5, RFC 6979 ECDSA, Ed25519


@pytest.mark.parametrize(
    "name", [n for n in LIBRARY_MECHANISMS if registry.describe(n).kind in INTEGRITY_KINDS]
)
def test_mechanism_refuses_every_single_bit_flip_when_it_has_integrity(
    name: str, mechanisms: dict[str, Mechanism]
) -> None:
    mech = mechanisms[name]
    wire = mech.secure(os.urandom(40))
    error = expected_error(mech.kind)
    # Every byte of the frame, one bit each: payload, nonce, ciphertext, tag, signature.
    for index in range(len(wire)):
        tampered = bytearray(wire)
        tampered[index] ^= 1 << (index % 8)
        with pytest.raises(error):
            mech.unsecure(bytes(tampered))


@pytest.mark.parametrize("name", [n for n in LIBRARY_MECHANISMS if n != "none"])
def test_mechanism_refuses_frames_too_short_for_its_framing_when_truncated(
    name: str, mechanisms: dict[str, Mechanism]
) -> None:
    mech = mechanisms[name]
    wire = mech.secure(b"")
    error = expected_error(mech.kind)
    for length in range(len(wire)):
        with pytest.raises(error):
            mech.unsecure(wire[:length])


@pytest.mark.parametrize("name", ["aes-128-cbc", "des-cbc", "3des-cbc"])
def test_cbc_refuses_bad_padding_when_last_block_is_garbled(
    name: str, mechanisms: dict[str, Mechanism]
) -> None:
    mech = mechanisms[name]
    wire = mech.secure(b"x" * 8)
    refused = 0
    for value in range(256):  # most garbled last blocks decrypt to invalid padding
        try:
            mech.unsecure(wire[:-1] + bytes((value,)))
        except DecryptError:
            refused += 1
    assert refused >= 200


@pytest.mark.parametrize(("name", "bits"), [("aes-128-cbc", 128), ("aes-256-cbc", 256)])
def test_chained_cbc_frames_decrypt_with_a_fresh_standard_cbc_when_many_were_sent(
    name: str, bits: int
) -> None:
    key = os.urandom(bits // 8)
    mech = registry.create(name, key)
    for length in (0, 1, 15, 16, 17, 64, 300):
        wire = mech.secure(os.urandom(length))
        # Interoperability: an ordinary receiver (new CBC object per message) reads it.
        plain = unpad(AES.new(key, AES.MODE_CBC, iv=wire[:16]).decrypt(wire[16:]), 16)
        assert len(plain) == length
        assert mech.unsecure(wire) == plain


def test_chained_3des_frames_decrypt_with_a_fresh_standard_cbc_when_many_were_sent() -> None:
    key = DES3.adjust_key_parity(os.urandom(24))
    mech = registry.create("3des-cbc", key)
    for length in (0, 7, 8, 9, 100):
        payload = os.urandom(length)
        wire = mech.secure(payload)
        assert unpad(DES3.new(key, DES3.MODE_CBC, iv=wire[:8]).decrypt(wire[8:]), 8) == payload


def test_chained_cbc_decrypts_frames_out_of_order_when_echoes_are_late() -> None:
    sender = registry.create("aes-128-cbc", b"k" * 16)
    receiver = registry.create("aes-128-cbc", b"k" * 16)
    frames = [sender.secure(bytes([i]) * i) for i in range(10)]
    for i in (3, 0, 9, 9, 1):  # lost, reordered and duplicated echoes
        assert receiver.unsecure(frames[i]) == bytes([i]) * i


def test_null_mechanism_copies_payload_into_a_frame_when_secured() -> None:
    mech = registry.create("null")
    payload = b"payload"
    wire = mech.secure(payload)

    assert wire == bytes(16) + payload
    assert mech.unsecure(wire) == payload
    with pytest.raises(DecryptError):
        mech.unsecure(bytes(15))


def test_none_mechanism_passes_payload_through_when_secured() -> None:
    mech = registry.create("none")
    assert mech.secure(b"abc") == b"abc" == mech.unsecure(b"abc")
    assert mech.overhead(100) == 0


def test_rc4_keys_each_message_with_key_and_nonce_when_secured() -> None:
    from Crypto.Cipher import ARC4

    key = os.urandom(16)
    wire = registry.create("rc4", key).secure(b"attack at dawn")
    assert ARC4.new(key + wire[:16]).decrypt(wire[16:]) == b"attack at dawn"


@pytest.mark.parametrize(
    ("name", "key_len"),
    [
        ("aes-128-cbc", 15),
        ("aes-192-ctr", 16),
        ("aes-256-gcm", 16),
        ("des-cbc", 16),
        ("3des-cbc", 16),  # 2-key 3DES is not what 3des-cbc means
        ("rc4", 32),
        ("chacha20-poly1305", 16),
    ],
)
def test_registry_refuses_key_when_length_is_wrong(name: str, key_len: int) -> None:
    with pytest.raises(MechanismError, match=r"needs a \d+-byte key"):
        registry.create(name, os.urandom(key_len))


def test_registry_refuses_3des_key_when_it_degenerates_to_des() -> None:
    k = os.urandom(8)
    with pytest.raises(MechanismError, match="3des-cbc"):
        registry.create("3des-cbc", k * 3)


def test_registry_refuses_name_when_unknown() -> None:
    with pytest.raises(UnknownMechanism, match="aes-512-cbc"):
        registry.create("aes-512-cbc")
    with pytest.raises(UnknownMechanism):
        registry.describe("nope")


def test_registry_refuses_key_when_mechanism_takes_none() -> None:
    with pytest.raises(MechanismError, match="takes no key"):
        registry.create("null", b"\x01")


def test_registry_derives_same_key_when_seed_repeats() -> None:
    payload = b"p" * 20
    a = registry.create("hmac-sha256", seed=7)
    b = registry.create("hmac-sha256", seed=7)
    c = registry.create("hmac-sha256", seed=8)
    assert a.secure(payload) == b.secure(payload) != c.secure(payload)
    e1, e2 = registry.create("ed25519", seed=1), registry.create("ed25519", seed=1)
    assert e1.secure(payload) == e2.secure(payload)


SIGNATURE_MECHANISMS = [
    info.name for info in registry.infos() if info.kind == SIGNATURE and not info.native
]


@pytest.mark.parametrize("name", SIGNATURE_MECHANISMS)
def test_signature_mechanism_signs_and_verifies_detached_as_it_secures_when_asked(
    name: str, mechanisms: dict[str, Mechanism]
) -> None:
    mech = mechanisms[name]
    assert isinstance(mech, Signature)
    message = b"signed apart from the message"
    signature = mech.sign(message)

    assert len(signature) == mech.signature_bytes == mech.overhead(len(message))
    mech.verify(message, signature)
    # secure is payload || sign(payload): its signature verifies detached, and vice versa.
    secured = mech.secure(message)
    mech.verify(message, secured[len(message) :])
    assert mech.unsecure(message + signature) == message
    flipped = bytes([signature[0] ^ 0x01]) + signature[1:]
    with pytest.raises(SignatureError):
        mech.verify(message, flipped)
    with pytest.raises(SignatureError):
        mech.verify(message + b"!", signature)


def test_registry_caches_generated_rsa_key_when_created_twice() -> None:
    a = registry.create("rsa-2048-pkcs1v15")
    b = registry.create("rsa-2048-pss")
    # The same cached key pair: b verifies nothing of a's scheme, but both verify each
    # other's PKCS#1 v1.5 signatures through a third instance.
    c = registry.create("rsa-2048-pkcs1v15")
    assert c.unsecure(a.secure(b"m")) == b"m"
    assert b.unsecure(b.secure(b"m")) == b"m"


def test_rsa_mechanism_uses_given_key_and_refuses_wrong_size_when_key_is_pem() -> None:
    key = RSA.generate(2048)
    mech = registry.create("rsa-2048-pss", key.export_key("PEM"))
    verifier = registry.create("rsa-2048-pss", key.public_key().export_key("DER"))
    assert verifier.unsecure(mech.secure(b"hello")) == b"hello"
    with pytest.raises(MechanismError, match="public key"):
        verifier.secure(b"hello")
    with pytest.raises(MechanismError, match="3072-bit"):
        registry.create("rsa-3072-pss", key.export_key("PEM"))
    with pytest.raises(MechanismError, match="not a PEM or DER"):
        registry.create("rsa-2048-pss", b"garbage")


def test_ecdsa_mechanism_accepts_pem_and_refuses_other_curve_when_key_given() -> None:
    key = ECC.generate(curve="P-256")
    mech = registry.create("ecdsa-p256", key.export_key(format="PEM").encode())
    assert mech.unsecure(mech.secure(b"x")) == b"x"
    other = ECC.generate(curve="P-384").export_key(format="DER")
    with pytest.raises(MechanismError, match="P-256"):
        registry.create("ecdsa-p256", other)


def test_mechanism_info_describes_overhead_without_building_when_described() -> None:
    cbc = registry.describe("aes-128-cbc")
    assert [cbc.overhead(n) for n in (0, 15, 16, 17)] == [32, 17, 32, 31]
    assert registry.describe("3des-cbc").key_bits == 168
    assert registry.describe("rsa-4096-pss").overhead(10) == 512
    assert registry.describe("ascon-aead128").native
    assert repr(registry.create("aes-128-gcm", b"K" * 16)) == "<AesGcm aes-128-gcm>"
