"""The benchmark kinds of this agent, in one place: each kind's folder says what it is in
its ``kind.py`` (a ``kinds.base.BenchKind``), and ``KINDS`` lists them. The runtime finds a
kind's runner here (``runners.runner_for``), the CLI its subcommand (``cli/main.py``).
Adding a kind: copy a kind's folder, and add its ``KIND`` to ``KINDS``.

Messaging runners (``runners/``: one per protocol and measurement) are the ``messaging``
kind, registered by their own modules.
"""

from __future__ import annotations

from iotsecbench_agent.cipherbench.kind import KIND as CIPHER_BENCH
from iotsecbench_agent.kinds.base import BenchKind
from iotsecbench_agent.throughput.kind import KIND as THROUGHPUT

KINDS: tuple[BenchKind, ...] = (CIPHER_BENCH, THROUGHPUT)


def by_job_kind() -> dict[str, BenchKind]:
    """The kinds by job kind (``job.kind``): where ``runners.runner_for`` finds their
    runners."""
    return {kind.runner.kind: kind for kind in KINDS}


def by_command() -> dict[str, BenchKind]:
    """The kinds by CLI subcommand."""
    return {kind.cli.COMMAND: kind for kind in KINDS}


__all__ = ["KINDS", "BenchKind", "by_command", "by_job_kind"]
