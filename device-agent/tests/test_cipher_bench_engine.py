"""The cipher-bench engine (§7): samples per batch from real child processes, the paper's
statistics, streaming that really streams, verification that really fails, and stop."""

from __future__ import annotations

import io
import statistics
import threading
import time

import pytest
from Crypto.Cipher import AES, ChaCha20_Poly1305

from iotsecbench_agent.cipherbench import child as cipherbench_child
from iotsecbench_agent.cipherbench.child import (
    Batch,
    block_repetitions,
    calls_per_repetition,
    oneshot_block,
    oneshot_pass,
    run,
    stream_pass,
)
from iotsecbench_agent.cipherbench.engine import (
    CHUNK_BYTES,
    BenchFailed,
    BenchPlan,
    run_batch,
    run_plan,
    summarize,
)
from iotsecbench_agent.cipherbench.streams import (
    AeadStream,
    CbcStream,
    VerificationFailed,
    generate_key,
    make_stream,
)
from iotsecbench_agent.errors import RunAborted, UnsupportedJob
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import Mechanism
from iotsecbench_agent.storage.samplelog import Sample

MiB = 1 << 20
# Every mechanism but those measuring nothing; RSA-3072/4096 run RSA-2048's code with a
# bigger key, whose generation alone takes seconds.
STREAMABLE = [n for n in registry.names() if n != "none" and not n.startswith(("rsa-3", "rsa-4"))]


def test_engine_emits_both_operations_per_repetition_when_sizes_are_small() -> None:
    plan = BenchPlan.of(["aes-128-cbc", "hmac-sha256", "ed25519"], [16, 1000], repetitions=5)
    samples: list[Sample] = []

    run_plan(plan, emit=samples.append)

    assert len(samples) == plan.total_samples == 3 * 2 * 2 * 5
    ops = {(s.mechanism, s.operation) for s in samples}
    assert ops == {
        ("aes-128-cbc", "encrypt"),
        ("aes-128-cbc", "decrypt"),
        ("hmac-sha256", "sign"),
        ("hmac-sha256", "verify"),
        ("ed25519", "sign"),
        ("ed25519", "verify"),
    }
    for mechanism, size in [(m, s) for m in plan.mechanisms for s in plan.data_sizes]:
        batch = [s for s in samples if (s.mechanism, s.data_bytes) == (mechanism, size)]
        # per repetition: the forward operation, then the backward one
        assert [s.repetition for s in batch] == [r for r in range(5) for _ in range(2)]
        assert all(s.wall_ns > 0 and s.cpu_ns >= 0 for s in batch)
        peaks = [s.peak_rss_kb for s in batch]
        assert 0 < peaks[0] <= peaks[-1] == max(peaks)  # a high-water mark only grows


def test_summaries_are_mean_sample_variance_and_stdev_of_the_wall_times() -> None:
    plan = BenchPlan.of(["aes-128-ctr"], [64], repetitions=7)
    samples: list[Sample] = []
    run_plan(plan, emit=samples.append)

    encrypt, decrypt = summarize(samples)

    walls = [s.wall_ns / 1000 for s in samples if s.operation == "encrypt"]
    assert (encrypt.operation, encrypt.n, decrypt.operation) == ("encrypt", 7, "decrypt")
    assert encrypt.wall_mean_us == pytest.approx(statistics.mean(walls))
    assert encrypt.wall_var_us2 == pytest.approx(statistics.variance(walls))
    assert encrypt.wall_std_us == pytest.approx(statistics.stdev(walls))
    cpus = [s.cpu_ns / 1000 for s in samples if s.operation == "encrypt"]
    assert encrypt.cpu_mean_us == pytest.approx(statistics.mean(cpus))
    assert encrypt.throughput_mb_s == pytest.approx(64 / statistics.mean(walls))


def test_streamed_batch_stays_far_below_its_data_size_in_memory() -> None:
    size = 64 * MiB
    batch = Batch(
        mechanism="aes-128-gcm",
        data_bytes=size,
        repetitions=1,
        key=generate_key("aes-128-gcm"),
        stream=True,
        chunk_bytes=CHUNK_BYTES,
    )
    samples: list[Sample] = []

    run_batch(batch, emit=samples.append)

    assert [(s.operation, s.data_bytes) for s in samples] == [
        ("encrypt", size),
        ("decrypt", size),
    ]
    # Held whole, plaintext + ciphertext alone would be 128 MiB on top of the interpreter.
    assert samples[0].peak_rss_kb * 1024 < size // 2


