"""Protocol runners. Importing this package registers every built-in messaging runner; the
runner of each benchmark kind is listed in ``jobkinds.py``, which finds a job's runner
(``jobkinds.runner_for``)."""

from __future__ import annotations

from iotsecbench_agent.runners import (
    coap_roundtrip,
    mqtt_ack,
    mqtt_roundtrip,
    mqttsn_ack,
    mqttsn_roundtrip,
    oneway_receiver,
    srup_roundtrip,
)
from iotsecbench_agent.runners.base import (
    RunClock,
    RunContext,
    Runner,
    messaging_runner_for,
    register,
)

__all__ = [
    "RunClock",
    "RunContext",
    "Runner",
    "coap_roundtrip",
    "messaging_runner_for",
    "mqtt_ack",
    "mqtt_roundtrip",
    "mqttsn_ack",
    "mqttsn_roundtrip",
    "oneway_receiver",
    "register",
    "srup_roundtrip",
]
