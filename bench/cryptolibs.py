"""Crypto libraries: the agent's cipher bench with pycryptodome and with OpenSSL in-process
(``crypto_library: openssl``: the cryptography binding, and for the CBC calls the bench
times the agent's EVP extension on the system's libcrypto) against ``openssl speed``.

    make bench                         # runs this among the others
    .venv/bin/python bench/cryptolibs.py [--repetitions N] [--seconds S]

For AES-128-CBC at 1 MiB and 8 KiB blocks, encrypt and decrypt, in one run so the ratios
are comparable on a shared, noisy machine:

- agent MB/s: data size / mean CPU time (``--elapsed``: wall time) per call of the
  agent's own engine (``cipherbench.engine.run_plan``: a child process per batch, calls
  grouped to 1 ms);
- openssl speed MB/s: ``openssl speed -evp aes-128-cbc -bytes N`` (``-decrypt`` for
  decrypt; ``-elapsed`` with ``--elapsed``), run right after, its output parsed; the ratio
  agent / openssl speed is the figure (goal with openssl: >= 0.9 at 1 MiB, >= 0.7 at 8 KiB);
- binding / speed (openssl only): a bare loop of the ``cryptography`` binding's own
  ``update_into`` over the payload into a reused buffer, against ``openssl speed``: the
  ceiling of any Python caller of that binding (one Python call per block, nothing else);
- harness overhead: the agent's mean time per call against a bare loop of the same
  mechanism's calls in this process (same library, same payload; encrypt through
  ``secure_into`` and decrypt through ``unsecure_into`` into a reused buffer where the
  mechanism has them, as the engine does),
  as the ratio of the medians over the rounds, with the range of the rounds' own ratios.

The throughput figures are each the best of ``--rounds`` rounds that alternate the
measurements (the agent and the bare loop swap order every round), so a burst of load on a
shared machine slows one round and not the table; the overhead is a ratio of medians,
which a single slow round cannot move either way.

Note: ``openssl speed`` is the system's /usr/bin/openssl and the EVP extension runs on the
system's libcrypto; ``cryptography`` bundles its own OpenSSL build (the table names each).
Prints a Markdown table for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from iotsecbench_agent.cipherbench.engine import ALLOCATOR_ENV, BenchPlan, run_plan
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import INTO_SLACK, Mechanism
from iotsecbench_agent.storage.samplelog import Sample

MECHANISM = "aes-128-cbc"
SIZES = (1 << 20, 8192)
LIBRARIES = ("pycryptodome", "openssl")
OPENSSL = "/usr/bin/openssl"


# CPU time (the default) or wall time (``--elapsed``), the same for every figure: the
# agent's ``cpu_ns`` or ``wall_ns``, the bare loops' clock, ``openssl speed``'s own timing
# (user CPU time, or ``-elapsed``). On a loaded host wall time is unfair both ways: a run
# of 1 ms-long repetitions (the agent) slips between the scheduler's preemptions far more
# often than one-second loops (``openssl speed``, the bare loops) do, which lost a third
# to half of their wall time to other processes at load 10 (2026-11-28 21:47 UTC: the
# agent's 1 MiB decrypt "2.2 times" openssl speed). CPU time counts only the process's own.
ELAPSED = False


def _clock() -> Callable[[], int]:
    return time.perf_counter_ns if ELAPSED else time.process_time_ns


def _ns(sample: Sample) -> int:
    return sample.wall_ns if ELAPSED else sample.cpu_ns


def openssl_speed(size: int, decrypt: bool, seconds: int) -> float:
    """MB/s (10^6 bytes per second) that ``openssl speed`` reports for AES-128-CBC."""
    argv = [OPENSSL, "speed", *(["-elapsed"] if ELAPSED else []), "-seconds", str(seconds)]
    argv += ["-decrypt"] if decrypt else []
    argv += ["-evp", MECHANISM, "-bytes", str(size)]
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    match = re.search(r"^AES-128-CBC\s+([\d.]+)k\s*$", out, re.MULTILINE)
    if match is None:
        raise RuntimeError(f"cannot parse openssl speed output:\n{out}")
    return float(match.group(1)) * 1000 / 1e6


def agent_means(library: str, size: int, repetitions: int) -> dict[str, float]:
    """Mean wall µs per call of encrypt and decrypt from the agent's engine."""
    samples: list[Sample] = []
    run_plan(BenchPlan.of([MECHANISM], [size], repetitions, library), emit=samples.append)
    return {
        op: statistics.mean(
            s.wall_ns if ELAPSED else s.cpu_ns for s in samples if s.operation == op
        )
        / 1000
        for op in ("encrypt", "decrypt")
    }


def bare_means(library: str, size: int, seconds: float) -> dict[str, float]:
    """Mean µs per call of a bare loop over the same mechanism's calls, timed in groups
    lasting about a millisecond, as the engine groups them."""
    mech = registry.create(MECHANISM, library=library)
    payload = random.Random(1).randbytes(size)
    result = {"encrypt": _encrypt_only(mech, payload, seconds)}
    result["decrypt"] = _decrypt_only(mech, payload, seconds)
    return result


def _encrypt_only(mech: Mechanism, payload: bytes, seconds: float) -> float:
    """µs per encrypt call, as the engine times it: through ``secure_into`` into one
    reused buffer where the mechanism has one, else ``secure``."""
    if mech.secures_into:
        out = bytearray(len(payload) + mech.overhead(len(payload)) + INTO_SLACK)
        return _loop_us(seconds, mech.secure_into, payload, out)
    return _loop_us(seconds, mech.secure, payload)