def test_peak_rss_is_the_childs_own_when_the_parent_is_large() -> None:
    ballast = bytearray(256 * MiB)
    ballast[::4096] = b"\x01" * len(ballast[::4096])  # make the pages resident
    samples: list[Sample] = []

    run_batch(
        Batch("null", 16, repetitions=1, key=b"", stream=False, chunk_bytes=CHUNK_BYTES),
        emit=samples.append,
    )

    # wait4()/RUSAGE_CHILDREN would report this process's 256+ MiB for the child.
    assert samples[0].peak_rss_kb * 1024 < 128 * MiB
    del ballast


@pytest.mark.parametrize("name", STREAMABLE)
def test_streaming_gives_the_data_back_for_every_mechanism(name: str) -> None:
    stream = make_stream(name, generate_key(name))
    buffer = bytes(range(256)) * 16  # 4 KiB chunks: 10000 bytes = 2 whole + 1 partial

    forward, backward = stream_pass(stream, 10_000, buffer)

    assert forward.wall_ns > 0
    assert backward.wall_ns > 0


INTEROPERABLE = [
    n
    for n in STREAMABLE
    # null frames differently; Ed25519 streams as Ed25519ph; Ascon streams in segments.
    if n not in ("null", "ed25519", "ascon-aead128")
]


@pytest.mark.parametrize("name", INTEROPERABLE)
def test_streamed_wire_bytes_are_the_registry_mechanisms_format(name: str) -> None:
    key = generate_key(name)
    stream = make_stream(name, key)
    data = bytes(range(200)) * 5  # one chunk, the last
    stream.start_forward()
    pieces = stream.forward(data, last=True)
    stream.finish_forward()

    wire = stream.header + pieces + stream.trailer

    assert registry.create(name, key=key).unsecure(wire) == data


def test_stream_pass_fails_when_decryption_does_not_give_the_plaintext_back() -> None:
    class Corrupting(CbcStream):
        def backward(self, piece: bytes, last: bool) -> bytes:
            plain = super().backward(piece, last)
            return bytes([plain[0] ^ 1]) + plain[1:]

    key = generate_key("aes-128-cbc")
    stream = Corrupting(lambda iv: AES.new(key, AES.MODE_CBC, iv=iv), AES.block_size)

    with pytest.raises(VerificationFailed, match="did not give the plaintext back"):
        stream_pass(stream, 3 * 4096, bytes(4096))


def test_stream_pass_fails_when_the_aead_tag_does_not_verify() -> None:
    class BadTag(AeadStream):
        def finish_forward(self) -> None:
            super().finish_forward()
            self.trailer = bytes(len(self.trailer))

    key = generate_key("chacha20-poly1305")
    stream = BadTag(lambda nonce: ChaCha20_Poly1305.new(key=key, nonce=nonce))

    with pytest.raises(VerificationFailed, match="tag does not verify"):
        stream_pass(stream, 10_000, bytes(4096))


class _Lossy(Mechanism):
    def secure(self, payload: bytes) -> bytes:
        return payload

    def unsecure(self, data: bytes) -> bytes:
        return data[:-1]


def test_oneshot_pass_fails_when_unsecure_does_not_give_the_payload_back() -> None:
    lossy = _Lossy(registry.describe("null"))

    with pytest.raises(VerificationFailed, match="did not give the payload back"):
        oneshot_pass(lossy, b"x" * 16)


class _Recording(Mechanism):
    """Logs the order of its calls and the frames it was given back; frame n (counting
    from 1) is ``b"n:"`` and the payload."""

    def __init__(self) -> None:
        super().__init__(registry.describe("null"))
        self.calls: list[str] = []
        self.unsecured: list[bytes] = []

    def secure(self, payload: bytes) -> bytes:
        self.calls.append("secure")
        return b"%d:" % self.calls.count("secure") + payload

    def unsecure(self, data: bytes) -> bytes:
        self.calls.append("unsecure")
        self.unsecured.append(data)
        return data.split(b":", 1)[1]


