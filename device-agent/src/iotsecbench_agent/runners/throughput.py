"""The throughput runner (job kind ``throughput``, §8 of docs/control-plane.md): how many
secured packets the device completes per time window, secure-only and secure-and-send.

The measuring is ``throughput``'s engine: ``setup`` builds the mechanisms (keys) and opens
the UDP socket and the local sink, ``run`` measures every window and emits its sample to
the run's sample log, whose progress counts windows against ``2 × mechanisms × sizes ×
repetitions``; ``cleanup`` closes the socket and stops the sink.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from iotsecbench_agent.runners.base import SAMPLES, RunContext, Runner, register
from iotsecbench_agent.throughput.engine import ThroughputEngine, Window
from iotsecbench_agent.throughput.plan import ThroughputPlan

logger = logging.getLogger(__name__)

THROUGHPUT = "throughput"


@register
class ThroughputRunner(Runner):
    kind = THROUGHPUT
    log = SAMPLES
    protocol = THROUGHPUT
    measurements = ()

    def __init__(self, spec: Mapping[str, Any], context: RunContext) -> None:
        super().__init__(spec, context)
        self.plan = ThroughputPlan.parse(spec)
        self.engine = ThroughputEngine(self.plan)

    @classmethod
    def validate_spec(cls, spec: Mapping[str, Any]) -> None:
        ThroughputPlan.parse(spec)

    @classmethod
    def planned_total(cls, spec: Mapping[str, Any]) -> int:
        return ThroughputPlan.parse(spec).total_windows

    def setup(self) -> None:
        if self.context.emit_sample is None:
            raise RuntimeError("a throughput run needs a sample log (context.emit_sample)")
        self.engine.open()

    def run(self) -> None:
        emit_sample = self.context.emit_sample
        assert emit_sample is not None
        logger.info(
            "agent.throughput_started run_id=%s mechanisms=%s sizes=%s repetitions=%d "
            "window_ms=%d target=%s",
            self.context.run_id,
            ",".join(self.plan.mechanisms),
            ",".join(str(s) for s in self.plan.data_sizes),
            self.plan.repetitions,
            self.plan.window_ms,
            self.plan.target or "local sink",
        )

        windows = send_errors = sink_dropped = 0

        def emit(window: Window) -> None:
            nonlocal windows, send_errors, sink_dropped
            emit_sample(window.sample)
            windows += 1
            send_errors += window.send_errors
            sink_dropped += window.sink_dropped or 0

        self.engine.run(emit=emit, stop=self.context.stop)
        # ENOBUFS/EAGAIN mean the device's queue was full: the figures hold (such sends are
        # not counted as packets), but the operator should know. Drops at the local sink
        # cost the sender nothing and are only the sink falling behind.
        logger.log(
            logging.WARNING if send_errors else logging.INFO,
            "agent.throughput_measured run_id=%s windows=%d send_errors=%d sink_dropped=%d",
            self.context.run_id,
            windows,
            send_errors,
            sink_dropped,
        )

    def cleanup(self) -> None:
        self.engine.close()