def _decrypt_only(mech: Mechanism, payload: bytes, seconds: float) -> float:
    """µs per decrypt call of one frame, over and over, as the engine times a repetition's
    ``calls`` (through ``unsecure_into`` into one reused buffer where the mechanism has
    one). Not a fresh frame per call: 32 frames of 1 MiB outgrow the caches, and the bare
    loop then read its frames from memory where the engine's stayed cached (-42 % at 1 MiB,
    2026-11-28 21:52 UTC)."""
    frame = mech.secure(payload)
    if mech.writes_into:
        return _loop_us(seconds, mech.unsecure_into, frame, bytearray(len(frame) + INTO_SLACK))
    return _loop_us(seconds, mech.unsecure, frame)


def binding_means(size: int, seconds: float) -> dict[str, float]:
    """µs per ``update_into`` call of the cryptography binding's AES-128-CBC over ``size``
    bytes into a reused buffer: what no Python caller of the binding can beat."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    cipher = Cipher(algorithms.AES(bytes(range(16))), modes.CBC(bytes(16)))
    data = random.Random(1).randbytes(size)
    out = bytearray(size + INTO_SLACK)
    result = {}
    for op, ctx in (("encrypt", cipher.encryptor()), ("decrypt", cipher.decryptor())):
        result[op] = _loop_us(seconds, ctx.update_into, data, out)
    return result


def _loop_us(seconds: float, call: Callable[..., object], *args: object) -> float:
    """Mean µs per ``call(*args)`` over groups of calls lasting about 1 ms, for ``seconds``.
    The call is spelled out in the loop (no ``partial``, whose extra layer the engine does
    not have)."""
    clock = _clock()
    call(*args)
    start = time.perf_counter_ns()
    for _ in range(8):
        call(*args)
    calls = max(1, round(8e6 / (time.perf_counter_ns() - start)))
    each = range(calls)
    total_ns = done = 0
    while total_ns < seconds * 1e9:
        if len(args) == 1:
            (a,) = args
            start = clock()
            for _ in each:
                call(a)
        else:
            a, b = args
            start = clock()
            for _ in each:
                call(a, b)
        total_ns += clock() - start
        done += calls
    return total_ns / done / 1000


@dataclass
class Cell:
    """Per-round µs per call (MB/s for openssl speed) of one library, size and operation."""

    agent: list[float] = field(default_factory=list)
    bare: list[float] = field(default_factory=list)
    binding: list[float] = field(default_factory=list)
    speed: list[float] = field(default_factory=list)

    def row(self, library: str, size: int, op: str) -> str:
        agent_mb_s = size / min(self.agent)
        best_speed = max(self.speed)
        block = "1 MiB" if size == 1 << 20 else f"{size // 1024} KiB"
        ceiling = f"{size / min(self.binding) / best_speed:.2f}" if self.binding else "n/a"
        overhead = statistics.median(self.agent) / statistics.median(self.bare) - 1
        rounds = [a / b - 1 for a, b in zip(self.agent, self.bare, strict=True)]
        return (
            f"| {library} | {block} | {op} | {agent_mb_s:,.0f} | {best_speed:,.0f} | "
            f"{agent_mb_s / best_speed:.2f} | {ceiling} | {overhead * 100:+.1f} % "
            f"({min(rounds) * 100:+.0f} … {max(rounds) * 100:+.0f} %) |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=30)
    parser.add_argument("--seconds", type=int, default=1, help="openssl speed per figure")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds per cell")
    parser.add_argument("--elapsed", action="store_true", help="wall time (quiet host only)")
    args = parser.parse_args()
    global ELAPSED
    ELAPSED = args.elapsed
    if any(name not in os.environ for name in ALLOCATOR_ENV):
        # The bare loop runs here: give it the allocator settings the agent's child has.
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **ALLOCATOR_ENV})  # noqa: S606
    version = subprocess.run([OPENSSL, "version"], capture_output=True, text=True).stdout
    print(f"openssl speed: {version.strip()}; cryptography: {registry.library_version('openssl')}")
    print(f"pycryptodome: {registry.library_version('pycryptodome')}")
    print(f"timed in {'wall' if ELAPSED else 'CPU'} time\n")
    print(
        "| library | block | operation | agent MB/s | openssl speed MB/s | agent / speed "
        "| binding / speed | harness overhead (rounds) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for library in LIBRARIES:
        for size in SIZES:
            cells = {"encrypt": Cell(), "decrypt": Cell()}
            for n in range(args.rounds):
                # The agent and the bare loop swap order every round, so a trend in the
                # load during a round favours neither.
                if n % 2:
                    bare = bare_means(library, size, 0.5)
                    agent = agent_means(library, size, args.repetitions)
                else:
                    agent = agent_means(library, size, args.repetitions)
                    bare = bare_means(library, size, 0.5)
                binding = binding_means(size, 0.3) if library == "openssl" else {}
                for op, cell in cells.items():
                    cell.agent.append(agent[op])
                    cell.bare.append(bare[op])
                    if binding:
                        cell.binding.append(binding[op])
                    cell.speed.append(openssl_speed(size, op == "decrypt", args.seconds))
            for op, cell in cells.items():
                print(cell.row(library, size, op), flush=True)


if __name__ == "__main__":
    main()
