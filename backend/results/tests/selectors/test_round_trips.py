"""Reading round trips (one binary array_agg into numpy) and selecting runs."""

from __future__ import annotations

import pytest
from django.db import transaction
from django.http import Http404

from core.testing.factories import ExperimentFactory
from experiments.models import ExperimentKind, Run, RunStatus
from measurements.models import Stream
from measurements.selectors import run_round_trips
from measurements.services import STREAMS, csv_copy
from results.errors import RunHasNoRoundTrips
from results.selectors import run_repeats, runs_in_workspace
from results.tests.conftest import MS, T0, messaging_spec


@pytest.mark.django_db
def test_round_trips_come_in_send_order_with_outcome_counts_whatever_the_storage_order(
    make_run,
):
    made = make_run({"pi-a": [], "pi-b": [7 * MS]})
    part = made.parts[0]
    header = STREAMS[Stream.RECORDS].header.decode()
    lines = [
        f"{seq},{T0 + seq},{'' if rtt is None else T0 + seq + rtt},66,145,{outcome},,,,,"
        for seq, rtt, outcome in (
            (3, 4 * MS, "ok"),
            (0, 1 * MS, "ok"),
            (2, None, "lost"),
            (1, None, "ok"),  # ok without a receive time: the CHECK lets it in; not delivered
            (4, 9 * MS, "rejected_replay"),
        )
    ]
    with transaction.atomic():
        csv_copy(
            stream=STREAMS[Stream.RECORDS],
            run_device_id=part.pk,
            body=("\n".join([header, *lines]) + "\n").encode(),
        )

    trips = run_round_trips(run=made.run)
    assert trips[part.pk].seq.tolist() == [0, 3]
    assert trips[part.pk].rtt_ns.tolist() == [1 * MS, 4 * MS]
    assert trips[part.pk].outcomes == {  # counts by stored outcome, as written
        "ok": 3,
        "lost": 1,
        "rejected_signature": 0,
        "rejected_replay": 1,
        "decrypt_error": 0,
    }
    assert str(trips[part.pk].rtt_ns.dtype) == "int64"
    assert run_round_trips(run=made.run)[made.parts[1].pk].rtt_ns.tolist() == [7 * MS]


@pytest.mark.django_db
def test_a_device_with_only_lost_messages_has_empty_arrays(make_run):
    made = make_run({"pi-a": [None, None]})
    trips = run_round_trips(run=made.run)[made.parts[0].pk]
    assert (trips.seq.size, trips.rtt_ns.size, trips.outcomes["lost"]) == (0, 0, 2)


@pytest.mark.django_db
def test_runs_in_workspace_keeps_the_order_and_hides_other_workspaces(make_run, personas):
    first, second = make_run({"pi-a": [MS]}).run, make_run({"pi-a": [MS]}).run
    assert runs_in_workspace(workspace=personas.workspace, run_ids=[second.pk, first.pk]) == [
        second,
        first,
    ]
    foreign = make_run({"pi-x": [MS]}, workspace=personas.outsider_workspace).run
    with pytest.raises(Http404):
        runs_in_workspace(workspace=personas.workspace, run_ids=[first.pk, foreign.pk])


@pytest.mark.django_db
def test_runs_in_workspace_refuses_a_benchmark_run(make_run, personas):
    bench = ExperimentFactory.create(workspace=personas.workspace, kind=ExperimentKind.THROUGHPUT)
    run = Run.objects.create(experiment=bench, status=RunStatus.DONE)
    with pytest.raises(RunHasNoRoundTrips) as caught:
        runs_in_workspace(workspace=personas.workspace, run_ids=[run.pk])
    assert caught.value.code == "run_has_no_round_trips"


@pytest.mark.django_db
def test_repeats_ignore_the_interval_seed_and_the_session_ca(make_run):
    first = make_run({"pi-a": [MS]}, spec=messaging_spec(interval_seed=1, ca_cert="old"))
    second = make_run(
        {"pi-a": [MS]},
        spec=messaging_spec(interval_seed=2, ca_cert="new"),
        experiment=first.run.experiment,
    )
    make_run({"pi-a": [MS]}, spec=messaging_spec(qos=2), experiment=first.run.experiment)
    assert run_repeats(run=second.run) == [first.run, second.run]
