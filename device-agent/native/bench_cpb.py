#!/usr/bin/env python3
"""Cycles (or nanoseconds) per byte of the native lightweight ciphers.

A measuring aid for the benchmark, not a test: it times many calls on 8 KiB buffers with
``time.perf_counter_ns`` (one native call per buffer, so the interpreter's share is a
fraction of a percent) and reports the best and the median batch.  Cycles per byte are
ns/byte times the CPU clock read from /proc/cpuinfo ("cpu MHz", x86) or, failing that,
from cpufreq in sysfs (the Raspberry Pi's /proc/cpuinfo has no clock); with neither, only
ns/byte is reported.  The clock read is nominal: turbo, throttling or a VM skew cycles.

Usage (from the device-agent directory, with the agent installed):
    python native/bench_cpb.py [--size 8192] [--calls 200] [--batches 7] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from iotsecbench_agent._lwc import (
    BLOCK_CIPHERS,
    BlockCipher,
    ascon_aead128_decrypt,
    ascon_aead128_encrypt,
)
from iotsecbench_agent.security.lightweight_mechanisms import BLOCK_CIPHER_KEY_BYTES

KEY_SIZES = BLOCK_CIPHER_KEY_BYTES  # the extension's contract
SYSFS_FREQ = (
    "/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq",
    "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq",
)


def cpu_mhz() -> tuple[float | None, str]:
    """The CPU clock in MHz and where it was read, or (None, reason)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            label, _, value = line.partition(":")
            if label.strip().lower() == "cpu mhz":
                return float(value), "/proc/cpuinfo 'cpu MHz'"
    except (OSError, ValueError):
        pass
    for path in SYSFS_FREQ:
        try:
            return int(Path(path).read_text()) / 1000.0, path
        except (OSError, ValueError):
            continue
    return None, "no CPU clock found: ns/byte only"


def ns_per_byte(fn: Callable[[], object], nbytes: int, calls: int, batches: int) -> list[float]:
    for _ in range(max(3, calls // 10)):  # warm caches and tables
        fn()
    out = []
    for _ in range(batches):
        start = time.perf_counter_ns()
        for _ in range(calls):
            fn()
        out.append((time.perf_counter_ns() - start) / (calls * nbytes))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=8192, help="bytes per call (multiple of 8)")
    parser.add_argument("--calls", type=int, default=200, help="calls per timed batch")
    parser.add_argument("--batches", type=int, default=7, help="timed batches per operation")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    if args.size <= 0 or args.size % 8:
        parser.error("--size must be a positive multiple of 8")

    data = bytes(range(256)) * (args.size // 256) + bytes(args.size % 256)
    iv, key16, nonce = bytes(8), bytes(range(16)), bytes(range(16, 32))
    ops: list[tuple[str, str, Callable[[], object]]] = []
    for name in BLOCK_CIPHERS:
        cipher = BlockCipher(name, bytes(range(KEY_SIZES[name])))
        ops += [
            (name, "ecb_encrypt", partial(cipher.ecb_encrypt, data)),
            (name, "ecb_decrypt", partial(cipher.ecb_decrypt, cipher.ecb_encrypt(data))),
            (name, "cbc_encrypt", partial(cipher.cbc_encrypt, iv, data)),
        ]
    sealed = ascon_aead128_encrypt(key16, nonce, b"", data)
    ops += [
        ("ascon-aead128", "encrypt", partial(ascon_aead128_encrypt, key16, nonce, b"", data)),
        ("ascon-aead128", "decrypt", partial(ascon_aead128_decrypt, key16, nonce, b"", sealed)),
    ]

    mhz, clock_source = cpu_mhz()
    rows = []
    for name, op, fn in ops:
        samples = ns_per_byte(fn, args.size, args.calls, args.batches)
        best, median = min(samples), statistics.median(samples)
        rows.append(
            {
                "cipher": name,
                "operation": op,
                "bytes_per_call": args.size,
                "ns_per_byte_best": round(best, 3),
                "ns_per_byte_median": round(median, 3),
                "cycles_per_byte_best": round(best * mhz / 1000, 1) if mhz else None,
                "cycles_per_byte_median": round(median * mhz / 1000, 1) if mhz else None,
            }
        )

    if args.json:
        print(json.dumps({"cpu_mhz": mhz, "clock_source": clock_source, "results": rows}, indent=2))
        return
    print(f"CPU clock: {f'{mhz:.0f} MHz' if mhz else '?'} ({clock_source}); {args.size}-byte calls")
    print(f"{'cipher':<14}{'operation':<13}{'ns/B best':>10}{'ns/B med':>10}{'c/B best':>10}")
    for r in rows:
        cpb = r["cycles_per_byte_best"]
        print(
            f"{r['cipher']:<14}{r['operation']:<13}{r['ns_per_byte_best']:>10.2f}"
            f"{r['ns_per_byte_median']:>10.2f}{cpb if cpb is not None else '-':>10}"
        )


if __name__ == "__main__":
    main()