def test_oneshot_block_times_all_forward_calls_then_the_backward_ones_in_order() -> None:
    mech = _Recording()

    timings = oneshot_block(mech, b"x" * 16, 3)

    assert mech.calls == ["secure"] * 3 + ["unsecure"] * 3
    assert mech.unsecured == [b"1:" + b"x" * 16, b"2:" + b"x" * 16, b"3:" + b"x" * 16]
    assert len(timings) == 3
    assert all(fw > 0 and bw > 0 and fc >= 0 and bc >= 0 for fw, fc, bw, bc in timings)


def test_oneshot_block_unsecures_each_repetitions_last_frame_as_often_as_it_secured() -> None:
    mech = _Recording()

    timings = oneshot_block(mech, b"x" * 16, 2, calls=3)

    assert mech.calls == ["secure"] * 6 + ["unsecure"] * 6
    # Frames 3 and 6 (each repetition's last), three times each: the others were dropped.
    assert mech.unsecured == [b"3:" + b"x" * 16] * 3 + [b"6:" + b"x" * 16] * 3
    assert len(timings) == 2
    assert all(fw > 0 and bw > 0 for fw, _, bw, _ in timings)


def test_oneshot_block_fails_when_unsecure_gives_back_something_else() -> None:
    with pytest.raises(VerificationFailed):
        oneshot_block(_Lossy(registry.describe("null")), b"x" * 16, 2, calls=3)


@pytest.mark.parametrize(
    ("forward_ns", "backward_ns", "expected"),
    [
        (3_000, 4_000, 334),  # the faster direction's calls last 1 ms: ceil(1000/3)
        (4_000, 3_000, 334),
        (35_000, 35_000, 29),  # 8 KiB of AES-CBC on a slow VM: ceil(1000/35)
        (1_000_000, 2_500_000, 1),  # long enough alone
        (0, 0, 100_000),  # a clock too coarse to see a call: MAX_CALLS, not endless
    ],
)
def test_calls_per_repetition_make_a_repetition_last_1_ms_by_the_median_call(
    forward_ns: int, backward_ns: int, expected: int
) -> None:
    warmup = [(forward_ns, 0, backward_ns, 0)] * 4 + [(10**9, 0, 10**9, 0)]  # one outlier

    assert calls_per_repetition(warmup) == expected


def test_a_16_byte_batch_times_calls_in_groups_and_reports_the_mean_per_call() -> None:
    samples: list[Sample] = []

    run_batch(
        Batch("aes-128-cbc", 16, 6, generate_key("aes-128-cbc"), False, CHUNK_BYTES),
        emit=samples.append,
    )

    assert len(samples) == 12
    (calls,) = {s.calls for s in samples}  # one count for the whole batch
    assert calls is not None
    assert calls > 1
    # Means per call: each well under the 1 ms the group of calls lasts.
    assert all(0 < s.wall_ns < cipherbench_child.MIN_REPETITION_NS for s in samples)


def test_oneshot_block_stops_encrypting_when_its_time_is_spent() -> None:
    mech = _Recording()

    timings = oneshot_block(mech, b"x", 100, budget_ns=0)

    assert mech.calls == ["secure", "unsecure"]
    assert len(timings) == 1


@pytest.mark.parametrize(
    ("size", "stream", "expected"),
    [(16, False, 256), (8192, False, 32), (100_000, False, 2), (MiB, False, 1), (2 * MiB, True, 1)],
)
def test_block_holds_at_most_256_repetitions_and_256_kib_of_payload(
    size: int, stream: bool, expected: int
) -> None:
    batch = Batch("aes-128-cbc", size, 1000, b"k" * 16, stream=stream, chunk_bytes=CHUNK_BYTES)

    assert block_repetitions(batch) == expected


class _Writes(io.BytesIO):
    def __init__(self) -> None:
        super().__init__()
        self.writes: list[str] = []

    def write(self, data: bytes) -> int:  # type: ignore[override]
        self.writes.append(bytes(data).decode())
        return super().write(data)


