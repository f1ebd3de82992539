"""Protocol runners. Importing this package registers every built-in messaging runner; the
runner of each benchmark kind is listed in ``kinds/registry.py``."""

from __future__ import annotations

from iotsecbench_agent.runners import (
    coap_roundtrip,
    mqtt_roundtrip,
    mqttsn_roundtrip,
    oneway_receiver,
    srup_roundtrip,
)
from iotsecbench_agent.runners.base import RunClock, RunContext, Runner, register, runner_for

__all__ = [
    "RunClock",
    "RunContext",
    "Runner",
    "coap_roundtrip",
    "mqtt_roundtrip",
    "mqttsn_roundtrip",
    "oneway_receiver",
    "register",
    "runner_for",
    "srup_roundtrip",
]
