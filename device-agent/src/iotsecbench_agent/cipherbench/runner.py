"""The cipher-bench runner (job kind ``cipher_bench``, §7 of docs/control-plane.md): local
timing of security mechanisms over data sizes and repetitions, no network.

The measuring is ``cipherbench``'s (one child process per mechanism and data size); this
runner validates the spec, runs the plan and emits each sample to the run's sample log,
whose progress counts samples against ``2 × mechanisms × sizes × repetitions``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from iotsecbench_agent.cipherbench.engine import BenchPlan, run_plan
from iotsecbench_agent.kinds.base import SampleRunner

logger = logging.getLogger(__name__)


class CipherBenchRunner(SampleRunner[BenchPlan]):
    """Nothing to set up or release: each batch's child process is the engine's."""

    kind = "cipher_bench"

    @classmethod
    def parse_plan(cls, spec: Mapping[str, Any]) -> BenchPlan:
        return BenchPlan.parse(spec)

    def run(self) -> None:
        assert self.context.emit_sample is not None
        logger.info("agent.cipher_bench_started %s", self.started_fields())
        run_plan(self.plan, emit=self.context.emit_sample, stop=self.context.stop)

    def cleanup(self) -> None:
        pass
