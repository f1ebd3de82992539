"""Ciphers, part 2 in detail: what timing costs a 16-byte AES-128-CBC call, in one process.

    .venv/bin/python bench/cipher_grouping.py [--rounds 21] [--calls 8500]

``bench/ciphers.py`` compares the agent's whole cipher-bench (fresh child process, sample
pipe) with a bare loop; on a shared VM its rounds wander by tens of per cent. This one keeps
everything in one warm process and interleaves short rounds (the order reversed every
other round), so the best and the quartile rounds show the small differences:

  bare            the loop of ``bench/ciphers.py`` (``bare_aes_cbc``): the same
                  pycryptodome calls written out, timed as a whole
  mechanism       the registry's ``aes-128-cbc`` mechanism in the same kind of loop
  one call        ``cipherbench_child.oneshot_block`` with one call per repetition, each
                  timed with the wall and CPU clocks (the agent until 2026-11-25 afternoon)
  map, 100 µs     groups of calls lasting 100 µs, each made with
                  ``list(map(secure, repeat(payload, calls)))``, the same clocks and kept
                  frames (the agent until 2026-11-25 evening; ``map`` calls the method from
                  C, so CPython enters its evaluation loop anew for every call, where a
                  comprehension's calls stay inside it)
  grouped, 100 µs ``oneshot_block`` (a list comprehension per group) with groups of 100 µs
  grouped, 1 ms   ``oneshot_block`` with the calls per repetition the child's calibration
                  picks (``calls_per_repetition``: 1 ms, at most 32 KiB of payload), as
                  the agent now measures

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
from itertools import repeat
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from iotsecbench_agent.cipherbench_streams import generate_key
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import Mechanism

from bench.ciphers import agent_calls, bare, mechanism_loop, timed_in_process

MECHANISM = "aes-128-cbc"
SIZE = 16
Way = Callable[[], tuple[float, float]]


def map_groups(mechanism: Mechanism, payload: bytes, n: int, calls: int) -> tuple[float, float]:
    """Mean ns per call of ``n // calls`` groups of ``calls`` calls made with ``map``, one
    direction at a time, each group timed with both clocks, every frame kept and given back
    in order (as ``oneshot_block`` does), after a warm-up of the same; collector off."""
    secure, unsecure = mechanism.secure, mechanism.unsecure
    clock, cpu = time.perf_counter_ns, time.process_time_ns
    groups = max(1, n // calls)
    gc.collect()
    gc.disable()
    try:
        for _ in range(2):  # the first pass is the warm-up
            frames: list[list[bytes]] = []
            forward = backward = 0
            for _ in range(groups):
                cpu()  # read as the agent reads it; only wall times are compared
                w0 = clock()
                group = list(map(secure, repeat(payload, calls)))
                w1 = clock()
                cpu()
                frames.append(group)
                forward += w1 - w0
            for group in frames:
                cpu()
                w0 = clock()
                backs = list(map(unsecure, group))
                w1 = clock()
                cpu()
                if backs.count(payload) != calls:
                    raise RuntimeError(f"{mechanism.name}: unsecure did not give the payload back")
                backward += w1 - w0
    finally:
        gc.enable()
    return forward / (groups * calls), backward / (groups * calls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--calls", type=int, default=8500, help="calls per way and round")
    args = parser.parse_args()
    n = args.calls
    key = generate_key(MECHANISM)
    payload = os.urandom(SIZE)
    calls = agent_calls(MECHANISM, key, SIZE)

    tenth = max(1, round(calls / 10))  # a group of 100 µs, as the agent timed before

    # The ways of bench/ciphers.py's part 2, each with its own warm-up and the collector off;
    # n calls in all per way: n // c repetitions of c calls.
    ways: dict[str, Way] = {
        "bare": lambda: bare(MECHANISM, key, SIZE, n),
        "mechanism": lambda: mechanism_loop(MECHANISM, key, SIZE, n),
        "one call": lambda: timed_in_process(MECHANISM, key, SIZE, n, calls=1),
        f"map, 100 µs ({tenth} calls)": lambda: map_groups(
            registry.create(MECHANISM, key=key), payload, n, tenth
        ),
        f"grouped, 100 µs ({tenth} calls)": lambda: timed_in_process(
            MECHANISM, key, SIZE, max(1, n // tenth), calls=tenth
        ),
        f"grouped, 1 ms ({calls} calls; the agent)": lambda: timed_in_process(
            MECHANISM, key, SIZE, max(1, n // calls), calls=calls
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
        f"\n`bench/cipher_grouping.py`, {when}; {args.rounds} interleaved rounds of {n} calls "
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
