"""``iotsecbench-agent cipher-bench``: the cipher benchmark of a ``cipher_bench`` job (§7),
run standalone on this device, with its statistics printed instead of uploaded.

    iotsecbench-agent cipher-bench --mechanism aes-128-cbc --mechanism ed25519 \\
        --size 16 --size 8K --size 100M --repetitions 100 [--json] [--samples FILE]

Per (mechanism, operation, size) it prints n, the mean, sample variance and sample
standard deviation (n − 1, as the paper) of the wall time in µs, the mean CPU time, the
throughput (MB/s, 10^6 bytes per second, from the mean wall time) and the batch's peak
RSS in KiB. Sizes take binary suffixes: 8K = 8192, 1M = 1048576, 1G = 1073741824.
A wrong mechanism, size or repetition count is one ``error: …`` line on stderr and exit
status 2; a failed decrypt/verify is exit status 1.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import asdict
from typing import Any

from iotsecbench_agent.cipherbench.engine import (
    BenchFailed,
    BenchPlan,
    Summary,
    benchable_mechanisms,
    run_plan,
    summarize,
)
from iotsecbench_agent.errors import UnsupportedJob
from iotsecbench_agent.storage.samplelog import Sample, new_sample_log

USAGE_ERROR = 2  # as argparse's own usage errors
DEFAULT_REPETITIONS = 100  # the paper's
_SIZE = re.compile(r"(\d+)\s*([KMG])?(?:i?B)?", re.IGNORECASE)
_SUFFIX = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``cipher-bench`` subcommand to the CLI's subparsers."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "cipher-bench",
        help="time security mechanisms over data sizes (the cipher_bench job, locally)",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    parser.add_argument(
        "--mechanism",
        action="append",
        default=[],
        metavar="NAME",
        help="a mechanism of `iotsecbench-agent mechanisms` (repeat for several)",
    )
    parser.add_argument(
        "--size",
        action="append",
        default=[],
        metavar="BYTES",
        help="data size, e.g. 16, 8K, 1M, 100M, 1G (binary multiples; repeat for several)",
    )
    parser.add_argument(
        "--repetitions",
        default=str(DEFAULT_REPETITIONS),
        metavar="N",
        help=f"timed repetitions per mechanism, operation and size (default {DEFAULT_REPETITIONS})",
    )
    parser.add_argument("--json", action="store_true", help="print the statistics as JSON")
    parser.add_argument(
        "--samples", metavar="FILE", help="also write every sample to FILE (the §7 CSV)"
    )
    return parser


def main(args: argparse.Namespace) -> int:
    try:
        plan = _plan(args)
        log = new_sample_log(args.samples)
    except UnsupportedJob as exc:
        return _usage_error(str(exc))
    samples: list[Sample] = []

    def emit(sample: Sample) -> None:
        samples.append(sample)
        if log is not None:
            log.append(sample)

    try:
        run_plan(plan, emit=emit)
    except BenchFailed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        if log is not None:
            log.close()
    summaries = summarize(samples)
    if args.json:
        print(json.dumps([_json_row(s) for s in summaries], indent=2))
    else:
        print(format_table(summaries))
    return 0


def _usage_error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return USAGE_ERROR


def parse_size(text: str) -> int:
    """``16``, ``8K``, ``1M``, ``100MiB``, ``1G`` → bytes; UnsupportedJob otherwise."""
    match = _SIZE.fullmatch(text.strip())
    if match is None:
        raise UnsupportedJob(f"--size {text!r} is not a size like 16, 8K, 1M or 1G")
    return int(match.group(1)) * _SUFFIX[(match.group(2) or "").upper()]


def _plan(args: argparse.Namespace) -> BenchPlan:
    if not args.mechanism:
        known = ", ".join(benchable_mechanisms())
        raise UnsupportedJob(f"give at least one --mechanism (known: {known})")
    if not args.size:
        raise UnsupportedJob("give at least one --size, e.g. --size 16 --size 8K")
    try:
        repetitions = int(args.repetitions)
    except ValueError:
        raise UnsupportedJob(f"--repetitions {args.repetitions!r} is not an integer") from None
    return BenchPlan.of(args.mechanism, [parse_size(s) for s in args.size], repetitions)


def _json_row(summary: Summary) -> dict[str, Any]:
    row = asdict(summary)
    if row["throughput_mb_s"] == float("inf"):  # a zero mean: no JSON number for that
        row["throughput_mb_s"] = None
    return row


COLUMNS = (
    ("mechanism", "<"),
    ("operation", "<"),
    ("bytes", ">"),
    ("n", ">"),
    ("mean µs", ">"),
    ("var µs²", ">"),
    ("std µs", ">"),
    ("cpu µs", ">"),
    ("MB/s", ">"),
    ("peak RSS KB", ">"),
    ("calls/rep", ">"),
)


def format_table(summaries: list[Summary]) -> str:
    """The summaries as an aligned text table, one line per (mechanism, operation, size)."""

    def num(value: float | None) -> str:
        if value is None:
            return "-"
        return f"{value:.2f}" if abs(value) >= 1 else f"{value:.3g}"  # 3 digits at least

    rows = [[title for title, _ in COLUMNS]]
    for s in summaries:
        rows.append(
            [
                s.mechanism,
                s.operation,
                str(s.data_bytes),
                str(s.n),
                num(s.wall_mean_us),
                num(s.wall_var_us2),
                num(s.wall_std_us),
                num(s.cpu_mean_us),
                num(s.throughput_mb_s),
                str(s.peak_rss_kb),
                str(s.calls),
            ]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    lines = []
    for row in rows:
        cells = [
            cell.ljust(width) if align == "<" else cell.rjust(width)
            for cell, width, (_, align) in zip(row, widths, COLUMNS)
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)
