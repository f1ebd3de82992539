"""The throughput benchmark as a benchmark kind (see ``kinds/``): job kind ``throughput``,
subcommand ``throughput``, one sample per window to the run's sample log."""

from __future__ import annotations

from iotsecbench_agent.kinds.base import BenchKind
from iotsecbench_agent.throughput import cli
from iotsecbench_agent.throughput.runner import ThroughputRunner

KIND = BenchKind(ThroughputRunner, cli)
