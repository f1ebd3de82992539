"""The cipher-bench engine (§7 of docs/control-plane.md): timing security mechanisms over
data sizes and repetitions, as the OpenSSL-on-Raspberry-Pi paper did, in one fresh child
process per (mechanism, data size) batch.

How a batch is measured, and why:

- **A fresh process per batch** (``child``, a new interpreter importing only
  the mechanisms), so its peak memory is its own. The parent generates each mechanism's
  key once (RSA-4096 takes seconds on a Pi) and hands it over on the child's stdin.
  Samples come back one line per repetition, written in groups (every 256 repetitions or
  0.2 s, whichever comes first: ``child.FLUSH_*``), so they reach the log soon
  after they are measured without the parent waking, and competing for a CPU, once per
  repetition. ``stop`` is honoured within ``POLL_S`` all the same: the parent polls it
  whether lines come or not. Not a ``fork``ed child: the agent is multi-threaded (paho,
  heartbeats), where ``fork`` can deadlock, and a forked child's resident memory starts
  at the agent's. Not multiprocessing's ``spawn``/``forkserver``: they re-run the
  caller's ``__main__`` in the child.
- **Peak memory** is the child's ``VmHWM`` (``/proc/self/status``), the high-water mark of
  its own address space, read each time the child writes a group of samples and given to
  every sample of the group (it only grows, so the batch's last sample holds the batch's
  peak): interpreter, pycryptodome and the batch's buffers, like ``/usr/bin/time -f %M``.
  Not the ``ru_maxrss`` of ``wait4`` or ``RUSAGE_CHILDREN``: Linux carries the parent's
  peak into a child over ``exec`` (a 300 MB parent makes every child report 300 MB), and
  ``RUSAGE_CHILDREN`` is a maximum over all children, not per batch.
- **Data** is pseudo-random bytes from a seeded generator. Up to ``STREAM_ABOVE_BYTES``
  (1 MiB) the payload is one buffer and a repetition is one ``secure`` and one
  ``unsecure`` call of the registry's mechanism (what a messaging run times per message;
  a mechanism that ``secures_into`` / ``writes_into`` a caller's buffer, the ``openssl``
  CBC, encrypts with ``secure_into`` and decrypts with ``unsecure_into`` into one reused
  buffer each instead, as ``openssl speed`` does).
  Above it the data is a stream of ``CHUNK_BYTES`` chunks of one reused buffer, never held
  whole, through ``streams`` (one cipher object or hash per direction).
- **Timing**: wall time ``perf_counter_ns`` and CPU time ``process_time_ns`` of the child,
  around the mechanism calls only. A call shorter than 1 ms (``MIN_REPETITION_NS``; AES
  on 16 bytes takes a few µs from Python) is timed as ``calls`` back-to-back calls per
  repetition, as timeit's ``number``: a warm-up block of single calls sets ``calls`` so a
  repetition lasts 1 ms, and the sample is the mean per call (its ``calls`` says how
  many); the spread of the samples is then the spread of those means. Timed one call at
  a time, the clock reads alone added 4-25 % to a 16-byte AES call (docs/benchmarks.md).
  Up to 1 MiB the repetitions are timed in blocks, one direction at a time
  (``child.oneshot_block``: up to 256 repetitions of ``calls`` ``secure``
  calls, each frame dropping the one before it and each repetition's last kept, then
  ``calls`` ``unsecure`` calls of each kept frame in order), so a timed call follows a
  call of its own kind, as in a loop, and the frames do not outgrow the caches. A
  streamed repetition interleaves the directions chunk by chunk (encrypt a chunk,
  decrypt it; hash it to sign, hash it again to verify) and adds each direction's calls
  up, so the ciphertext is never stored; checking what came back is outside the timed
  calls. A warm-up block (streamed: one repetition capped at four chunks) is not
  recorded, and the child's cyclic GC is off, as ``timeit`` does.
- A decrypt that does not give the plaintext back, or a tag, MAC or signature that does
  not verify, fails the run with a message (BenchFailed): such a sample means nothing.
"""

from __future__ import annotations

import os
import select
import statistics
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from iotsecbench_contract.benchspec import CipherBenchSpec
from iotsecbench_contract.cryptolibs import OPENSSL_CLI, PYCRYPTODOME
from iotsecbench_contract.mechanisms import NONE

from iotsecbench_agent.cipherbench import opensslcli
from iotsecbench_agent.cipherbench.child import Batch, BenchFailed
from iotsecbench_agent.cipherbench.streams import generate_key, operations
from iotsecbench_agent.errors import RunAborted, UnsupportedJob
from iotsecbench_agent.kinds.plan import CellSummary, contract_spec, grid_total, group_by_cell
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.lightweight_mechanisms import native_available
from iotsecbench_agent.storage.samplelog import Sample

