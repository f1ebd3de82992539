"""``Mechanism.secure_into``: the cipher bench's encrypt into one reused buffer puts the
same bytes on the wire as ``secure`` (and as pycryptodome) for the same IVs, each drawn
by one ``random_bytes(block)`` call, and ``unsecure`` recovers them."""

from __future__ import annotations

import os

import pytest
from iotsecbench_contract.cryptolibs import OPENSSL, PYCRYPTODOME

from iotsecbench_agent.cipherbench.child import oneshot_block
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import INTO_SLACK, Mechanism
from iotsecbench_agent.security.openssl_mechanisms import COPY_MAX

CBC = ["aes-128-cbc", "aes-256-cbc", "des-cbc", "3des-cbc"]
SIZES = [
    *range(0, 70),
    255,
    256,
    257,
    1000,
    8191,
    8192,
    8193,
    COPY_MAX - 1,
    COPY_MAX,
    COPY_MAX + 1,
    70_000,
]


class Scripted:
    """A known sequence of IVs; records the length of every draw."""

    def __init__(self) -> None:
        self.draws: list[int] = []

    def __call__(self, n: int) -> bytes:
        self.draws.append(n)
        return bytes((len(self.draws) * 7 + i) % 256 for i in range(n))


def buffer_for(mechanism: Mechanism, size: int) -> bytearray:
    return bytearray(size + mechanism.overhead(size) + INTO_SLACK)


@pytest.mark.parametrize("name", CBC)
def test_secure_into_a_reused_buffer_puts_the_bytes_secure_puts_and_unsecure_recovers_them(
    name: str,
    cbc_path: str,
) -> None:
    key = registry.symmetric_key(registry.describe(name), None, None)
    into_ivs, plain_ivs, ref_ivs = Scripted(), Scripted(), Scripted()
    into = registry.create(name, key, random_bytes=into_ivs, library=OPENSSL)
    plain = registry.create(name, key, random_bytes=plain_ivs, library=OPENSSL)
    ours = registry.create(name, key, random_bytes=ref_ivs, library=PYCRYPTODOME)
    receiver = registry.create(name, key, library=OPENSSL)
    assert into.secures_into
    block = registry.describe(name).block_bytes
    out = buffer_for(into, max(SIZES))
    for size in [*SIZES, *reversed(SIZES)]:  # every size twice, in both directions
        payload = os.urandom(size)
        for _ in range(2):  # a second call on the same buffer and size reuses its layout
            view = into.secure_into(payload, out)
            assert isinstance(view, memoryview)
            wire = bytes(view)
            assert wire == bytes(plain.secure(payload)) == ours.secure(payload)
            assert len(wire) == size + into.overhead(size)
            assert receiver.unsecure(wire) == payload
            assert ours.unsecure(wire) == payload
    assert into_ivs.draws == plain_ivs.draws == [block] * (4 * len(SIZES))


@pytest.mark.parametrize("name", ["aes-128-cbc", "des-cbc"])
def test_secure_into_and_secure_continue_one_chain_across_buffers(name: str, cbc_path: str) -> None:
    """Calls of both kinds on one mechanism, into fresh and reused buffers, stay
    byte-identical to pycryptodome's frames for the same IVs."""
    key = registry.symmetric_key(registry.describe(name), None, None)
    mixed = registry.create(name, key, random_bytes=Scripted(), library=OPENSSL)
    ours = registry.create(name, key, random_bytes=Scripted(), library=PYCRYPTODOME)
    shared = buffer_for(mixed, 70_000)
    for i, size in enumerate([0, 8192, 15, 70_000, 8192, 1, 16, 8192]):
        payload = os.urandom(size)
        if i % 3 == 0:
            wire = bytes(mixed.secure(payload))
        elif i % 3 == 1:
            wire = bytes(mixed.secure_into(payload, shared))
        else:
            wire = bytes(mixed.secure_into(payload, buffer_for(mixed, size)))
        assert wire == ours.secure(payload)
        assert ours.unsecure(wire) == payload


def test_secure_into_refuses_a_buffer_too_short_for_the_frame(cbc_path: str) -> None:
    cbc = registry.create("aes-128-cbc", library=OPENSSL)
    with pytest.raises(ValueError, match="wants a buffer of"):
        cbc.secure_into(bytes(100), bytearray(100))


def test_a_mechanism_without_its_own_secure_into_falls_back_to_secure() -> None:
    for name, library in (("aes-128-cbc", PYCRYPTODOME), ("aes-128-gcm", OPENSSL)):
        key = registry.symmetric_key(registry.describe(name), None, None)
        mechanism = registry.create(name, key, random_bytes=Scripted(), library=library)
        twin = registry.create(name, key, random_bytes=Scripted(), library=library)
        assert not mechanism.secures_into
        out = bytearray(100)
        wire = bytes(mechanism.secure_into(b"payload", out))
        assert wire == twin.secure(b"payload")
        assert mechanism.unsecure(wire) == b"payload"
        assert out == bytearray(100)  # untouched


@pytest.mark.parametrize("size", [0, 16, 8192, 70_000])
def test_the_cipher_bench_block_encrypts_into_one_buffer_and_checks_the_way_back(
    size: int,
    cbc_path: str,
) -> None:
    mechanism = registry.create("aes-128-cbc", library=OPENSSL)
    reps = oneshot_block(mechanism, os.urandom(size), 3, calls=4)
    assert len(reps) == 3
    assert all(fwd_cpu >= 0 and bwd_cpu >= 0 for _, fwd_cpu, _, bwd_cpu in reps)


def test_a_caller_releasing_the_returned_view_does_not_break_the_next_call(cbc_path: str) -> None:
    key = registry.symmetric_key(registry.describe("aes-128-cbc"), None, None)
    cbc = registry.create("aes-128-cbc", key, random_bytes=Scripted(), library=OPENSSL)
    twin = registry.create("aes-128-cbc", key, random_bytes=Scripted(), library=OPENSSL)
    out = buffer_for(cbc, 8192)
    payload = os.urandom(8192)
    for _ in range(3):
        with cbc.secure_into(payload, out) as view:
            assert bytes(view) == bytes(twin.secure(payload))
