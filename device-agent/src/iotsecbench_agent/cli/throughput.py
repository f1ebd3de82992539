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
import json
import sys
from dataclasses import asdict
from typing import Any

from iotsecbench_agent.cli.bench import parse_size
from iotsecbench_agent.errors import UnsupportedJob
from iotsecbench_agent.security import registry
from iotsecbench_agent.storage.samplelog import new_sample_log
from iotsecbench_agent.throughput.engine import (
    Summary,
    ThroughputFailed,
    Window,
    run_plan,
    summarize,
)
from iotsecbench_agent.throughput.plan import DEFAULT_WINDOW_MS, Target, ThroughputPlan

USAGE_ERROR = 2  # as argparse's own usage errors
DEFAULT_REPETITIONS = 10  # the contract's example; the paper repeated "several times"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``throughput`` subcommand to the CLI's subparsers."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "throughput",
        help="count secured packets per time window (the throughput job, locally)",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    parser.add_argument(
        "--mechanism",
        action="append",
        default=[],
        metavar="NAME",
        help="a mechanism of `iotsecbench-agent mechanisms`, `none` for the baseline "
        "(repeat for several)",
    )
    parser.add_argument(
        "--size",
        action="append",
        default=[],
        metavar="BYTES",
        help="payload size, e.g. 1, 1280, 8K (at most 65507; repeat for several)",
    )
    parser.add_argument(
        "--repetitions",
        default=str(DEFAULT_REPETITIONS),
        metavar="N",
        help=f"windows per mechanism, operation and size (default {DEFAULT_REPETITIONS})",
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
    parser.add_argument("--json", action="store_true", help="print the statistics as JSON")
    parser.add_argument(
        "--samples", metavar="FILE", help="also write every window's sample to FILE (§8 CSV)"
    )
    return parser


def main(args: argparse.Namespace) -> int:
    try:
        plan = _plan(args)
        log = new_sample_log(args.samples)
    except UnsupportedJob as exc:
        return _usage_error(str(exc))
    windows: list[Window] = []

    def emit(window: Window) -> None:
        windows.append(window)
        if log is not None:
            log.append(window.sample)

    try:
        run_plan(plan, emit=emit)
    except UnsupportedJob as exc:  # a frame found too large for UDP when secured
        return _usage_error(str(exc))
    except ThroughputFailed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        if log is not None:
            log.close()
    summaries = summarize(w.sample for w in windows)
    if args.json:
        print(json.dumps([asdict(s) for s in summaries], indent=2))
    else:
        print(format_table(summaries))
    errors = sum(w.send_errors for w in windows)
    dropped = sum(w.sink_dropped or 0 for w in windows)
    if errors or dropped:
        print(
            f"note: {errors} sends failed with ENOBUFS/EAGAIN (not counted as packets); "
            f"{dropped} datagrams were dropped at the local sink",
            file=sys.stderr,
        )
    return 0


def _usage_error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return USAGE_ERROR


def _int_arg(text: str, option: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise UnsupportedJob(f"{option} {text!r} is not an integer") from None


def _plan(args: argparse.Namespace) -> ThroughputPlan:
    if not args.mechanism:
        known = ", ".join(registry.names())
        raise UnsupportedJob(f"give at least one --mechanism (known: {known})")
    if not args.size:
        raise UnsupportedJob("give at least one --size, e.g. --size 1 --size 1280")
    return ThroughputPlan.of(
        args.mechanism,
        [parse_size(s) for s in args.size],
        _int_arg(args.repetitions, "--repetitions"),
        window_ms=_int_arg(args.window_ms, "--window-ms"),
        target=Target.parse(args.target) if args.target else None,
    )


COLUMNS = (
    ("mechanism", "<"),
    ("operation", "<"),
    ("bytes", ">"),
    ("n", ">"),
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

    rows = [[title for title, _ in COLUMNS]]
    for s in summaries:
        rows.append(
            [
                s.mechanism,
                s.operation,
                str(s.data_bytes),
                str(s.n),
                f"{s.packets_per_s_mean:.0f}",
                opt(s.packets_per_s_std, ".0f"),
                opt(s.relative_cost, ".2f"),
                f"{s.cpu_share_mean * 100:.1f}",
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
