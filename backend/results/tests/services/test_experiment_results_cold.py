"""An experiment's results with every cache empty (the cold first view: the worker's
completion work lost) against the same results after the worker's work, and the results
table read from the cached payload (docs/results.md, "Experiment results", Speed)."""

from __future__ import annotations

import csv
import io
from typing import Any
from unittest.mock import patch

import numpy as np
import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from experiments.models import Run
from measurements.selectors import run_devices_round_trips
from results.models import RoundTripCache
from results.services import run_replicates
from results.services.warm import run_results_warm
from results.tests.conftest import MS, messaging_spec

pytestmark = pytest.mark.django_db

MECHANISMS = {"none": 1.0, "aes-128-cbc": 3.0}


def _matrix(make_run: Any, repeats: int = 3) -> Any:
    rng = np.random.default_rng(11)
    experiment = None
    for repeat in range(1, repeats + 1):
        for security, centre in MECHANISMS.items():
            offset = centre + rng.normal(0, 0.05)
            made = make_run(
                {
                    device: [int((offset + rng.exponential(0.1)) * MS) for _ in range(40)]
                    for device in ("pi-a", "pi-b")
                },
                spec=messaging_spec(security=security),
                experiment=experiment,
            )
            experiment = made.run.experiment
            Run.objects.filter(pk=made.run.pk).update(repeat=repeat)
    return experiment


def _every_cache_emptied() -> None:
    RoundTripCache.objects.all().delete()
    cache.clear()


def _results(client: Any, experiment: Any, path: str = "") -> Any:
    response = client.get(f"/api/experiments/{experiment.pk}/results/{path}")
    assert response.status_code == 200
    return response


def test_cold_first_view_gives_the_payload_of_a_view_after_the_workers_work(make_run, owner_client):
    experiment = _matrix(make_run)
    _every_cache_emptied()
    cold = _results(owner_client, experiment).json()

    _every_cache_emptied()
    for run_id in Run.objects.filter(experiment=experiment).values_list("pk", flat=True):
        run_results_warm(run_id=run_id)
    warm = _results(owner_client, experiment).json()

    assert cold == warm
    assert len(cold["cells"]) == 2
    assert all(cell["interval_level"] == "runs" for cell in cold["cells"])


def test_cold_first_view_reads_every_runs_records_in_one_query_and_caches_them(
    make_run, owner_client
):
    experiment = _matrix(make_run)
    _every_cache_emptied()
    # A spy, not a mock: the records are read for real, and the call is counted (the
    # records go through a psycopg cursor that Django's query log does not see, and
    # PostgreSQL's scan counters depend on the plan).
    with patch.object(
        run_replicates, "run_devices_round_trips", wraps=run_devices_round_trips
    ) as read:
        _results(owner_client, experiment)

    run_devices = list(
        Run.objects.filter(experiment=experiment).values_list("run_devices", flat=True)
    )
    assert read.call_count == 1  # not one per run (6 runs)
    assert sorted(read.call_args.kwargs["run_device_ids"]) == sorted(run_devices)
    assert RoundTripCache.objects.count() == len(run_devices) == 2 * 3 * 2

    cache.clear()  # the round-trip rows kept: the records are not read again
    with patch.object(
        run_replicates, "run_devices_round_trips", wraps=run_devices_round_trips
    ) as read_again:
        _results(owner_client, experiment)
    assert read_again.call_count == 0


@pytest.mark.parametrize("path", ["table.csv", "table.parquet"])
def test_results_table_is_built_from_the_cached_payload_without_computing_it_again(
    make_run, owner_client, path
):
    experiment = _matrix(make_run)
    body = _results(owner_client, experiment).json()

    with CaptureQueriesContext(connection) as queries:
        _results(owner_client, experiment, path)

    # The payload's digest reads the runs once; computing the results would also read their
    # devices (experiments_rundevice), the cells' memos aside.
    assert not [q for q in queries if "experiments_rundevice" in q["sql"]]
    if path == "table.csv":
        text = _results(owner_client, experiment, path).content.decode()
        rows = {row["cell"]: row for row in csv.DictReader(io.StringIO(text))}
        for cell in body["cells"]:
            assert float(rows[cell["key"]]["mean_ms"]) == cell["mean_ms"]
            assert float(rows[cell["key"]]["mean_ms_ci_low"]) == cell["mean_ci_ms"][0]
            assert rows[cell["key"]]["ci_clipped"] == str(cell["ci_clipped"])