def test_child_writes_samples_in_groups_with_the_peak_rss_read_per_group(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cipherbench_child, "FLUSH_NS", 10**12)  # by count only
    out = _Writes()

    run(Batch("null", 16, 600, b"", stream=False, chunk_bytes=CHUNK_BYTES), out)

    *groups, last = out.writes
    assert last == "done\n"
    lines = [group.splitlines() for group in groups]
    assert [len(group) for group in lines] == [256, 256, 88]
    reps = [line.split() for group in lines for line in group]
    assert [int(r[1]) for r in reps] == list(range(600))
    # rep <i> <fw> <fc> <bw> <bc> <peak_rss_kb> <calls>
    for group in lines:
        assert len({line.split()[-2] for line in group}) == 1  # one VmHWM read per group
    peaks = [int(group[0].split()[-2]) for group in lines]
    assert 0 < peaks[0] <= peaks[1] <= peaks[2]


def test_child_writes_a_group_after_flush_time_even_when_it_is_small(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cipherbench_child, "FLUSH_NS", 0)  # every block is due at once
    monkeypatch.setattr(cipherbench_child, "BLOCK_BYTES", 64)  # 4 repetitions of 16 bytes
    monkeypatch.setattr(cipherbench_child, "MIN_REPETITION_NS", 0)  # one call each
    out = _Writes()

    run(Batch("null", 16, 10, b"", stream=False, chunk_bytes=CHUNK_BYTES), out)

    assert [len(w.splitlines()) for w in out.writes] == [4, 4, 2, 1]
    assert out.getvalue().decode().splitlines()[-1] == "done"


def test_child_reports_an_error_line_when_verification_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        registry, "create", lambda name, key=None, library="": _Lossy(registry.describe("null"))
    )
    out = io.BytesIO()

    run(Batch("null", 16, 3, b"", stream=False, chunk_bytes=CHUNK_BYTES), out)

    assert out.getvalue().decode() == (
        "error null on 16 bytes: unsecure did not give the payload back\n"
    )


def test_batch_fails_loudly_when_its_child_reports_an_error() -> None:
    batch = Batch("aes-128-cbc", 16, 3, key=b"short", stream=False, chunk_bytes=CHUNK_BYTES)

    with pytest.raises(BenchFailed, match=r"aes-128-cbc on 16 bytes: .*16-byte key"):
        run_batch(batch, emit=lambda sample: None)


def test_batch_stops_within_a_poll_and_kills_its_child_when_stop_is_set() -> None:
    stop = threading.Event()
    batch = Batch(
        "3des-cbc",
        1 << 30,
        repetitions=100,
        key=generate_key("3des-cbc"),
        stream=True,
        chunk_bytes=CHUNK_BYTES,
    )
    threading.Timer(0.3, stop.set).start()
    started = time.monotonic()

    with pytest.raises(RunAborted, match="3des-cbc on 1073741824 bytes"):
        run_batch(batch, emit=lambda sample: None, stop=stop)

    assert time.monotonic() - started < 2.0


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"mechanisms": ["aes-999"], "data_sizes": [16], "repetitions": 1}, "unknown mechanism"),
        ({"mechanisms": ["none"], "data_sizes": [16], "repetitions": 1}, "nothing to measure"),
        ({"mechanisms": "aes-128-cbc", "data_sizes": [16], "repetitions": 1}, "list of"),
        ({"mechanisms": ["aes-128-cbc"], "data_sizes": [0], "repetitions": 1}, "out of range"),
        ({"mechanisms": ["aes-128-cbc"], "data_sizes": [True], "repetitions": 1}, "integers"),
        ({"mechanisms": ["aes-128-cbc"], "data_sizes": [16, 16], "repetitions": 1}, "repeat"),
        ({"mechanisms": ["aes-128-cbc"], "data_sizes": [16], "repetitions": 0}, "repetitions"),
        ({"mechanisms": ["aes-128-cbc"], "data_sizes": []}, "repetitions"),
    ],
)
def test_plan_rejects_spec_with_a_message_when_it_is_invalid(
    spec: dict[str, object], message: str
) -> None:
    with pytest.raises(UnsupportedJob, match=message):
        BenchPlan.parse(spec)
