"""The agent's plans take every design the platform accepts: each limit of
iotsecbench_contract.limits (the ones the platform's design API checks) is taken at its
maximum and refused one above it, naming the field and its range (issue #18)."""

from __future__ import annotations

from typing import Any

import pytest
from iotsecbench_contract.limits import (
    MAX_BENCH_DATA_BYTES,
    MAX_BENCH_REPETITIONS,
    MAX_THROUGHPUT_REPETITIONS,
    MAX_UDP_PAYLOAD,
    MAX_WINDOW_MS,
)

from iotsecbench_agent.cipherbench.engine import BenchPlan
from iotsecbench_agent.errors import UnsupportedJob
from iotsecbench_agent.throughput.plan import ThroughputPlan

# A cipher benchmark's floor, and throughput's baseline: "none" adds no byte to a packet, so
# the largest UDP payload still fits one datagram.
BENCH_SPEC = {"mechanisms": ["null"], "data_sizes": [16], "repetitions": 1}
THROUGHPUT_SPEC = {**BENCH_SPEC, "mechanisms": ["none"]}

EDGES = [
    (BenchPlan.parse, "repetitions", MAX_BENCH_REPETITIONS, "1..10000"),
    (BenchPlan.parse, "data_sizes", MAX_BENCH_DATA_BYTES, "1 to 1073741824 bytes"),
    (ThroughputPlan.parse, "repetitions", MAX_THROUGHPUT_REPETITIONS, "1..1000"),
    (ThroughputPlan.parse, "window_ms", MAX_WINDOW_MS, "10..10000"),
    (ThroughputPlan.parse, "data_sizes", MAX_UDP_PAYLOAD, "1 to 65507 bytes"),
]


def _spec(parse: Any, field: str, value: int) -> dict[str, Any]:
    spec = BENCH_SPEC if parse == BenchPlan.parse else THROUGHPUT_SPEC
    return {**spec, field: [value] if field == "data_sizes" else value}


@pytest.mark.parametrize(("parse", "field", "maximum", "allowed"), EDGES)
def test_plan_takes_each_limit_at_its_maximum(
    parse: Any, field: str, maximum: int, allowed: str
) -> None:
    plan = parse(_spec(parse, field, maximum))

    value = getattr(plan, field)
    assert value == ((maximum,) if field == "data_sizes" else maximum)


@pytest.mark.parametrize(("parse", "field", "maximum", "allowed"), EDGES)
def test_plan_refuses_one_above_each_limit_naming_the_field_and_range(
    parse: Any, field: str, maximum: int, allowed: str
) -> None:
    with pytest.raises(UnsupportedJob) as refused:
        parse(_spec(parse, field, maximum + 1))

    assert str(refused.value).startswith(f"spec.{field}")
    assert allowed in str(refused.value)
