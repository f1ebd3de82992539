"""A design the platform accepts is one the agent runs (issue #18): at each limit of
iotsecbench_contract.limits the design is created and its job's spec parses with the
contract's dataclass (what the agent's plan parses it with); one above, a 400 names the
field and the allowed range, and nothing is created. The agent's side:
device-agent/tests/test_sample_plan_limits.py."""

from __future__ import annotations

from typing import Any

import pytest
from iotsecbench_contract.benchspec import CipherBenchSpec, ThroughputSpec
from iotsecbench_contract.limits import (
    MAX_BENCH_DATA_BYTES,
    MAX_BENCH_REPETITIONS,
    MAX_THROUGHPUT_REPETITIONS,
    MAX_UDP_PAYLOAD,
    MAX_WINDOW_MS,
)

from core.testing.factories import DeviceFactory, ExperimentFactory
from experiments.models import Experiment, Run, RunDevice
from experiments.services.jobs import _job_for

BENCH = {"kind": "cipher_bench", "mechanisms": ["null"], "data_sizes": [16], "repetitions": 1}
THROUGHPUT = {**BENCH, "kind": "throughput", "mechanisms": ["none"]}
# (design, the contract's parse, field, its limit, how the 400 words the allowed range)
EDGES = [
    (BENCH, CipherBenchSpec.parse, "repetitions", MAX_BENCH_REPETITIONS, "from 1 to 10000."),
    (
        BENCH,
        CipherBenchSpec.parse,
        "data_sizes",
        MAX_BENCH_DATA_BYTES,
        "Item 1: Must be an integer from 1 to 1073741824.",
    ),
    (
        THROUGHPUT,
        ThroughputSpec.parse,
        "repetitions",
        MAX_THROUGHPUT_REPETITIONS,
        "repetitions must be an integer in 1..1000, got 1001",
    ),
    (THROUGHPUT, ThroughputSpec.parse, "window_ms", MAX_WINDOW_MS, "from 10 to 10000."),
    (
        THROUGHPUT,
        ThroughputSpec.parse,
        "data_sizes",
        MAX_UDP_PAYLOAD,
        "UDP datagram of at most 65,507 bytes",
    ),
]
IDS = [f"{design['kind']}-{field}" for design, _, field, *_ in EDGES]


def _body(personas: Any, design: dict[str, Any], field: str, value: int) -> dict[str, Any]:
    device = DeviceFactory.create(workspace=personas.workspace)
    return {
        "name": f"{field} at {value}",
        **design,
        field: [value] if field == "data_sizes" else value,
        "device_ids": [str(device.pk)],
    }


@pytest.mark.django_db
@pytest.mark.parametrize(("design", "parse", "field", "maximum", "allowed"), EDGES, ids=IDS)
def test_the_largest_accepted_value_makes_a_job_the_agent_parses(
    personas, owner_client, monkeypatch, design, parse, field, maximum, allowed
):
    monkeypatch.setattr("django.db.transaction.on_commit", lambda fn, **kw: None)
    created = owner_client.post(
        "/api/experiments/", _body(personas, design, field, maximum), format="json"
    )
    assert created.status_code == 201, created.json()

    owner_client.post(f"/api/experiments/{created.json()['id']}/runs/")
    part = RunDevice.objects.select_related("run__experiment").get(
        run=Run.objects.get(experiment_id=created.json()["id"])
    )
    spec = parse(_job_for(part, seq=1, now=1000.0)["spec"])

    expected = (maximum,) if field == "data_sizes" else maximum
    assert getattr(spec, field) == expected


@pytest.mark.django_db
@pytest.mark.parametrize(("design", "parse", "field", "maximum", "allowed"), EDGES, ids=IDS)
def test_one_above_the_largest_is_a_400_naming_the_field_and_range(
    personas, owner_client, design, parse, field, maximum, allowed
):
    response = owner_client.post(
        "/api/experiments/", _body(personas, design, field, maximum + 1), format="json"
    )

    assert response.status_code == 400, response.json()
    fields = response.json()["extra"]["fields"]
    assert list(fields) == [field]
    (message,) = fields[field]
    assert allowed in message
    assert Experiment.objects.count() == 0


@pytest.mark.django_db
def test_a_design_saved_under_older_limits_is_refused_at_start_naming_the_field(
    personas, owner_client
):
    device = DeviceFactory.create(workspace=personas.workspace)
    # A throughput design from before the window was capped at the agent's 10 s.
    experiment = ExperimentFactory.create(
        workspace=personas.workspace,
        kind="throughput",
        mechanisms=["none"],
        data_sizes=[64],
        repetitions=2,
        window_ms=60_000,
        devices=[device],
    )

    response = owner_client.post(f"/api/experiments/{experiment.pk}/runs/")

    assert response.status_code == 400, response.json()
    body = response.json()
    assert body["code"] == "design_out_of_limits"
    (message,) = body["extra"]["fields"]["window_ms"]
    assert "window_ms must be an integer in 10..10000, got 60000" in message
    assert not Run.objects.filter(experiment=experiment).exists()
