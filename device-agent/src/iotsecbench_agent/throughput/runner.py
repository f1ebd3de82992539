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

from iotsecbench_agent.kinds.base import SampleRunner
from iotsecbench_agent.runners.base import RunContext
from iotsecbench_agent.throughput.engine import ThroughputEngine, Window
from iotsecbench_agent.throughput.plan import ThroughputPlan

logger = logging.getLogger(__name__)


class ThroughputRunner(SampleRunner[ThroughputPlan]):
    """Holds the engine: its socket and sink open in ``setup`` and close in ``cleanup``."""

    kind = "throughput"

    def __init__(self, spec: Mapping[str, Any], context: RunContext) -> None:
        super().__init__(spec, context)
        self.engine = ThroughputEngine(self.plan)

    @classmethod
    def parse_plan(cls, spec: Mapping[str, Any]) -> ThroughputPlan:
        return ThroughputPlan.parse(spec)

    def setup(self) -> None:
        super().setup()
        self.engine.open()

    def run(self) -> None:
        emit_sample = self.context.emit_sample
        assert emit_sample is not None
        logger.info(
            "agent.throughput_started %s window_ms=%d target=%s",
            self.started_fields(),
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
