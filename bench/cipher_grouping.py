"""Ciphers, part 2 in detail: what timing costs an AES-128-CBC call, in one process.

    .venv/bin/python bench/cipher_grouping.py [--rounds 21] [--calls 8500] [--size 16]

``bench/ciphers.py`` compares the agent's whole cipher-bench (fresh child process, sample
pipe) with a bare loop; on a shared VM its rounds wander by tens of per cent. This one keeps
everything in one warm process and interleaves short rounds (the order reversed every
other round), so the best and the quartile rounds show the small differences. ``make
bench`` runs it at 16 bytes and at 8 KiB:

  bare            the loop of ``bench/ciphers.py`` (``bare_aes_cbc``): the same
                  pycryptodome calls written out, timed as a whole
  mechanism       the registry's ``aes-128-cbc`` mechanism in the same kind of loop
  one call        ``cipherbench.child.oneshot_block`` with one call per repetition, each
                  timed with the wall and CPU clocks (the agent until 2026-11-25 afternoon)
  kept frames     groups of 1 ms but at most 32 KiB of payload, each group's calls a list
                  comprehension keeping its frames, blocks of repetitions one direction
                  at a time (up to 256 KiB of frames alive), then every frame unsecured
                  in order: the agent from 2026-11-25 evening until 2026-11-27
  grouped, 100 µs ``oneshot_block`` with groups of 100 µs
  grouped, 1 ms   ``oneshot_block`` with the calls per repetition the child's calibration
                  picks (``calls_per_repetition``: 1 ms), each frame dropping the one before,
                  each repetition's last unsecured ``calls`` times: as the agent measures

Mean ns per call; overhead against bare. Prints a Markdown table for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from iotsecbench_agent.cipherbench.streams import generate_key
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import Mechanism

from bench.ciphers import agent_calls, bare, mechanism_loop, timed_in_process

MECHANISM = "aes-128-cbc"
Way = Callable[[], tuple[float, float]]


def kept_frames(mechanism: Mechanism, payload: bytes, n: int, calls: int) -> tuple[float, float]:
    """Mean ns per call of ``n // calls`` groups of ``calls`` calls timed as the agent did
    until 2026-11-27: blocks of up to 256 repetitions or 256 KiB of payload, each group's
    frames kept by a list comprehension, a block's groups one direction at a time, every
    frame unsecured in order and checked; after a warm-up of the same, collector off."""
    secure, unsecure = mechanism.secure, mechanism.unsecure
    clock, cpu = time.perf_counter_ns, time.process_time_ns
    groups = max(1, n // calls)
    per_block = max(1, min(256, 256 * 1024 // (len(payload) * calls)))
    each = range(calls)
    gc.collect()
    gc.disable()
    try:
        for _ in range(2):  # the first pass is the warm-up
            forward = backward = 0
            left = groups
            while left:
                frames: list[list[bytes]] = []
                for _ in range(min(per_block, left)):
                    cpu()  # read as the agent read it; only wall times are compared
                    w0 = clock()
                    group = [secure(payload) for _ in each]
                    w1 = clock()
                    cpu()
                    frames.append(group)
                    forward += w1 - w0
                for group in frames:
                    cpu()
                    w0 = clock()
                    backs = [unsecure(frame) for frame in group]
                    w1 = clock()
                    cpu()
                    if backs.count(payload) != calls:
                        raise RuntimeError(f"{mechanism.name}: unsecure gave something else back")
                    backward += w1 - w0
                left -= len(frames)
    finally:
        gc.enable()
    return forward / (groups * calls), backward / (groups * calls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--calls", type=int, default=8500, help="calls per way and round")
    parser.add_argument("--size", type=int, default=16, help="payload bytes per call")
    args = parser.parse_args()
    n, size = args.calls, args.size
    key = generate_key(MECHANISM)
    payload = os.urandom(size)
    calls = agent_calls(MECHANISM, key, size)

    tenth = max(1, round(calls / 10))  # a group of 100 µs, as the agent timed before
    kept = max(1, min(calls, 32 * 1024 // size))  # its groups also held at most 32 KiB then

    # The ways of bench/ciphers.py's part 2, each with its own warm-up and the collector off;
    # n calls in all per way: n // c repetitions of c calls.
    ways: dict[str, Way] = {
        "bare": lambda: bare(MECHANISM, key, size, n),
        "mechanism": lambda: mechanism_loop(MECHANISM, key, size, n),
        "one call": lambda: timed_in_process(MECHANISM, key, size, n, calls=1),
        f"kept frames, 1 ms ({kept} calls; the agent until 2026-11-27)": lambda: kept_frames(
            registry.create(MECHANISM, key=key), payload, n, kept
        ),
        f"grouped, 100 µs ({tenth} calls)": lambda: timed_in_process(
            MECHANISM, key, size, max(1, n // tenth), calls=tenth
        ),
        f"grouped, 1 ms ({calls} calls; the agent)": lambda: timed_in_process(
            MECHANISM, key, size, max(1, n // calls), calls=calls
        ),
    }
    results: dict[str, list[tuple[float, float]]] = {way: [] for way in ways}
    load = os.getloadavg()[0]
    started = time.monotonic()
    for round_no in range(args.rounds):
        order = list(ways.items()) if round_no % 2 == 0 else list(ways.items())[::-1]
        for way, run in order:
            results[way].append(run())
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(
        f"\n`bench/cipher_grouping.py --size {size}`, {when}; {args.rounds} interleaved rounds "
        f"of {n} calls of {size} bytes "
        f"per way; load average {load:.2f} at start, {os.getloadavg()[0]:.2f} at the end "
        f"({time.monotonic() - started:.0f} s)\n"
    )
    print(
        "| way | encrypt ns/call: best / p25 / median | vs bare (best, p25) "
        "| decrypt ns/call: best / p25 / median | vs bare (best, p25) |"
    )
    print("|---|---:|---:|---:|---:|")
    quartile = args.rounds // 4
    baseline = [sorted(r[i] for r in results["bare"]) for i in (0, 1)]
    for way, values in results.items():
        cells = []
        for i in (0, 1):
            ordered = sorted(r[i] for r in values)
            median = statistics.median(ordered)
            cells.append(f"{ordered[0]:,.0f} / {ordered[quartile]:,.0f} / {median:,.0f}")
            best = ordered[0] / baseline[i][0] - 1
            p25 = ordered[quartile] / baseline[i][quartile] - 1
            cells.append(f"{best:+.1%}, {p25:+.1%}")
        print(f"| {way} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
