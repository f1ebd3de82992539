"""One-way delay, controller to devices (the SRUP paper's method; docs/one-way.md).

- ``wire``: the payload layout (seq, the controller's send time, filler) and the END marker;
- ``clock``: the device's clock offset to the controller's, by NTP-style probes;
- ``controller``: ``OneWayController``, which the platform runs to send the messages.

The device end is the runner ``runners/oneway_receiver.py``.
"""

from __future__ import annotations

from iotsecbench_agent.oneway.clock import ClockOffset, ClockProbeError, probe_clock_offset
from iotsecbench_agent.oneway.controller import OneWayController, Target, TargetResult
from iotsecbench_agent.oneway.wire import END_SEQ, build_payload, parse_payload

__all__ = [
    "END_SEQ",
    "ClockOffset",
    "ClockProbeError",
    "OneWayController",
    "Target",
    "TargetResult",
    "build_payload",
    "parse_payload",
    "probe_clock_offset",
]
