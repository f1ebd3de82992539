"""Crypto libraries: the agent's cipher bench with pycryptodome and with OpenSSL in-process
(``crypto_library: openssl``, the cryptography binding) against ``openssl speed``.

    make bench                         # runs this among the others
    .venv/bin/python bench/cryptolibs.py [--repetitions N] [--seconds S]

For AES-128-CBC at 1 MiB and 8 KiB blocks, encrypt and decrypt, in one run so the ratios
are comparable on a shared, noisy machine:

- agent MB/s: data size / mean wall time per call of the agent's own engine
  (``cipherbench.engine.run_plan``: a child process per batch, calls grouped to 1 ms);
- openssl speed MB/s: ``openssl speed -elapsed -evp aes-128-cbc -bytes N`` (``-decrypt``
  for decrypt), run right after, its output parsed; the ratio agent / openssl speed is the
  figure (goal with openssl: >= 0.9 at 1 MiB, >= 0.7 at 8 KiB);
- harness overhead: the agent's mean time per call against a bare loop of the same
  mechanism's ``secure``/``unsecure`` calls in this process (same library, same payload).

Each figure is the best of ``--rounds`` rounds that alternate the three measurements, so
a burst of load on a shared machine slows one round and not the table.

Note: ``openssl speed`` is the system's /usr/bin/openssl; ``cryptography`` bundles its own
OpenSSL build (the table names both). Prints a Markdown table for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import re
import statistics
import subprocess
import sys
import time

from iotsecbench_agent.cipherbench.engine import ALLOCATOR_ENV, BenchPlan, run_plan
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import Mechanism
from iotsecbench_agent.storage.samplelog import Sample

MECHANISM = "aes-128-cbc"
SIZES = (1 << 20, 8192)
LIBRARIES = ("pycryptodome", "openssl")
OPENSSL = "/usr/bin/openssl"


def openssl_speed(size: int, decrypt: bool, seconds: int) -> float:
    """MB/s (10^6 bytes per second) that ``openssl speed`` reports for AES-128-CBC."""
    argv = [OPENSSL, "speed", "-elapsed", "-seconds", str(seconds)]
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
        op: statistics.mean(s.wall_ns for s in samples if s.operation == op) / 1000
        for op in ("encrypt", "decrypt")
    }


def bare_means(library: str, size: int, seconds: float) -> dict[str, float]:
    """Mean µs per call of a bare loop over the same mechanism's calls."""
    mech = registry.create(MECHANISM, library=library)
    payload = random.Random(1).randbytes(size)
    result = {"decrypt": _decrypt_only(mech, payload, seconds)}
    calls = 0
    start = time.perf_counter_ns()
    while (elapsed := time.perf_counter_ns() - start) < seconds * 1e9:
        mech.secure(payload)
        calls += 1
    result["encrypt"] = elapsed / calls / 1000
    return result


def _decrypt_only(mech: Mechanism, payload: bytes, seconds: float) -> float:
    """µs per ``unsecure`` call, frames made beforehand in blocks (CBC chains in order)."""
    total_ns = 0
    calls = 0
    while total_ns < seconds * 1e9:
        frames = [mech.secure(payload) for _ in range(32)]
        start = time.perf_counter_ns()
        for f in frames:
            mech.unsecure(f)
        total_ns += time.perf_counter_ns() - start
        calls += len(frames)
    return total_ns / calls / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=30)
    parser.add_argument("--seconds", type=int, default=1, help="openssl speed per figure")
    parser.add_argument("--rounds", type=int, default=3, help="best of this many rounds")
    args = parser.parse_args()
    if any(name not in os.environ for name in ALLOCATOR_ENV):
        # The bare loop runs here: give it the allocator settings the agent's child has.
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **ALLOCATOR_ENV})  # noqa: S606
    version = subprocess.run([OPENSSL, "version"], capture_output=True, text=True).stdout
    print(f"openssl speed: {version.strip()}; cryptography: {registry.library_version('openssl')}")
    print(f"pycryptodome: {registry.library_version('pycryptodome')}\n")
    print(
        "| library | block | operation | agent MB/s | openssl speed MB/s | agent / speed "
        "| harness overhead |"
    )
    print("|---|---|---|---|---|---|---|")
    for library in LIBRARIES:
        for size in SIZES:
            # Rounds alternate the agent and openssl speed, and each figure is its best
            # round: load on a shared machine only ever slows a measurement down.
            agent = {"encrypt": math.inf, "decrypt": math.inf}
            bare = dict(agent)
            speed = {"encrypt": 0.0, "decrypt": 0.0}
            for _ in range(args.rounds):
                for op, us in agent_means(library, size, args.repetitions).items():
                    agent[op] = min(agent[op], us)
                for op, us in bare_means(library, size, 0.5).items():
                    bare[op] = min(bare[op], us)
                for op in speed:
                    mb_s = openssl_speed(size, op == "decrypt", args.seconds)
                    speed[op] = max(speed[op], mb_s)
            for op in ("encrypt", "decrypt"):
                mb_s = size / agent[op]
                block = "1 MiB" if size == 1 << 20 else f"{size // 1024} KiB"
                print(
                    f"| {library} | {block} | {op} | {mb_s:,.0f} | {speed[op]:,.0f} | "
                    f"{mb_s / speed[op]:.2f} | {(agent[op] / bare[op] - 1) * 100:+.1f} % |"
                )


if __name__ == "__main__":
    main()
