"""What a completed run's results read after its first view: the cached round trips and
wire sizes (results.models.RoundTripCache) and the memoized statistics."""

from __future__ import annotations

import pytest

from experiments.models import RunStatus
from measurements.models import MessageRecord
from results.models import RoundTripCache
from results.services.round_trips import run_round_trips_warm, run_wire_size_counts
from results.services.sizes import run_wire_bytes
from results.services.summaries import run_statistics_compute
from results.tests.conftest import MS, messaging_spec

RTTS = [4 * MS, 10 * MS, None, 1 * MS]


@pytest.mark.django_db
def test_warming_a_completed_run_stores_its_wire_sizes_and_the_sizes_never_rescan(make_run):
    made = make_run({"pi-a": RTTS, "pi-b": [2 * MS, 3 * MS]}, wire_bytes=163)

    run_round_trips_warm(run_id=made.run.pk)

    stored = dict(RoundTripCache.objects.values_list("run_device__device__name", "wire_sizes"))
    assert stored == {"pi-a": [[163, 3]], "pi-b": [[163, 2]]}  # delivered messages only
    MessageRecord.objects.filter(run_device__run=made.run).delete()
    assert run_wire_size_counts(run=made.run) == [(163, 5)]
    wire = run_wire_bytes(run=made.run)
    assert wire is not None
    assert (wire.messages, wire.median, wire.min, wire.max) == (5, 163, 163, 163)


@pytest.mark.django_db
def test_a_run_in_progress_is_always_read_from_its_records(make_run):
    made = make_run({"pi-a": RTTS}, status=RunStatus.RUNNING, wire_bytes=90)
    assert run_wire_size_counts(run=made.run) == [(90, 3)]
    assert not RoundTripCache.objects.exists()
    MessageRecord.objects.filter(run_device__run=made.run).delete()
    assert run_wire_size_counts(run=made.run) == []


@pytest.mark.django_db
def test_completed_statistics_are_memoized_but_their_repeats_are_read_afresh(make_run):
    spec = messaging_spec()
    first = make_run({"pi-a": RTTS}, spec=spec)
    before = run_statistics_compute(run=first.run)
    assert before.repeats.interval.n == 1

    # The memo answers without the records or the round-trip cache...
    MessageRecord.objects.filter(run_device__run=first.run).delete()
    RoundTripCache.objects.all().delete()
    again = run_statistics_compute(run=first.run)
    assert again.all_devices == before.all_devices
    assert again.devices == before.devices
    # ... and a repeat completed since is counted.
    make_run({"pi-a": [8 * MS]}, spec=spec, experiment=first.run.experiment)
    assert run_statistics_compute(run=first.run).repeats.interval.n == 2


@pytest.mark.django_db
def test_statistics_of_a_run_in_progress_are_never_memoized(make_run):
    made = make_run({"pi-a": RTTS}, status=RunStatus.RUNNING)
    assert run_statistics_compute(run=made.run).all_devices.summary.n == 3
    MessageRecord.objects.filter(run_device__run=made.run).delete()
    assert run_statistics_compute(run=made.run).all_devices.summary.n == 0
