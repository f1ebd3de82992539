"""A messaging run's resources per device (X-Run-Resources on the final chunk,
iotsecbench_contract.resources): stored on the device's part, answered by the run API,
null where an agent sent none."""

from __future__ import annotations

from typing import Any

import pytest
from iotsecbench_contract.resources import HEADER, PEAK_RSS_RUN, RunResources
from rest_framework.test import APIClient

from experiments.models import Run, RunDevice
from measurements.models import UploadChunk
from measurements.tests.conftest import T0, csv_chunk

FIGURES = RunResources(
    window_ns=1_800_000_000,
    cpu_user_ns=412_000_000,
    cpu_system_ns=96_000_000,
    peak_rss_kb=48_212,
    peak_rss_scope=PEAK_RSS_RUN,
    bytes_sent=8_440,
    bytes_received=8_280,
)
ROWS: list[tuple[int, int, int | None, str]] = [
    (i, T0 + i * 1_000_000, 50_000, "ok") for i in range(10)
]


def post_chunk(
    client: APIClient, run: Run, *, index: int, final: bool, resources: str | None, key: str
) -> Any:
    rows = ROWS[index * 5 : index * 5 + 5]
    headers = {
        "Idempotency-Key": key,
        "X-Chunk-Index": str(index),
        "X-Final-Chunk": "true" if final else "false",
    }
    if final:
        headers["X-Record-Total"] = "10"
    if resources is not None:
        headers[HEADER] = resources
    return client.post(
        f"/api/agent/runs/{run.pk}/records/",
        csv_chunk(rows),
        content_type="text/csv",
        headers=headers,
    )


@pytest.mark.django_db(transaction=True)
def test_final_chunk_resources_are_stored_and_the_run_api_answers_them(
    running_run, owner_client, django_capture_on_commit_callbacks
):
    run, (part_a, part_b), (agent_a, agent_b) = (
        running_run.run,
        running_run.parts,
        running_run.agents,
    )
    with django_capture_on_commit_callbacks(execute=True):
        post_chunk(agent_a, run, index=0, final=False, resources=None, key="a0")
        answer = post_chunk(
            agent_a, run, index=1, final=True, resources=FIGURES.to_header(), key="a1"
        )
        # An agent before the header: its part stays "not recorded".
        post_chunk(agent_b, run, index=0, final=False, resources=None, key="b0")
        post_chunk(agent_b, run, index=1, final=True, resources=None, key="b1")

    assert answer.status_code == 201
    part_a.refresh_from_db()
    part_b.refresh_from_db()
    assert part_a.resources == FIGURES
    assert (part_a.cpu_user_ns, part_a.bytes_sent, part_a.peak_rss_kb) == (
        412_000_000,
        8_440,
        48_212,
    )
    assert part_b.resources is None
    assert part_b.bytes_sent is None
    assert part_b.cpu_user_ns is None

    page = owner_client.get(f"/api/runs/{run.pk}/")
    assert page.status_code == 200
    devices = {d["name"]: d for d in page.json()["devices"]}
    assert devices[part_a.device.name]["resources"] == {
        "window_ns": 1_800_000_000,
        "cpu_user_ns": 412_000_000,
        "cpu_system_ns": 96_000_000,
        "peak_rss_kb": 48_212,
        "peak_rss_scope": "run",
        "bytes_sent": 8_440,
        "bytes_received": 8_280,
    }
    assert devices[part_b.device.name]["resources"] is None


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("value", "named"),
    [
        ('{"window_ns": 1}', "missing field(s)"),
        (FIGURES.to_header().replace('"bytes_sent":8440', '"bytes_sent":-3'), "bytes_sent"),
        ("not json", "not JSON"),
    ],
)
def test_final_chunk_with_invalid_resources_is_refused_and_nothing_is_stored(
    running_run, value: str, named: str
):
    run, part, agent = running_run.run, running_run.parts[0], running_run.agents[0]

    answer = post_chunk(agent, run, index=1, final=True, resources=value, key="a1")

    assert answer.status_code == 400
    assert answer.json()["code"] == "chunk_format_invalid"
    assert named in answer.json()["message"]
    assert not UploadChunk.objects.filter(run_device=part).exists()
    assert RunDevice.objects.get(pk=part.pk).resources is None
