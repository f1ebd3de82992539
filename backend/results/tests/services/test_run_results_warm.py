"""What the worker computes when a messaging run completes (results.tasks.
run_round_trips_warm_task → results.services.warm): its pages and its experiment's results
then read it, never its records."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from experiments.models import RunStatus
from measurements.models import MessageRecord
from results.models import RoundTripCache
from results.services.run_replicates import RUN_REPLICATES_KEY, RunReplicates, runs_replicates
from results.services.summaries import STATISTICS_MEMO_KEY, RunStatistics
from results.tasks import run_round_trips_warm_task
from results.tests.conftest import MS

pytestmark = pytest.mark.django_db


def test_completion_work_stores_the_runs_statistics_and_its_figures_for_the_experiment(make_run):
    made = make_run({"pi-a": [4 * MS, 10 * MS, None, 1 * MS], "pi-b": [2 * MS, 3 * MS]})

    assert run_round_trips_warm_task(str(made.run.pk)) == 2

    statistics = cache.get(STATISTICS_MEMO_KEY.format(run_id=made.run.pk))
    assert isinstance(statistics, RunStatistics)
    assert statistics.all_devices.records == 6
    figures = cache.get(RUN_REPLICATES_KEY.format(run_id=made.run.pk))
    assert isinstance(figures, RunReplicates)
    assert (figures.messages, figures.lost, figures.median_ms) == (5, 1, 3.0)
    assert figures.stage_two is not None
    assert figures.stage_two.means.size == 2000


def test_the_experiments_results_read_a_warmed_runs_figures_without_its_records(make_run):
    made = make_run({"pi-a": [4 * MS, 10 * MS, 1 * MS]})
    run_round_trips_warm_task(str(made.run.pk))
    MessageRecord.objects.filter(run_device__run=made.run).delete()
    made.run.run_devices.all().delete()  # nor the cached round trips (they go with it)

    (figures,) = runs_replicates(runs=[made.run])

    assert (figures.messages, figures.mean_ms, figures.median_ms) == (3, 5.0, 4.0)


def test_a_run_not_completed_is_neither_warmed_nor_kept(make_run):
    made = make_run({"pi-a": [4 * MS]}, status=RunStatus.RUNNING)

    assert run_round_trips_warm_task(str(made.run.pk)) == 0
    (figures,) = runs_replicates(runs=[made.run])

    assert figures.messages == 1
    assert cache.get(RUN_REPLICATES_KEY.format(run_id=made.run.pk)) is None


def test_the_run_pages_first_view_reads_the_plot_data_computed_on_completion(
    make_run, owner_client
):
    made = make_run({"pi-a": [4 * MS, 10 * MS, 1 * MS], "pi-b": [2 * MS, 3 * MS]})
    run_round_trips_warm_task(str(made.run.pk))
    MessageRecord.objects.filter(run_device__run=made.run).delete()
    RoundTripCache.objects.filter(run_device__run=made.run).delete()

    body = owner_client.get(f"/api/runs/{made.run.pk}/distribution/").json()

    assert {d["device_name"]: d["n"] for d in body["devices"]} == {"pi-a": 3, "pi-b": 2}
    assert sum(sum(d["counts"]) for d in body["devices"]) == 5
    # Another query is computed afresh, from the records (gone here).
    other = owner_client.get(f"/api/runs/{made.run.pk}/distribution/?bins=20").json()
    assert [d["n"] for d in other["devices"]] == [0, 0]
