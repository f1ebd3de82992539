"""What the subcommands of the sample kinds share: their common options, reading a size,
running a plan while writing ``--samples``, printing the summaries as JSON or as an aligned
table, and the ``error: …`` exit statuses (2 for a wrong argument, as argparse's own usage
errors; 1 for a measurement that failed)."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from typing import Any, Callable, Protocol, TypeVar

from iotsecbench_agent.errors import UnsupportedJob
from iotsecbench_agent.kinds.plan import CellSummary
from iotsecbench_agent.storage.samplelog import Sample, new_sample_log

USAGE_ERROR = 2  # as argparse's own usage errors
FAILED = 1
_SIZE = re.compile(r"(\d+)\s*([KMG])?(?:i?B)?", re.IGNORECASE)
_SUFFIX = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}

P = TypeVar("P")
T = TypeVar("T")
S = TypeVar("S")
P_contra = TypeVar("P_contra", contravariant=True)
T_co = TypeVar("T_co", covariant=True)
C = TypeVar("C", bound=CellSummary)
# A table column: its title and its alignment ("<" left, ">" right).
Column = tuple[str, str]


class RunPlan(Protocol[P_contra, T_co]):
    """A kind engine's ``run_plan``: measure the whole plan, emitting as it goes."""

    def __call__(self, plan: P_contra, *, emit: Callable[[T_co], None]) -> None: ...


def add_kind_parser(subparsers: Any, command: str, help: str, doc: str | None) -> Any:
    """The kind's subparser, described by the first paragraph of its module's ``doc``."""
    return subparsers.add_parser(
        command, help=help, description=doc.split("\n\n")[0] if doc else None
    )


def add_grid_arguments(
    parser: argparse.ArgumentParser,
    *,
    mechanism_help: str,
    size_help: str,
    repetitions: int,
    repetitions_help: str,
) -> None:
    """``--mechanism`` and ``--size`` (each repeated) and ``--repetitions``."""
    parser.add_argument(
        "--mechanism", action="append", default=[], metavar="NAME", help=mechanism_help
    )
    parser.add_argument("--size", action="append", default=[], metavar="BYTES", help=size_help)
    parser.add_argument(
        "--repetitions",
        default=str(repetitions),
        metavar="N",
        help=f"{repetitions_help} (default {repetitions})",
    )


def add_library_argument(parser: argparse.ArgumentParser, choices: Sequence[str]) -> None:
    """``--crypto-library NAME`` (the spec's ``crypto_library``; default pycryptodome)."""
    parser.add_argument(
        "--crypto-library",
        choices=list(choices),
        default=choices[0],
        help=f"the library that implements the mechanisms (default {choices[0]})",
    )


def add_output_arguments(parser: argparse.ArgumentParser, *, samples_help: str) -> None:
    """``--json`` and ``--samples FILE``."""
    parser.add_argument("--json", action="store_true", help="print the statistics as JSON")
    parser.add_argument("--samples", metavar="FILE", help=samples_help)


def parse_size(text: str) -> int:
    """``16``, ``8K``, ``1M``, ``100MiB``, ``1G`` → bytes; UnsupportedJob otherwise."""
    match = _SIZE.fullmatch(text.strip())
    if match is None:
        raise UnsupportedJob(f"--size {text!r} is not a size like 16, 8K, 1M or 1G")
    return int(match.group(1)) * _SUFFIX[(match.group(2) or "").upper()]


def int_arg(text: str, option: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise UnsupportedJob(f"{option} {text!r} is not an integer") from None


def grid_of(args: argparse.Namespace, known: Sequence[str], size_example: str) -> list[int]:
    """The parsed ``--size`` values, or UnsupportedJob when no ``--mechanism`` (naming the
    ``known`` ones) or no ``--size`` (``size_example``: e.g. ``--size 16 --size 8K``) is
    given."""
    if not args.mechanism:
        raise UnsupportedJob(f"give at least one --mechanism (known: {', '.join(known)})")
    if not args.size:
        raise UnsupportedJob(f"give at least one --size, e.g. {size_example}")
    return [parse_size(s) for s in args.size]


def usage_error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return USAGE_ERROR


def measure(
    args: argparse.Namespace,
    plan_of: Callable[[argparse.Namespace], P],
    run: RunPlan[P, T],
    sample_of: Callable[[T], Sample],
    failed: type[Exception],
) -> list[T] | int:
    """Plan from ``args``, run the plan and collect what it emits, appending each one's
    sample to ``--samples`` if given: the emitted items, or the exit status (a wrong
    argument, also one the run finds, is a usage error; ``failed`` is status 1)."""
    try:
        plan = plan_of(args)
        log = new_sample_log(args.samples)
    except UnsupportedJob as exc:
        return usage_error(str(exc))
    items: list[T] = []

    def emit(item: T) -> None:
        items.append(item)
        if log is not None:
            log.append(sample_of(item))

    try:
        run(plan, emit=emit)
    except UnsupportedJob as exc:  # e.g. a frame found too large for UDP when secured
        return usage_error(str(exc))
    except failed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return FAILED
    finally:
        if log is not None:
            log.close()
    return items


def print_summaries(
    args: argparse.Namespace,
    summaries: Sequence[S],
    json_row: Callable[[S], dict[str, Any]],
    table: Callable[[list[S]], str],
) -> None:
    """The summaries as JSON (one ``json_row`` each) with ``--json``, else as ``table``."""
    if args.json:
        print(json.dumps([json_row(s) for s in summaries], indent=2))
    else:
        print(table(list(summaries)))


# The columns every kind's table starts with: the summary's cell, and n.
CELL_COLUMNS: tuple[Column, ...] = (
    ("mechanism", "<"),
    ("operation", "<"),
    ("bytes", ">"),
    ("n", ">"),
)


def format_table(
    columns: Sequence[Column],
    summaries: Sequence[C],
    cells: Callable[[C], Sequence[str]],
) -> str:
    """One row per summary under ``CELL_COLUMNS`` and ``columns``: the summary's cell and n,
    then ``cells(summary)``; each column as wide as its widest cell."""
    head = [title for title, _ in (*CELL_COLUMNS, *columns)]
    aligns = [align for _, align in (*CELL_COLUMNS, *columns)]
    lines_of = [head, *[[*_cell(s), *cells(s)] for s in summaries]]
    widths = [max(len(row[i]) for row in lines_of) for i in range(len(head))]
    lines = []
    for row in lines_of:
        padded = [
            cell.ljust(width) if align == "<" else cell.rjust(width)
            for cell, width, align in zip(row, widths, aligns)
        ]
        lines.append("  ".join(padded).rstrip())
    return "\n".join(lines)


def _cell(s: CellSummary) -> list[str]:
    return [s.mechanism, s.operation, str(s.data_bytes), str(s.n)]
