"""``iotsecbench-agent throughput``: the throughput experiment of a ``throughput`` job (§8),
run standalone on this device, with its statistics printed instead of uploaded.

    iotsecbench-agent throughput --mechanism none --mechanism aes-128-cbc \\
        --size 1 --size 1280 --repetitions 3 --window-ms 2000 [--json] \\
        [--target udp://host:port] [--samples FILE]

Per (mechanism, operation, size) it prints the number of windows, the mean and the sample
standard deviation (n − 1) of packets per second, the cost relative to no security
(packets/s of ``none`` ÷ packets/s of the mechanism, same operation and size; only when
``none`` is one of the mechanisms) and the mean CPU share (process CPU time ÷ wall time).
A wrong mechanism, size, repetition count, window or target is one ``error: …`` line on
stderr and exit status 2; a send that fails is exit status 1.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from typing import Any

from iotsecbench_contract.cryptolibs import THROUGHPUT_LIBRARIES

from iotsecbench_agent.kinds import cli
from iotsecbench_agent.kinds.cli import USAGE_ERROR
from iotsecbench_agent.security import registry
from iotsecbench_agent.storage.samplelog import Sample
from iotsecbench_agent.throughput.engine import (
    Summary,
    ThroughputFailed,
    Window,
    run_plan,
    summarize,
)
from iotsecbench_agent.throughput.plan import DEFAULT_WINDOW_MS, Target, ThroughputPlan

__all__ = ["COMMAND", "USAGE_ERROR", "add_parser", "format_table", "main"]

COMMAND = "throughput"
DEFAULT_REPETITIONS = 10  # the contract's example; the paper repeated "several times"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``throughput`` subcommand to the CLI's subparsers."""
    parser: argparse.ArgumentParser = cli.add_kind_parser(
        subparsers,
        COMMAND,
        "count secured packets per time window (the throughput job, locally)",
        __doc__,
    )
    cli.add_grid_arguments(
        parser,
        mechanism_help="a mechanism of `iotsecbench-agent mechanisms`, `none` for the baseline "
        "(repeat for several)",
        size_help="payload size, e.g. 1, 1280, 8K (at most 65507; repeat for several)",
        repetitions=DEFAULT_REPETITIONS,
        repetitions_help="windows per mechanism, operation and size",
    )
    parser.add_argument(
        "--window-ms",
        default=str(DEFAULT_WINDOW_MS),
        metavar="MS",
        help=f"length of one window in ms (default {DEFAULT_WINDOW_MS}, the paper's)",
    )
    parser.add_argument(
        "--target",
        metavar="udp://HOST:PORT",
        help="send to this UDP receiver instead of the agent's own sink on 127.0.0.1",
    )
    cli.add_library_argument(parser, THROUGHPUT_LIBRARIES)
    cli.add_output_arguments(
        parser, samples_help="also write every window's sample to FILE (§8 CSV)"
    )
    return parser


def main(args: argparse.Namespace) -> int:
    windows = cli.measure(args, _plan, run_plan, _window_sample, ThroughputFailed)
    if isinstance(windows, int):
        return windows
    cli.print_summaries(args, summarize(w.sample for w in windows), asdict, format_table)
    errors = sum(w.send_errors for w in windows)
    dropped = sum(w.sink_dropped or 0 for w in windows)
    if errors or dropped:
        print(
            f"note: {errors} sends failed with ENOBUFS/EAGAIN (not counted as packets); "
            f"{dropped} datagrams were dropped at the local sink",
            file=sys.stderr,
        )
    return 0


def _plan(args: argparse.Namespace) -> ThroughputPlan:
    sizes = cli.grid_of(args, registry.names(), "--size 1 --size 1280")
    return ThroughputPlan.of(
        args.mechanism,
        sizes,
        cli.int_arg(args.repetitions, "--repetitions"),
        window_ms=cli.int_arg(args.window_ms, "--window-ms"),
        target=Target.parse(args.target) if args.target else None,
        crypto_library=args.crypto_library,
    )


def _window_sample(window: Window) -> Sample:
    return window.sample


COLUMNS = (
    ("packets/s", ">"),
    ("std packets/s", ">"),
    ("relative cost", ">"),
    ("CPU %", ">"),
)


def format_table(summaries: list[Summary]) -> str:
    """The summaries as an aligned text table, one line per (mechanism, operation, size);
    ``-`` where a value needs more windows or the ``none`` baseline."""

    def opt(value: float | None, fmt: str) -> str:
        return "-" if value is None else format(value, fmt)

    return cli.format_table(
        COLUMNS,
        summaries,
        lambda s: [
            f"{s.packets_per_s_mean:.0f}",
            opt(s.packets_per_s_std, ".0f"),
            opt(s.relative_cost, ".2f"),
            f"{s.cpu_share_mean * 100:.1f}",
        ],
    )
