"""The child process of one cipher-bench batch (one mechanism, one data size): started by
``cipherbench.run_batch`` as ``python -c "...cipherbench_child import main; main()"``.

It reads its ``Batch`` as one JSON line on stdin (the key travels there, never in argv),
measures a warm-up repetition and then ``repetitions`` timed ones, and writes one line per
repetition to stdout, flushed at once:

    rep <i> <fwd_wall_ns> <fwd_cpu_ns> <bwd_wall_ns> <bwd_cpu_ns> <peak_rss_kb>
    done                      (after the last repetition)
    error <message>           (a decrypt/verify failed, or anything else went wrong)

It imports only the mechanisms (no HTTP, no MQTT), so its resident memory is the
interpreter, pycryptodome and the batch's buffers. See ``cipherbench`` for the method.
"""

from __future__ import annotations

import gc
import json
import random
import resource
import sys
import time
from dataclasses import asdict, dataclass
from typing import IO, Callable

from iotsecbench_agent.cipherbench_streams import Stream, VerificationFailed, make_stream
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import Mechanism, SecurityError

# Warm-up is for code paths, caches and allocations, not for the full 1 GiB again.
WARMUP_STREAM_CHUNKS = 4
DATA_SEED = 0x1075EC


@dataclass(frozen=True)
class Batch:
    """One (mechanism, data size): what its child process needs."""

    mechanism: str
    data_bytes: int
    repetitions: int
    key: bytes
    stream: bool
    chunk_bytes: int

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
        )


@dataclass(frozen=True)
class Timing:
    wall_ns: int
    cpu_ns: int


# Each timed call is ``c0 = cpu(); w0 = clock(); call; w1 = clock(); c1 = cpu()``: the
# wall interval holds one ~40 ns perf_counter read but not the ~0.2 µs CPU-clock system
# calls, which matters for a 16-byte message timed in single microseconds.


def oneshot_pass(mechanism: Mechanism, payload: bytes) -> tuple[Timing, Timing]:
    """One ``secure`` and one ``unsecure`` call, each timed; the result is checked."""
    clock, cpu = time.perf_counter_ns, time.process_time_ns
    c0 = cpu()
    w0 = clock()
    wire = mechanism.secure(payload)
    w1 = clock()
    c1 = cpu()
    c2 = cpu()
    w2 = clock()
    back = mechanism.unsecure(wire)
    w3 = clock()
    c3 = cpu()
    if back != payload:
        raise VerificationFailed("unsecure did not give the payload back")
    return Timing(w1 - w0, c1 - c0), Timing(w3 - w2, c3 - c2)


def stream_pass(stream: Stream, size: int, buffer: bytes) -> tuple[Timing, Timing]:
    """One repetition over ``size`` bytes streamed as chunks of ``buffer`` (the last one
    cut short); each direction's calls are timed and added up, checking each recovered
    chunk is not."""
    clock, cpu = time.perf_counter_ns, time.process_time_ns

    c0 = cpu()
    w0 = clock()
    stream.start_forward()
    w1 = clock()
    c1 = cpu()
    c2 = cpu()
    w2 = clock()
    stream.start_backward()
    w3 = clock()
    c3 = cpu()
    fw, fc, bw, bc = w1 - w0, c1 - c0, w3 - w2, c3 - c2

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

    c0 = cpu()
    w0 = clock()
    stream.finish_forward()
    w1 = clock()
    c1 = cpu()
    c2 = cpu()
    w2 = clock()
    stream.finish_backward()
    w3 = clock()
    c3 = cpu()
    fw += w1 - w0
    fc += c1 - c0
    bw += w3 - w2
    bc += c3 - c2
    return Timing(fw, fc), Timing(bw, bc)


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


def measurer(batch: Batch) -> Callable[[int], tuple[Timing, Timing]]:
    """Set the batch up (untimed: key import, key schedule, data) and return a function
    measuring one repetition over a given number of bytes."""
    rng = random.Random(DATA_SEED)  # noqa: S311 - benchmark data, not key material
    if batch.stream:
        stream = make_stream(batch.mechanism, batch.key)
        buffer = rng.randbytes(batch.chunk_bytes)
        return lambda size: stream_pass(stream, size, buffer)
    mechanism = registry.create(batch.mechanism, key=batch.key or None)
    payload = rng.randbytes(batch.data_bytes)
    return lambda size: oneshot_pass(mechanism, payload)


def run(batch: Batch, out: IO[bytes]) -> None:
    """Measure ``batch``, writing the protocol lines of the module doc to ``out``."""

    def send(line: str) -> None:
        out.write(line.encode("utf-8") + b"\n")
        out.flush()

    where = f"{batch.mechanism} on {batch.data_bytes} bytes"
    try:
        measure = measurer(batch)
        warmup = batch.data_bytes
        if batch.stream:
            warmup = min(batch.data_bytes, WARMUP_STREAM_CHUNKS * batch.chunk_bytes)
        gc.collect()
        gc.disable()  # as timeit does: no collector pauses inside a timed call
        measure(warmup)
        for rep in range(batch.repetitions):
            fwd, bwd = measure(batch.data_bytes)
            send(f"rep {rep} {fwd.wall_ns} {fwd.cpu_ns} {bwd.wall_ns} {bwd.cpu_ns} {peak_rss_kb()}")
        send("done")
    except (VerificationFailed, SecurityError) as exc:
        send(f"error {where}: {exc}")
    except Exception as exc:  # noqa: BLE001 - whatever breaks a batch is reported, not lost
        send(f"error {where}: {type(exc).__name__}: {exc}".replace("\n", " "))


def main() -> None:
    run(Batch.from_json(sys.stdin.readline()), sys.stdout.buffer)
