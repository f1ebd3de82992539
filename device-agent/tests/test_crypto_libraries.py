"""The crypto library of cipher bench and throughput (``spec.crypto_library``): each library
secures and recovers every mechanism it claims, the libraries put the same bytes on the wire
for the same key and IV, ``openssl-cli`` measures the ``openssl`` process itself, and a
mechanism a library does not provide is refused naming both."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from iotsecbench_contract.cryptolibs import (
    OPENSSL,
    OPENSSL_CLI,
    OPENSSL_CLI_MECHANISMS,
    OPENSSL_MECHANISMS,
    PYCRYPTODOME,
)

from iotsecbench_agent.cipherbench import opensslcli
from iotsecbench_agent.cipherbench.engine import BenchPlan, run_plan
from iotsecbench_agent.errors import UnsupportedJob
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import INTO_SLACK, DecryptError, SecurityError
from iotsecbench_agent.security.registry import MechanismNotProvided
from iotsecbench_agent.security.selftest import FAIL, results
from iotsecbench_agent.storage.samplelog import Sample
from iotsecbench_agent.throughput.plan import ThroughputPlan

SIZES = (0, 1, 15, 16, 17, 1000, 70_000)


class Scripted:
    """The same sequence of IVs and nonces for two mechanisms built alike."""

    def __init__(self) -> None:
        self._n = 0

    def __call__(self, n: int) -> bytes:
        self._n += 1
        return bytes((self._n * 7 + i) % 256 for i in range(n))


class Fixed:
    def __init__(self, value: bytes) -> None:
        self._value = value

    def __call__(self, n: int) -> bytes:
        assert n == len(self._value)
        return self._value


@pytest.mark.parametrize("name", OPENSSL_MECHANISMS)
def test_openssl_library_secures_and_recovers_every_mechanism_it_claims(name: str) -> None:
    mechanism = registry.create(name, library=OPENSSL)
    for size in SIZES:
        payload = os.urandom(size)
        wire = mechanism.secure(payload)
        assert mechanism.unsecure(wire) == payload
        assert len(wire) == size + mechanism.overhead(size)


@pytest.mark.parametrize("name", [n for n in OPENSSL_MECHANISMS if n not in ("none", "null")])
def test_both_libraries_put_the_same_bytes_on_the_wire_for_the_same_key_and_ivs(name: str) -> None:
    key = registry.symmetric_key(registry.describe(name), None, None)
    ours = registry.create(name, key, random_bytes=Scripted(), library=PYCRYPTODOME)
    theirs = registry.create(name, key, random_bytes=Scripted(), library=OPENSSL)
    for size in SIZES:  # CBC: later messages continue each library's chain
        payload = os.urandom(size)
        wire = ours.secure(payload)
        assert theirs.secure(payload) == wire
        assert theirs.unsecure(wire) == payload
        assert ours.unsecure(wire) == payload


def test_openssl_library_refuses_a_tampered_frame() -> None:
    gcm = registry.create("aes-128-gcm", library=OPENSSL)
    wire = bytearray(gcm.secure(b"payload"))
    wire[-1] ^= 1
    with pytest.raises(DecryptError, match="tag does not verify"):
        gcm.unsecure(bytes(wire))
    mac = registry.create("hmac-sha256", library=OPENSSL)
    with pytest.raises(SecurityError, match="MAC does not verify"):
        mac.unsecure(b"x" + mac.secure(b"payload")[1:])


@pytest.mark.parametrize("name", ["aes-128-cbc", "des-cbc", "3des-cbc"])
def test_openssl_cbc_frames_kept_by_the_caller_stay_intact_and_bad_frames_are_refused(
    name: str,
) -> None:
    """OpenSSL's CBC writes each frame into its own buffer: a later message never changes a
    frame (or a plaintext) handed out before."""
    cbc = registry.create(name, library=OPENSSL)
    payloads = [os.urandom(size) for size in (1, 8, 16, 40, 70_000)]
    frames = [cbc.secure(p) for p in payloads]
    copies = [bytes(f) for f in frames]
    plains = [cbc.unsecure(f) for f in frames]
    assert [bytes(f) for f in frames] == copies
    assert plains == payloads
    with pytest.raises(DecryptError, match=r"not a \d+-byte IV and whole blocks"):
        cbc.unsecure(copies[0][:-1])
    block = registry.describe(name).block_bytes
    forged = bytearray(cbc.secure(bytes(block)))  # iv | payload block | padding block
    forged[-block - 1] ^= 1  # the padding's last byte decrypts to block + 1: invalid
    with pytest.raises(DecryptError, match="bad padding"):
        cbc.unsecure(bytes(forged))


@pytest.mark.parametrize("name", ["aes-128-cbc", "aes-256-cbc", "des-cbc", "3des-cbc"])
def test_openssl_cbc_unsecure_into_a_reused_buffer_gives_what_unsecure_gives(
    name: str, cbc_path: str
) -> None:
    """The cipher bench's decrypt (one reused buffer) recovers every payload of every
    length, as ``unsecure`` and pycryptodome's ChainedCbc do, frames taken in any order."""
    key = registry.symmetric_key(registry.describe(name), None, None)
    cbc = registry.create(name, key, library=OPENSSL)
    ours = registry.create(name, key, library=PYCRYPTODOME)
    assert cbc.writes_into
    sizes = [*range(0, 70), 255, 256, 257, 1000, 8191, 8192, 8193, 70_000]
    payloads = [os.urandom(size) for size in sizes]
    frames = [(payload, ours.secure(payload)) for payload in payloads]  # one chain
    out = bytearray(max(len(f) for _, f in frames) + INTO_SLACK)
    for payload, frame in [*frames, *reversed(frames)]:
        view = cbc.unsecure_into(frame, out)
        assert isinstance(view, memoryview)
        assert bytes(view) == payload == cbc.unsecure(frame)
    for payload in payloads:  # and openssl's own frames
        assert bytes(cbc.unsecure_into(cbc.secure(payload), out)) == payload


