"""The child process of one cipher-bench batch (one mechanism, one data size): started by
``engine.run_batch`` as ``python -c "...cipherbench.child import main; main()"``.

It reads its ``Batch`` as one JSON line on stdin (the key travels there, never in argv),
measures a warm-up block (as many repetitions as one timed block, see ``oneshot_block``;
streamed: one repetition over at most four chunks) and then ``repetitions`` timed ones,
and writes one line per repetition to stdout:

    rep <i> <fwd_wall_ns> <fwd_cpu_ns> <bwd_wall_ns> <bwd_cpu_ns> <peak_rss_kb> <calls>
    done                      (after the last repetition)

The four times are totals over the repetition's ``calls`` back-to-back calls of each
direction (see ``calls_per_repetition``: one, unless a call is shorter than
``MIN_REPETITION_NS``).
    error <message>           (a decrypt/verify failed, or anything else went wrong)

The ``rep`` lines are buffered and written (and flushed) in groups: every
``FLUSH_REPETITIONS`` repetitions or once ``FLUSH_NS`` has passed since the last write,
whichever comes first, and at the end. ``peak_rss_kb`` is read once per group, when it is
written, and given to every line of the group (``VmHWM`` only grows, so that is the peak
as of the group's last repetition, and the batch's last line still holds the batch's peak).
Between two timed calls the child thus does no I/O and no ``/proc`` read; the parent
wakes once per group instead of once per repetition.

It imports only the mechanisms (no HTTP, no MQTT), so its resident memory is the
interpreter, pycryptodome and the batch's buffers. See ``cipherbench`` for the method.
"""

from __future__ import annotations

import gc
import json
import math
import random
import resource
import sys
import time
from dataclasses import asdict, dataclass
from typing import IO, Callable

from iotsecbench_contract.cryptolibs import OPENSSL, PYCRYPTODOME

from iotsecbench_agent.cipherbench.streams import Stream, VerificationFailed, make_stream
from iotsecbench_agent.errors import AgentError
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import INTO_SLACK, Mechanism, SecurityError

# Warm-up is for code paths, caches and allocations, not for the full 1 GiB again.
WARMUP_STREAM_CHUNKS = 4
DATA_SEED = 0x1075EC
# Samples go out in groups of at most this many repetitions, or after this much time,
# whichever comes first (the parent's progress lags by at most that; its stop check does
# not depend on it: it polls the stop flag every POLL_S whether lines come or not).
FLUSH_REPETITIONS = 256
FLUSH_NS = 200_000_000
# A block (see ``oneshot_block``: repetitions timed one direction at a time, each keeping
# its last frame) is at most this many bytes of payload: 256 repetitions of one 16-byte
# call, 32 of one 8 KiB call, one from 256 KiB of calls up. It also stops encrypting once
# its forward calls have taken BLOCK_NS, so that slow calls (RSA-4096 signing on a Pi
# takes a tenth of a second or more) do not hold a group of samples back for many seconds.
BLOCK_BYTES = 256 * 1024
BLOCK_NS = 50_000_000
# A call shorter than this (AES on a 16-byte message takes ~4 µs from Python) is timed as
# ``calls`` back-to-back calls per repetition, as timeit's ``number`` and pyperf's loops
# do: the clock reads around a timed interval (~0.25 µs for the CPU clock's two system
# calls, whose kernel entries also disturb the caches and branch predictors the next call
# uses) would otherwise be a tenth of what is measured. Measured on a 16-byte AES-128-CBC
# call, groups of 100 µs still left +1.5-2 % of timing cost, groups of 1 ms +0.1-0.3 %
# (docs/benchmarks.md, "The harness overhead").
MIN_REPETITION_NS = 1_000_000
# A clock too coarse to see one call must not make a repetition endless.
MAX_CALLS = 100_000


class BenchFailed(AgentError):
    """A batch could not be measured: a decrypt or verify failed, or the child died."""


@dataclass(frozen=True)
class Batch:
    """One (mechanism, data size): what its child process needs."""

    mechanism: str
    data_bytes: int
    repetitions: int
    key: bytes
    stream: bool
    chunk_bytes: int
    library: str = PYCRYPTODOME

    def to_json(self) -> str:
        return json.dumps({**asdict(self), "key": self.key.hex()})

    @classmethod
    def from_json(cls, text: str) -> Batch:
        data = json.loads(text)
        return cls(
            mechanism=str(data["mechanism"]),
            data_bytes=int(data["data_bytes"]),
            repetitions=int(data["repetitions"]),
            key=bytes.fromhex(data["key"]),
            stream=bool(data["stream"]),
            chunk_bytes=int(data["chunk_bytes"]),
            library=str(data.get("library", PYCRYPTODOME)),
        )


