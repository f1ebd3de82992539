"""The job kinds of this agent, in one place, and the runner for a job (``runner_for``).

Benchmark kinds: each kind's folder says what it is in its ``kind.py`` (a
``kinds.base.BenchKind``), and ``KINDS`` lists them. The runtime finds a job's runner here
(``runner_for``), the CLI a kind's subcommand (``cli/main.py``). Adding a kind: copy a
kind's folder, and add its ``KIND`` to ``KINDS``.

Messaging runners (``runners/``: one per protocol and measurement) are the ``messaging``
kind, registered by their own modules when ``runners`` is imported.

This module sits above the kinds and the runners (it imports both), so neither of them
imports it: the seam the kinds plug into (``kinds/``) stays below the kinds themselves.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from iotsecbench_agent.cipherbench.kind import KIND as CIPHER_BENCH
from iotsecbench_agent.errors import UnsupportedJob
from iotsecbench_agent.kinds.base import BenchKind
from iotsecbench_agent.runners import Runner, messaging_runner_for
from iotsecbench_agent.runners.base import MESSAGING
from iotsecbench_agent.throughput.kind import KIND as THROUGHPUT

KINDS: tuple[BenchKind, ...] = (CIPHER_BENCH, THROUGHPUT)


def by_job_kind() -> dict[str, BenchKind]:
    """The kinds by job kind (``job.kind``): where ``runner_for`` finds their runners."""
    return {kind.runner.kind: kind for kind in KINDS}


def by_command() -> dict[str, BenchKind]:
    """The kinds by CLI subcommand."""
    return {kind.cli.COMMAND: kind for kind in KINDS}


def runner_for(kind: str, spec: Mapping[str, Any]) -> type[Runner]:
    """The runner class for a job, or UnsupportedJob saying what is not supported."""
    if kind != MESSAGING:
        bench_kind = by_job_kind().get(kind)
        if bench_kind is None:
            raise UnsupportedJob(f"job kind {kind!r} is not supported by this agent")
        return bench_kind.runner
    return messaging_runner_for(spec)


__all__ = ["KINDS", "BenchKind", "by_command", "by_job_kind", "runner_for"]