# §7: data above 1 MiB is streamed; up to it, one registry call per repetition.
STREAM_ABOVE_BYTES = 1 << 20
# 256 KiB: the clock reads around each chunk's calls (~0.1 µs of wall time, ~0.5 µs of
# CPU time) stay around 1 % or less even of the fastest cipher's chunk (AES-CTR with
# AES-NI, ~70 µs), and a batch's buffers stay around 1 MiB. A multiple of every block size.
CHUNK_BYTES = 256 * 1024
# How often the parent looks at the stop flag while a batch runs.
POLL_S = 0.2
CHILD_EXIT_WAIT_S = 5.0
READ_BYTES = 65536
STDERR_TAIL_BYTES = 2000
CHILD_CODE = "from iotsecbench_agent.cipherbench.child import main; main()"

__all__ = ["BenchFailed", "BenchPlan", "Summary", "run_batch", "run_plan", "summarize"]


@dataclass(frozen=True)
class BenchPlan:
    """What to measure: every mechanism × data size, ``repetitions`` times each."""

    mechanisms: tuple[str, ...]
    data_sizes: tuple[int, ...]
    repetitions: int
    crypto_library: str = PYCRYPTODOME

    @classmethod
    def parse(cls, spec: Mapping[str, Any]) -> BenchPlan:
        """The plan of a §7 spec (iotsecbench_contract.benchspec.CipherBenchSpec, the
        platform's checks and limits, among them that the crypto library provides every
        mechanism) whose mechanisms run here, or UnsupportedJob saying what is wrong."""
        checked = contract_spec(CipherBenchSpec.parse, spec)
        for name in checked.mechanisms:
            check_mechanism(name)
        if checked.crypto_library == OPENSSL_CLI:
            opensslcli.check_available()
        return cls(
            checked.mechanisms, checked.data_sizes, checked.repetitions, checked.crypto_library
        )

    @classmethod
    def of(
        cls,
        mechanisms: Sequence[str],
        sizes: Sequence[int],
        repetitions: int,
        crypto_library: str = PYCRYPTODOME,
    ) -> BenchPlan:
        """The plan of the command line's values, checked as a job's spec."""
        spec = {
            "mechanisms": list(mechanisms),
            "data_sizes": list(sizes),
            "repetitions": repetitions,
            "crypto_library": crypto_library,
        }
        return cls.parse(spec)

    @property
    def total_samples(self) -> int:
        """Two operations per mechanism, size and repetition."""
        return grid_total(self)


def check_mechanism(name: str) -> None:
    """UnsupportedJob unless ``name`` is a registry mechanism that can be benchmarked here."""
    if name not in registry.names():
        raise UnsupportedJob(
            f"unknown mechanism {name!r} (known: {', '.join(benchable_mechanisms())})"
        )
    info = registry.describe(name)
    if info.kind == NONE:
        raise UnsupportedJob("mechanism 'none' does nothing to measure; 'null' is the floor")
    if info.native and not native_available():
        raise UnsupportedJob(
            f"mechanism {name!r} needs the agent's native module, which is not built here"
        )


def benchable_mechanisms() -> list[str]:
    return [n for n in registry.names() if registry.describe(n).kind != NONE]


def run_plan(
    plan: BenchPlan,
    *,
    emit: Callable[[Sample], None],
    stop: threading.Event | None = None,
    stream_above: int = STREAM_ABOVE_BYTES,
    chunk_bytes: int = CHUNK_BYTES,
) -> None:
    """Measure every batch of ``plan`` in order, calling ``emit`` per sample as it comes.

    Raises BenchFailed (a decrypt/verify failed, a child died), RunAborted (``stop`` set).
    ``openssl-cli`` plans are measured by ``opensslcli`` (the ``openssl enc`` command).
    """
    if plan.crypto_library == OPENSSL_CLI:
        opensslcli.run_plan(plan.mechanisms, plan.data_sizes, plan.repetitions, emit, stop)
        return
    for mechanism in plan.mechanisms:
        if stop is not None and stop.is_set():
            raise RunAborted("stopped between batches")
        key = generate_key(mechanism)
        for size in plan.data_sizes:
            batch = Batch(
                mechanism=mechanism,
                data_bytes=size,
                repetitions=plan.repetitions,
                key=key,
                stream=size > stream_above,
                chunk_bytes=chunk_bytes,
                library=plan.crypto_library,
            )
            run_batch(batch, emit=emit, stop=stop)