@dataclass(frozen=True)
class Timing:
    wall_ns: int
    cpu_ns: int


# Each timed call is ``c0 = cpu(); w0 = clock(); call; w1 = clock(); c1 = cpu()``: the
# wall interval holds one ~40 ns perf_counter read but not the ~0.2 µs CPU-clock system
# calls, which matters for a 16-byte message timed in single microseconds.

# (fwd_wall_ns, fwd_cpu_ns, bwd_wall_ns, bwd_cpu_ns) of one repetition
Repetition = tuple[int, int, int, int]


def oneshot_block(
    mechanism: Mechanism,
    payload: bytes,
    count: int,
    calls: int = 1,
    budget_ns: int = BLOCK_NS,
) -> list[Repetition]:
    """Up to ``count`` repetitions timed direction by direction: for each, ``calls``
    back-to-back ``secure`` calls of ``payload`` timed together (fewer repetitions once
    they have taken ``budget_ns`` of wall time); then for each, ``calls`` back-to-back
    ``unsecure`` calls of that repetition's last frame, timed together, and what came back
    checked after them. Each time is the total over the repetition's calls.

    Direction by direction, so a timed call follows a call of its own kind, with the
    caches and branch predictors as that call left them, as in a loop of the same calls:
    alternating the directions every 1 ms cost Ed25519 signing +2-3 % (verification's
    tables evicting signing's), against +0.2 % within a block (docs/benchmarks.md).

    Within a repetition each ``secure`` drops the frame before it, as a sender frees a
    message once it is sent, so the calls reuse the same freed memory as a loop does; only
    the repetition's last frame is kept for the way back. Keeping every frame alive to
    unsecure each of them cost +3 to +5 % per call at 8 KiB in groups of 4, and +15 to
    +19 % in groups of 29, the frames outgrowing the core's cache. Unsecuring one frame
    ``calls`` times is the same work each time: no mechanism keeps replay state (a chained
    CBC decrypts any frame in any order), and its result is still checked. A mechanism
    that can (``writes_into``: the ``openssl`` library's CBC) decrypts with
    ``unsecure_into`` into one buffer reused by every call of the block, as ``openssl
    speed`` does: the same decryption, padding check and frame semantics, without a new
    zeroed buffer per call (a pass over memory as long as OpenSSL's decryption itself).
    Likewise one that ``secures_into`` (the same CBC) encrypts with ``secure_into`` into
    one buffer reused by the block's calls: the same frames, byte for byte, without a
    new buffer and its trim per call; the last frame of each repetition is copied out
    after its timed calls.

    The calls of a group are a plain ``for`` loop over ``range(calls)``: CPython (3.11
    on) runs a call from Python code to a Python function in the same evaluation loop,
    while ``list(map(secure, ...))`` calls it from C, which enters the loop anew for every
    call (1-3 % on a 16-byte AES-128-CBC call, ``bench/cipher_grouping.py``)."""
    secure, unsecure = mechanism.secure, mechanism.unsecure
    clock, cpu = time.perf_counter_ns, time.process_time_ns
    each = range(calls)
    frame = b""
    view = memoryview(frame)
    back: bytes | memoryview = b""
    frames: list[bytes] = []
    forward: list[tuple[int, int]] = []
    deadline = clock() + budget_ns
    # A mechanism that encrypts into a caller's buffer (``secures_into``) does so into one
    # buffer reused by every call of the block; each repetition's last frame is copied out
    # of it, untimed, for the way back. Spelled out twice, as the decrypt loop below.
    sent = bytearray(len(payload) + mechanism.overhead(len(payload)) + INTO_SLACK)
    secure_into = mechanism.secure_into if mechanism.secures_into else None
    for _ in range(count):
        if secure_into is not None:
            c0 = cpu()
            w0 = clock()
            for _ in each:
                view = secure_into(payload, sent)
            w1 = clock()
            c1 = cpu()
            frame = bytes(view)
        else:
            c0 = cpu()
            w0 = clock()
            for _ in each:
                frame = secure(payload)
            w1 = clock()
            c1 = cpu()
        frames.append(frame)
        forward.append((w1 - w0, c1 - c0))
        if w1 >= deadline:
            break
    done: list[Repetition] = []
    # A mechanism that decrypts into a caller's buffer does so into one reused buffer, as
    # ``openssl speed`` reuses its own (base.Mechanism.unsecure_into). The timed loop is
    # spelled out twice so that neither direction pays an extra call layer to choose.
    into = mechanism.unsecure_into if mechanism.writes_into else None
    out = bytearray(max(map(len, frames), default=0) + INTO_SLACK)
    for frame, (f_wall, f_cpu) in zip(frames, forward):
        if into is not None:
            c0 = cpu()
            w0 = clock()
            for _ in each:
                back = into(frame, out)
            w1 = clock()
            c1 = cpu()
        else:
            c0 = cpu()
            w0 = clock()
            for _ in each:
                back = unsecure(frame)
            w1 = clock()
            c1 = cpu()
        if back != payload:
            raise VerificationFailed("unsecure did not give the payload back")
        done.append((f_wall, f_cpu, w1 - w0, c1 - c0))
    return done