@pytest.mark.parametrize("name", ["aes-128-cbc", "des-cbc"])
def test_openssl_cbc_unsecure_into_refuses_bad_padding_and_bad_frames(
    name: str, cbc_path: str
) -> None:
    cbc = registry.create(name, library=OPENSSL)
    block = registry.describe(name).block_bytes
    out = bytearray(4 * block + INTO_SLACK)
    for pad_byte in (0, block + 1, 255):
        forged = bytearray(cbc.secure(bytes(block)))  # iv | payload block | padding block
        # The padding block decrypts to block × `block`; flip its last byte to pad_byte.
        forged[-block - 1] ^= block ^ pad_byte
        with pytest.raises(DecryptError, match="bad padding"):
            cbc.unsecure_into(bytes(forged), out)
    zeroed = bytearray(cbc.secure(bytes(3 * block)))  # a padding block of all zeros
    for i in range(len(zeroed) - 2 * block, len(zeroed) - block):
        zeroed[i] ^= block
    with pytest.raises(DecryptError, match="bad padding"):
        cbc.unsecure_into(bytes(zeroed), bytearray(len(zeroed) + INTO_SLACK))
    inconsistent = bytearray(cbc.secure(bytes(block - 2)))  # payload | 0x02 0x02
    inconsistent[-block - 2] ^= 1  # ... 0x03 0x02: claims 2 bytes, they differ
    with pytest.raises(DecryptError, match="bad padding"):
        cbc.unsecure_into(bytes(inconsistent), out)
    with pytest.raises(DecryptError, match=r"not a \d+-byte IV and whole blocks"):
        cbc.unsecure_into(bytes(cbc.secure(b"x"))[:-1], out)
    with pytest.raises(DecryptError, match=r"not a \d+-byte IV and whole blocks"):
        cbc.unsecure_into(bytes(block), out)  # an IV and no block


def test_a_mechanism_without_its_own_unsecure_into_falls_back_to_unsecure() -> None:
    for name, library in (("aes-128-cbc", PYCRYPTODOME), ("aes-128-gcm", OPENSSL)):
        mechanism = registry.create(name, library=library)
        assert not mechanism.writes_into
        out = bytearray(100)
        assert bytes(mechanism.unsecure_into(mechanism.secure(b"payload"), out)) == b"payload"
        assert out == bytearray(100)  # untouched


