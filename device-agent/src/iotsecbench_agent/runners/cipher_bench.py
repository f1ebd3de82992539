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
from iotsecbench_agent.runners.base import SAMPLES, RunContext, Runner, register

logger = logging.getLogger(__name__)

CIPHER_BENCH = "cipher_bench"


@register
class CipherBenchRunner(Runner):
    kind = CIPHER_BENCH
    log = SAMPLES
    protocol = CIPHER_BENCH
    measurements = ()

    def __init__(self, spec: Mapping[str, Any], context: RunContext) -> None:
        super().__init__(spec, context)
        self.plan = BenchPlan.parse(spec)

    @classmethod
    def validate_spec(cls, spec: Mapping[str, Any]) -> None:
        BenchPlan.parse(spec)

    @classmethod
    def planned_total(cls, spec: Mapping[str, Any]) -> int:
        return BenchPlan.parse(spec).total_samples

    def setup(self) -> None:
        if self.context.emit_sample is None:
            raise RuntimeError("a cipher-bench run needs a sample log (context.emit_sample)")

    def run(self) -> None:
        assert self.context.emit_sample is not None
        logger.info(
            "agent.cipher_bench_started run_id=%s mechanisms=%s sizes=%s repetitions=%d",
            self.context.run_id,
            ",".join(self.plan.mechanisms),
            ",".join(str(s) for s in self.plan.data_sizes),
            self.plan.repetitions,
        )
        run_plan(self.plan, emit=self.context.emit_sample, stop=self.context.stop)

    def cleanup(self) -> None:
        pass
