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
from dataclasses import asdict
from typing import Any

from iotsecbench_contract.cryptolibs import CIPHER_BENCH_LIBRARIES

from iotsecbench_agent.cipherbench.engine import (
    BenchFailed,
    BenchPlan,
    Summary,
    benchable_mechanisms,
    run_plan,
    summarize,
)
from iotsecbench_agent.kinds import cli
from iotsecbench_agent.kinds.cli import USAGE_ERROR, parse_size
from iotsecbench_agent.storage.samplelog import Sample

__all__ = ["COMMAND", "USAGE_ERROR", "add_parser", "format_table", "main", "parse_size"]

COMMAND = "cipher-bench"
DEFAULT_REPETITIONS = 100  # the paper's


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``cipher-bench`` subcommand to the CLI's subparsers."""
    parser: argparse.ArgumentParser = cli.add_kind_parser(
        subparsers,
        COMMAND,
        "time security mechanisms over data sizes (the cipher_bench job, locally)",
        __doc__,
    )
    cli.add_grid_arguments(
        parser,
        mechanism_help="a mechanism of `iotsecbench-agent mechanisms` (repeat for several)",
        size_help="data size, e.g. 16, 8K, 1M, 100M, 1G (binary multiples; repeat for several)",
        repetitions=DEFAULT_REPETITIONS,
        repetitions_help="timed repetitions per mechanism, operation and size",
    )
    cli.add_library_argument(parser, CIPHER_BENCH_LIBRARIES)
    cli.add_output_arguments(parser, samples_help="also write every sample to FILE (the §7 CSV)")
    return parser


def main(args: argparse.Namespace) -> int:
    samples = cli.measure(args, _plan, run_plan, _sample, BenchFailed)
    if isinstance(samples, int):
        return samples
    cli.print_summaries(args, summarize(samples), _json_row, format_table)
    return 0


def _sample(sample: Sample) -> Sample:
    return sample


def _plan(args: argparse.Namespace) -> BenchPlan:
    sizes = cli.grid_of(args, benchable_mechanisms(), "--size 16 --size 8K")
    repetitions = cli.int_arg(args.repetitions, "--repetitions")
    return BenchPlan.of(args.mechanism, sizes, repetitions, args.crypto_library)


def _json_row(summary: Summary) -> dict[str, Any]:
    row = asdict(summary)
    if row["throughput_mb_s"] == float("inf"):  # a zero mean: no JSON number for that
        row["throughput_mb_s"] = None
    return row


COLUMNS = (
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

    return cli.format_table(
        COLUMNS,
        summaries,
        lambda s: [
            num(s.wall_mean_us),
            num(s.wall_var_us2),
            num(s.wall_std_us),
            num(s.cpu_mean_us),
            num(s.throughput_mb_s),
            str(s.peak_rss_kb),
            str(s.calls),
        ],
    )
