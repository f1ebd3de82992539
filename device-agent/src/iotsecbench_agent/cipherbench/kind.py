"""The cipher benchmark as a benchmark kind (see ``kinds/``): job kind ``cipher_bench``,
subcommand ``cipher-bench``, samples to the run's sample log."""

from __future__ import annotations

from iotsecbench_agent.cipherbench import cli
from iotsecbench_agent.cipherbench.runner import CipherBenchRunner
from iotsecbench_agent.kinds.base import BenchKind

KIND = BenchKind(CipherBenchRunner, cli)