def test_selftest_runs_the_published_vectors_through_the_openssl_library_too() -> None:
    all_results = list(results())
    openssl = [r for r in all_results if r.library == OPENSSL]

    assert {r.mechanism for r in openssl} >= {"aes-128-cbc", "aes-128-ctr", "aes-128-gcm", "rc4"}
    assert {r.mechanism for r in openssl} <= set(OPENSSL_MECHANISMS)
    assert [r.line() for r in all_results if r.status == FAIL] == []
    assert all(r.line().endswith("[openssl]") for r in openssl)


def test_a_mechanism_missing_in_a_library_is_refused_naming_both() -> None:
    with pytest.raises(
        MechanismNotProvided, match="'ed25519' is not available in crypto library 'openssl'"
    ):
        registry.create("ed25519", library=OPENSSL)
    with pytest.raises(
        UnsupportedJob, match="mechanism 'ed25519' is not available in crypto library 'openssl'"
    ):
        BenchPlan.of(["aes-128-cbc", "ed25519"], [16], 1, OPENSSL)
    with pytest.raises(
        UnsupportedJob, match="'aes-128-gcm' is not available in crypto library 'openssl-cli'"
    ):
        BenchPlan.of(["aes-128-gcm"], [16], 1, OPENSSL_CLI)
    with pytest.raises(UnsupportedJob, match="crypto_library must be one of pycryptodome, openssl"):
        ThroughputPlan.of(["aes-128-cbc"], [16], 1, crypto_library=OPENSSL_CLI)


def test_openssl_library_streams_data_above_the_stream_threshold() -> None:
    plan = BenchPlan.of(["aes-128-gcm", "hmac-sha256", "3des-cbc"], [10_000], 2, OPENSSL)
    samples: list[Sample] = []

    run_plan(plan, emit=samples.append, stream_above=1024, chunk_bytes=4096)

    assert len(samples) == 3 * 2 * 2
    assert all(s.wall_ns > 0 and s.calls == 1 for s in samples)


def test_openssl_cli_ciphertext_is_the_mechanisms_ciphertext_for_the_same_key_and_iv(
    tmp_path: Path,
) -> None:
    data = os.urandom(5000)
    (tmp_path / "in").write_bytes(data)
    for name in OPENSSL_CLI_MECHANISMS:
        if name == "rc4" or name.endswith("-ctr"):
            continue  # keyed/IV'd differently on the command (see opensslcli's module doc)
        info = registry.describe(name)
        key = registry.symmetric_key(info, None, None)
        iv = os.urandom(info.block_bytes)
        argv = opensslcli.enc_argv(name, key, iv, False, tmp_path / "in", tmp_path / "out")
        subprocess.run(argv, check=True, capture_output=True)
        mech = registry.create(name, key, random_bytes=Fixed(iv))

        assert iv + (tmp_path / "out").read_bytes() == mech.secure(data), name


def test_openssl_cli_memory_is_the_openssl_process_not_the_interpreter() -> None:
    cli: list[Sample] = []
    run_plan(BenchPlan.of(["aes-128-cbc", "rc4"], [65_536], 2, OPENSSL_CLI), emit=cli.append)
    python: list[Sample] = []
    run_plan(BenchPlan.of(["aes-128-cbc"], [65_536], 2), emit=python.append)

    assert [(s.mechanism, s.operation, s.repetition) for s in cli[:4]] == [
        ("aes-128-cbc", "encrypt", 0),
        ("aes-128-cbc", "decrypt", 0),
        ("aes-128-cbc", "encrypt", 1),
        ("aes-128-cbc", "decrypt", 1),
    ]
    assert len(cli) == 2 * 2 * 2
    assert all(s.calls == 1 and s.wall_ns > 0 and s.cpu_ns >= 0 for s in cli)
    # openssl's own high-water mark (a few MB) against the child interpreter's (~24 MB here).
    assert max(s.peak_rss_kb for s in cli) * 2 < min(s.peak_rss_kb for s in python)
    assert min(s.peak_rss_kb for s in cli) > 500


def test_openssl_cli_is_refused_without_gnu_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(opensslcli, "GNU_TIME_BIN", "/nonexistent/time")

    with pytest.raises(UnsupportedJob, match="needs GNU time at /nonexistent/time"):
        BenchPlan.of(["aes-128-cbc"], [16], 1, OPENSSL_CLI)
