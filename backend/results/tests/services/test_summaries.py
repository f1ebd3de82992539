"""Run statistics from stored records: per device, all devices, combined mean, repeats."""

from __future__ import annotations

import numpy as np
import pytest

from experiments.models import RunStatus
from measurements.models import MessageRecord, RunStatistic
from results.models import RoundTripCache
from results.services import run_round_trips_load, run_statistics_compute
from results.services.round_trips import round_trip_cache_store
from results.services.summaries import ALL_DEVICES_LABEL
from results.tests.conftest import MS, messaging_spec

# pi-a: 3, 1, 10, 2, 4 ms delivered in that send order, one lost, one rejected (its echo
# failed verification); pi-b: 30 and 20 ms.
PI_A = [3 * MS, None, 1 * MS, 10 * MS, (50 * MS, "rejected_signature"), 2 * MS, 4 * MS]
PI_B = [30 * MS, 20 * MS]


@pytest.mark.django_db
def test_statistics_per_device_and_over_all_devices_match_hand_computed_values(make_run):
    made = make_run({"pi-a": PI_A, "pi-b": PI_B})
    result = run_statistics_compute(run=made.run)

    a, b = result.devices
    assert (a.device_name, a.records, a.summary.n, a.lost, a.rejected) == ("pi-a", 7, 5, 1, 1)
    assert a.rejected_signature == 1
    # pi-a as in test_statistics: mean 4, median 3, variance 12.5, CI (-0.3899452, 8.3899452)
    assert (a.summary.mean, a.summary.median, a.summary.variance) == (4, 3, 12.5)
    assert a.summary.ci_high == pytest.approx(8.3899452)
    # pi-b: mean 25; deviations ±5 -> variance 50 / 1 = 50, std 7.0710678;
    # t(0.975, 1) = 12.7062047; half = 12.7062047 * 7.0710678 / √2 = 63.5310236.
    assert (b.summary.n, b.summary.mean, b.summary.variance) == (2, 25, 50)
    assert b.summary.ci_low == pytest.approx(25 - 63.5310236)
    # All devices pooled: 1, 2, 3, 4, 10, 20, 30 -> mean 70 / 7 = 10, median 4.
    total = result.all_devices
    assert (total.device_name, total.device_id) == (ALL_DEVICES_LABEL, None)
    assert (total.records, total.summary.n, total.lost, total.rejected) == (9, 7, 1, 1)
    assert (total.summary.mean, total.summary.median) == (10, 4)
    # The SRUP paper's combined mean: (4 + 25) / 2 = 14.5, not the pooled 10.
    assert result.mean_of_device_means_ms == 14.5


@pytest.mark.django_db
def test_percentiles_agree_with_the_sql_summary_stored_at_completion(make_run):
    rtts = [int(x) for x in np.random.default_rng(4).gamma(2.0, 3.0, 500) * MS]
    made = make_run({"pi-a": rtts})
    result = run_statistics_compute(run=made.run)
    sql = RunStatistic.objects.get(run=made.run, run_device__isnull=True)
    s = result.all_devices.summary
    for ours, theirs in (
        (s.mean, sql.mean_ns),
        (s.median, sql.median_ns),
        (s.p95, sql.p95_ns),
        (s.p99, sql.p99_ns),
        (s.std, sql.std_ns),
    ):
        assert theirs is not None
        assert ours == pytest.approx(theirs / MS, rel=1e-9)


@pytest.mark.django_db
def test_repeats_are_the_completed_runs_with_the_same_spec(make_run, personas):
    first = make_run({"pi-a": [9 * MS, 11 * MS]}, spec=messaging_spec(interval_seed=1))
    experiment = first.run.experiment
    make_run({"pi-a": [12 * MS]}, spec=messaging_spec(interval_seed=2), experiment=experiment)
    third = make_run(
        {"pi-a": [13 * MS, 15 * MS]}, spec=messaging_spec(interval_seed=3), experiment=experiment
    )
    # Not repeats: another payload size, a run still ingesting, another experiment.
    make_run({"pi-a": [99 * MS]}, spec=messaging_spec(payload_size=128), experiment=experiment)
    make_run({"pi-a": [99 * MS]}, status=RunStatus.INGESTING, experiment=experiment)
    make_run({"pi-a": [99 * MS]}, spec=messaging_spec(interval_seed=4))

    repeats = run_statistics_compute(run=third.run).repeats
    # Run means 10, 12, 14: as in test_statistics, mean 12, CI (7.0317246, 16.9682754).
    assert [r.mean_ms for r in repeats.runs] == [10, 12, 14]
    assert repeats.runs[0].run_id == first.run.pk
    assert (repeats.interval.n, repeats.interval.mean, repeats.interval.std) == (3, 12, 2)
    assert repeats.interval.ci_low == pytest.approx(7.0317246)
    assert repeats.interval.ci_high == pytest.approx(16.9682754)


@pytest.mark.django_db
def test_a_completed_run_is_read_from_records_once_then_from_the_cache(make_run):
    made = make_run({"pi-a": PI_A, "pi-b": PI_B})
    first = run_round_trips_load(run=made.run)
    cached = RoundTripCache.objects.get(run_device=made.parts[0])
    assert np.frombuffer(cached.rtt_ns, "<i8").tolist() == [3 * MS, 1 * MS, 10 * MS, 2 * MS, 4 * MS]
    assert np.frombuffer(cached.seq, "<i4").tolist() == [0, 2, 3, 5, 6]  # send order
    assert cached.outcomes["lost"] == 1
    assert RoundTripCache.objects.filter(run_device__run=made.run).count() == 2

    MessageRecord.objects.filter(run_device__in=made.parts).delete()  # the cache answers now
    again = run_round_trips_load(run=made.run)
    assert [d.rtt_ms.tolist() for d in again] == [d.rtt_ms.tolist() for d in first]
    assert again[0].trips.outcomes == first[0].trips.outcomes


@pytest.mark.django_db
def test_storing_the_cache_twice_keeps_the_first_rows(make_run):
    made = make_run({"pi-a": [1 * MS]})
    first = run_round_trips_load(run=made.run)[0].trips
    round_trip_cache_store(trips={made.parts[0].pk: first})  # a second first view, late
    assert RoundTripCache.objects.filter(run_device=made.parts[0]).count() == 1


@pytest.mark.django_db
def test_a_run_in_progress_is_never_cached(make_run):
    made = make_run({"pi-a": [1 * MS, 2 * MS]}, status=RunStatus.INGESTING)
    loaded = run_round_trips_load(run=made.run)
    assert loaded[0].rtt_ms.tolist() == [1, 2]
    assert not RoundTripCache.objects.exists()


@pytest.mark.django_db
def test_a_device_without_records_has_empty_statistics(make_run):
    made = make_run({"pi-a": [], "pi-b": [None, None]})
    result = run_statistics_compute(run=made.run)
    assert [(d.records, d.summary.n, d.lost) for d in result.devices] == [(0, 0, 0), (2, 0, 2)]
    assert result.all_devices.summary.mean is None
    assert result.mean_of_device_means_ms is None
    assert RoundTripCache.objects.filter(run_device__run=made.run).count() == 2