def run_batch(
    batch: Batch, *, emit: Callable[[Sample], None], stop: threading.Event | None = None
) -> None:
    """Run one batch in a fresh child process, emitting its samples as they arrive."""
    where = f"{batch.mechanism} on {batch.data_bytes} bytes"
    forward, backward = operations(batch.mechanism)
    with tempfile.TemporaryFile() as stderr:
        child = subprocess.Popen(  # noqa: S603 - our own interpreter and module, fixed argv
            [sys.executable, "-c", CHILD_CODE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=_child_env(),
        )
        try:
            assert child.stdin is not None
            assert child.stdout is not None
            child.stdin.write(batch.to_json().encode("utf-8") + b"\n")
            child.stdin.close()
            for line in _lines(child.stdout.fileno(), stop, where):
                word, _, rest = line.partition(" ")
                if word == "done":
                    return
                if word == "error":
                    raise BenchFailed(rest)
                rep, f_wall, f_cpu, b_wall, b_cpu, rss, calls = (int(x) for x in rest.split())
                size, name = batch.data_bytes, batch.mechanism
                # Per call: a repetition of `calls` calls reports their mean.
                f_wall, f_cpu = round(f_wall / calls), round(f_cpu / calls)
                b_wall, b_cpu = round(b_wall / calls), round(b_cpu / calls)
                emit(Sample(name, forward, size, rep, f_wall, f_cpu, rss, calls=calls))
                emit(Sample(name, backward, size, rep, b_wall, b_cpu, rss, calls=calls))
            code = child.wait(CHILD_EXIT_WAIT_S)
            stderr.seek(0)
            tail = stderr.read()[-STDERR_TAIL_BYTES:].decode("utf-8", "replace").strip()
            raise BenchFailed(
                f"the benchmark process of {where} ended without finishing (exit code "
                f"{code}){': ' + tail.splitlines()[-1] if tail else ''}"
            )
        finally:
            if child.poll() is None:
                child.kill()
            child.wait()
            if child.stdout is not None:
                child.stdout.close()


def _lines(fd: int, stop: threading.Event | None, where: str) -> Iterator[str]:
    """The child's stdout lines until EOF, checking ``stop`` every POLL_S (a 1 GiB
    repetition of 3DES on a Pi takes minutes; shutdown must not wait for it)."""
    pending = b""
    while True:
        if stop is not None and stop.is_set():
            raise RunAborted(f"stopped during {where}")
        ready, _, _ = select.select([fd], [], [], POLL_S)
        if not ready:
            continue
        data = os.read(fd, READ_BYTES)
        if not data:
            return
        *lines, pending = (pending + data).split(b"\n")
        for line in lines:
            yield line.decode("utf-8", "replace")


# glibc serves every buffer of 128 KiB or more (a 1 MiB frame, its plaintext) from a fresh
# mmap and unmaps it when freed, so each call paid 256 page faults and the kernel's zeroing
# of 1 MiB per buffer: with OpenSSL that was two thirds of a 1 MiB AES-CBC decrypt (min 352
# µs against 114 µs with these settings, peak RSS +0.3 MB; docs/benchmarks.md "Crypto
# libraries"). Raised thresholds keep freed buffers in the heap for the next call, as a
# program reusing its buffers (``openssl speed``) has them. A value in the agent's own
# environment wins.
ALLOCATOR_ENV = {
    "MALLOC_MMAP_THRESHOLD_": str(64 << 20),
    "MALLOC_TRIM_THRESHOLD_": str(256 << 20),
}


def _child_env() -> dict[str, str]:
    """The environment plus this package's directory on PYTHONPATH, so the child imports
    the same code as the parent also when it runs from a source tree."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    for name, value in ALLOCATOR_ENV.items():
        env.setdefault(name, value)
    return env


# -- summaries ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Summary(CellSummary):
    """The paper's statistics of one (mechanism, operation, data size): mean, sample
    variance and sample standard deviation (n − 1) of the wall time; mean CPU time;
    throughput from the mean wall time; the batch's peak RSS; the calls each repetition
    timed (its times are means per call)."""

    wall_mean_us: float
    wall_var_us2: float | None
    wall_std_us: float | None
    cpu_mean_us: float
    throughput_mb_s: float
    peak_rss_kb: int
    calls: int


def summarize(samples: Iterable[Sample]) -> list[Summary]:
    """One Summary per (mechanism, operation, data size), in first-seen order. Variance and
    standard deviation need two samples (None below)."""
    groups = group_by_cell(samples)
    summaries = []
    for cell, group in groups.items():
        wall_us = [s.wall_ns / 1000 for s in group]
        mean = statistics.mean(wall_us)
        two = len(wall_us) > 1
        summaries.append(
            Summary(
                *cell,
                n=len(group),
                wall_mean_us=mean,
                wall_var_us2=statistics.variance(wall_us) if two else None,
                wall_std_us=statistics.stdev(wall_us) if two else None,
                cpu_mean_us=statistics.mean(s.cpu_ns / 1000 for s in group),
                # bytes per µs is MB/s (10^6 bytes per second)
                throughput_mb_s=cell[2] / mean if mean > 0 else float("inf"),
                peak_rss_kb=max(s.peak_rss_kb for s in group),
                calls=max(s.calls or 1 for s in group),
            )
        )
    return summaries
