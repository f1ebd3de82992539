"""Protocol runners. Importing this package registers every built-in runner."""

from __future__ import annotations

from iotsecbench_agent.runners import (
    cipher_bench,
    coap_roundtrip,
    mqtt_roundtrip,
    mqttsn_roundtrip,
    oneway_receiver,
    srup_roundtrip,
    throughput,
)
from iotsecbench_agent.runners.base import RunClock, RunContext, Runner, register, runner_for

__all__ = [
    "RunClock",
    "RunContext",
    "Runner",
    "cipher_bench",
    "coap_roundtrip",
    "mqtt_roundtrip",
    "mqttsn_roundtrip",
    "oneway_receiver",
    "register",
    "runner_for",
    "srup_roundtrip",
    "throughput",
]
