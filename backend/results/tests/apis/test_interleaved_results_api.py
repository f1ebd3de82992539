"""GET /api/experiments/<id>/results/ of interleaved runs (issue #20 point 3): one cell per
mechanism of the rotation, with that mechanism's messages, and overheads against the none
part of the same runs paired by rotation cycle."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from experiments.models import Run
from measurements.models import MessageRecord
from results.services.experiment_table import INTERLEAVED_METHODS
from results.tests.conftest import MS, messaging_spec

pytestmark = pytest.mark.django_db

ROTATION = ["none", "null", "aes-128-cbc"]
# The known truth: what each mechanism adds to a round trip (ms).
COST_MS = {"none": 0.0, "null": 0.004, "aes-128-cbc": 0.020}


def _interleaved_messages(
    rng: np.random.Generator, cycles: int, *, lost: frozenset[int] = frozenset()
) -> list[int | None]:
    """Round trips of a run that drifts from 1 ms to 2 ms over its length (a drift that an
    unpaired comparison of far-apart messages would blur), each mechanism adding its cost."""
    messages: list[int | None] = []
    for seq in range(cycles * len(ROTATION)):
        drift = 1.0 + seq / (cycles * len(ROTATION))
        rtt = drift + COST_MS[ROTATION[seq % 3]] + rng.normal(0, 0.001)
        messages.append(None if seq in lost else int(rtt * MS))
    return messages


def _experiment(make_run: Any, repeats: int = 2) -> Any:
    rng = np.random.default_rng(11)
    experiment = None
    for repeat in range(1, repeats + 1):
        made = make_run(
            {"pi-a": _interleaved_messages(rng, 40, lost=frozenset({5} if repeat == 1 else ()))},
            spec=messaging_spec(interleave_mechanisms=ROTATION),
            experiment=experiment,
        )
        experiment = made.run.experiment
        Run.objects.filter(pk=made.run.pk).update(repeat=repeat)
    return experiment


def _body(client: Any, experiment: Any) -> dict[str, Any]:
    response = client.get(f"/api/experiments/{experiment.pk}/results/")
    assert response.status_code == 200, response.json()
    return dict(response.json())


def test_interleaved_runs_split_into_one_cell_per_mechanism_with_its_messages(
    make_run, owner_client
):
    experiment = _experiment(make_run)
    body = _body(owner_client, experiment)

    cells = {cell["label"]: cell for cell in body["cells"]}
    assert list(cells) == ROTATION
    for name, cell in cells.items():
        assert cell["parameters"] == {"security": name}
        assert len(cell["runs"]) == 2  # both repeats, each split
        assert cell["interval_level"] == "runs"
    # 40 cycles x 2 runs; message 5 of repeat 1 (5 % 3 = 2: aes-128-cbc) was lost.
    assert [cells[n]["messages"] for n in ROTATION] == [80, 80, 79]
    assert [cells[n]["lost"] for n in ROTATION] == [0, 0, 1]
    # The stored mechanism column is what the split counts lost messages by.
    assert MessageRecord.objects.filter(mechanism="aes-128-cbc", outcome="lost").count() == 1
    assert MessageRecord.objects.filter(mechanism="none").count() == 80


def test_interleaved_overheads_are_paired_by_cycle_against_the_none_part(make_run, owner_client):
    experiment = _experiment(make_run)
    body = _body(owner_client, experiment)

    overheads = {o["label"]: o for o in body["overheads"]}
    assert set(overheads) == {"null", "aes-128-cbc"}
    for name in ("null", "aes-128-cbc"):
        overhead = overheads[name]
        assert overhead["baseline_label"] == "none"
        assert overhead["paired"] is True
        # Message c·3+i against c·3 of the same cycle: the drift between them is 1/120 ms
        # per place (i / 120), which the pairing keeps; the known cost is recovered.
        place = ROTATION.index(name)
        truth = COST_MS[name] + place / 120
        assert overhead["overhead_ms"] == pytest.approx(truth, abs=0.001)
        low, high = overhead["ci_ms"]
        assert low < overhead["overhead_ms"] < high
        assert low > 0
        assert overhead["verdict"] == "slower"
        # Paired: the 1 ms drift across each run cancels out (its spread alone is ~0.29 ms).
        assert high - low < 0.02
    assert INTERLEAVED_METHODS in body["methods"]


def test_interleaved_cells_never_pool_with_a_run_of_one_mechanism(make_run, owner_client):
    experiment = _experiment(make_run, repeats=1)
    make_run(
        {"pi-a": [int(1.5 * MS)] * 30},
        spec=messaging_spec(security="aes-128-cbc"),
        experiment=experiment,
    )
    body = _body(owner_client, experiment)

    cells = body["cells"]
    assert len(cells) == 4
    alone = [c for c in cells if c["parameters"].get("interleave_mechanisms") is None]
    assert [c["messages"] for c in alone] == [30]
    unpaired = [o for o in body["overheads"] if not o["paired"]]
    assert unpaired == []  # the lone aes run has no none twin of its own