def calls_per_repetition(warmup: list[Repetition]) -> int:
    """How many back-to-back calls one repetition times, from a warm-up of single calls:
    enough that the faster direction's calls last ``MIN_REPETITION_NS`` (by the median
    warm-up call), one for calls that long already, never more than ``MAX_CALLS``."""
    forward = sorted(r[0] for r in warmup)
    backward = sorted(r[2] for r in warmup)
    fastest = max(1, min(forward[len(forward) // 2], backward[len(backward) // 2]))
    if fastest >= MIN_REPETITION_NS:
        return 1
    wanted = math.ceil(MIN_REPETITION_NS / fastest)
    return min(wanted, MAX_CALLS)


def oneshot_pass(mechanism: Mechanism, payload: bytes) -> tuple[Timing, Timing]:
    """One ``secure`` and one ``unsecure`` call, each timed; the result is checked."""
    ((fw, fc, bw, bc),) = oneshot_block(mechanism, payload, 1)
    return Timing(fw, fc), Timing(bw, bc)


def stream_pass(stream: Stream, size: int, buffer: bytes) -> tuple[Timing, Timing]:
    """One repetition over ``size`` bytes streamed as chunks of ``buffer`` (the last one
    cut short); each direction's calls are timed and added up, checking each recovered
    chunk is not."""
    clock, cpu = time.perf_counter_ns, time.process_time_ns
    fw, fc, bw, bc = _time_both(stream.start_forward, stream.start_backward)

    chunk_bytes = len(buffer)
    offset = 0
    while offset < size:
        n = min(chunk_bytes, size - offset)
        chunk = buffer if n == chunk_bytes else buffer[:n]
        last = offset + n == size
        c0 = cpu()
        w0 = clock()
        piece = stream.forward(chunk, last)
        w1 = clock()
        c1 = cpu()
        c2 = cpu()
        w2 = clock()
        back = stream.backward(piece, last)
        w3 = clock()
        c3 = cpu()
        fw += w1 - w0
        fc += c1 - c0
        bw += w3 - w2
        bc += c3 - c2
        if back != chunk:
            raise VerificationFailed(
                f"decryption did not give the plaintext back (chunk at byte {offset})"
            )
        offset += n

    finish = _time_both(stream.finish_forward, stream.finish_backward)
    return Timing(fw + finish[0], fc + finish[1]), Timing(bw + finish[2], bc + finish[3])


def _time_both(
    forward: Callable[[], object], backward: Callable[[], object]
) -> tuple[int, int, int, int]:
    """Wall and CPU ns of ``forward()``, then of ``backward()``: each call between its own
    clock reads, as ``stream_pass`` times each chunk's two calls."""
    clock, cpu = time.perf_counter_ns, time.process_time_ns
    c0 = cpu()
    w0 = clock()
    forward()
    w1 = clock()
    c1 = cpu()
    c2 = cpu()
    w2 = clock()
    backward()
    w3 = clock()
    c3 = cpu()
    return w1 - w0, c1 - c0, w3 - w2, c3 - c2


def peak_rss_kb() -> int:
    """This process's peak resident memory in KiB: ``VmHWM`` (the high-water mark of this
    process's own address space), or ``ru_maxrss`` where there is no ``/proc``."""
    try:
        with open("/proc/self/status", "rb") as status:
            for line in status:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak  # bytes on macOS


def block_repetitions(batch: Batch, calls: int = 1) -> int:
    """The most repetitions of ``calls`` calls one block of ``batch`` measures: at most
    BLOCK_BYTES of payload in all and never more than a group of samples; one (so the
    directions alternate) from BLOCK_BYTES up and for streamed batches."""
    if batch.stream:
        return 1
    return max(1, min(FLUSH_REPETITIONS, BLOCK_BYTES // (batch.data_bytes * calls)))


# measure(size, count, calls): up to ``count`` repetitions of ``calls`` calls each
Measure = Callable[[int, int, int], list[Repetition]]


def measurer(batch: Batch) -> Measure:
    """Set the batch up (untimed: key import, key schedule, data) and return a function
    ``measure(size, count, calls)`` timing up to ``count`` repetitions of ``calls`` calls
    over ``size`` bytes (a streamed batch: always one repetition of one pass)."""
    rng = random.Random(DATA_SEED)  # noqa: S311 - benchmark data, not key material
    if batch.stream:
        if batch.library == OPENSSL:
            from iotsecbench_agent.cipherbench.openssl_streams import make_openssl_stream

            stream = make_openssl_stream(batch.mechanism, batch.key)
        else:
            stream = make_stream(batch.mechanism, batch.key)
        buffer = rng.randbytes(batch.chunk_bytes)

        def streamed(size: int, count: int, calls: int) -> list[Repetition]:
            fwd, bwd = stream_pass(stream, size, buffer)
            return [(fwd.wall_ns, fwd.cpu_ns, bwd.wall_ns, bwd.cpu_ns)]

        return streamed
    mechanism = registry.create(batch.mechanism, key=batch.key or None, library=batch.library)
    payload = rng.randbytes(batch.data_bytes)
    return lambda size, count, calls: oneshot_block(mechanism, payload, count, calls)


def run(batch: Batch, out: IO[bytes]) -> None:
    """Measure ``batch``, writing the protocol lines of the module doc to ``out``."""

    def send(text: str) -> None:
        out.write(text.encode("utf-8"))
        out.flush()

    where = f"{batch.mechanism} on {batch.data_bytes} bytes"
    clock = time.perf_counter_ns
    try:
        measure = measurer(batch)
        per_block = block_repetitions(batch)
        warmup = batch.data_bytes
        if batch.stream:
            warmup = min(batch.data_bytes, WARMUP_STREAM_CHUNKS * batch.chunk_bytes)
        gc.collect()
        gc.disable()  # as timeit does: no collector pauses inside a timed call
        # One block of single calls, not recorded (streamed: one repetition); it also
        # tells how many calls a repetition must time to last MIN_REPETITION_NS.
        calls = 1
        single = measure(warmup, per_block, 1)
        if not batch.stream:
            calls = calls_per_repetition(single)
        if calls > 1:
            per_block = block_repetitions(batch, calls)
            measure(warmup, per_block, calls)  # and one block as it will be timed
        pending: list[Repetition] = []
        first = 0  # the repetition number of pending[0]
        flushed = clock()
        while first + len(pending) < batch.repetitions:
            room = min(FLUSH_REPETITIONS - len(pending), batch.repetitions - first - len(pending))
            pending += measure(batch.data_bytes, min(per_block, room), calls)
            now = clock()
            last = first + len(pending) == batch.repetitions
            if last or len(pending) >= FLUSH_REPETITIONS or now - flushed >= FLUSH_NS:
                rss = peak_rss_kb()
                send(
                    "".join(
                        f"rep {first + i} {fw} {fc} {bw} {bc} {rss} {calls}\n"
                        for i, (fw, fc, bw, bc) in enumerate(pending)
                    )
                )
                first += len(pending)
                pending = []
                flushed = clock()
        send("done\n")
    except (VerificationFailed, SecurityError) as exc:
        send(f"error {where}: {exc}\n")
    except Exception as exc:  # noqa: BLE001 - whatever breaks a batch is reported, not lost
        send(f"error {where}: {type(exc).__name__}: {exc}".replace("\n", " ") + "\n")


def main() -> None:
    run(Batch.from_json(sys.stdin.readline()), sys.stdout.buffer)
