"""Reads of the results app: runs in the workspace, their repeats, and the round-trip cache."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from uuid import UUID

import numpy as np
from django.db.models import Prefetch
from django.http import Http404

from accounts.models import Workspace
from experiments.models import ExperimentKind, Run, RunDevice, RunStatus
from measurements.models import RunStatistic
from measurements.selectors import RoundTrips, binary_cursor
from results.errors import RunHasNoRoundTrips
from results.models import RoundTripCache
from results.pairing import repeat_key

RUN_HAS_NO_ROUND_TRIPS_MESSAGE = (
    "Run {run_id} is a {kind} run: it has no round trips. Its results are the benchmark "
    "summary on the run page."
)


def runs_in_workspace(*, workspace: Workspace, run_ids: Sequence[UUID]) -> list[Run]:
    """The runs, in the order asked, with their experiment and devices; 404 when any is not
    in the workspace (no existence leak), 400 when any is not a messaging run."""
    runs = (
        Run.objects.filter(experiment__workspace=workspace, pk__in=run_ids)
        .select_related("experiment")
        .prefetch_related(
            Prefetch("run_devices", queryset=RunDevice.objects.select_related("device"))
        )
    )
    by_id = {run.pk: run for run in runs}
    if len(by_id) != len(set(run_ids)):
        raise Http404
    ordered = [by_id[run_id] for run_id in run_ids]
    for run in ordered:
        run_require_round_trips(run=run)
    return ordered


def run_require_round_trips(*, run: Run) -> None:
    if run.experiment.kind != ExperimentKind.MESSAGING:
        raise RunHasNoRoundTrips(
            RUN_HAS_NO_ROUND_TRIPS_MESSAGE.format(run_id=run.pk, kind=run.experiment.kind)
        )


def run_repeats(*, run: Run) -> list[Run]:
    """The completed runs of the run's experiment with the same spec (per-run keys aside,
    results.pairing), oldest first; the run itself among them when it is completed."""
    key = repeat_key(run.spec)
    candidates = Run.objects.filter(
        experiment_id=run.experiment_id, status=RunStatus.DONE
    ).order_by("created_at")
    return [r for r in candidates if repeat_key(r.spec) == key]


def runs_device_means_ns(*, run_ids: Sequence[UUID]) -> dict[UUID, list[float]]:
    """Per run, the mean round trip (ns) of each device with delivered messages, from the
    summary computed when the run completed (measurements.services.run_summarize)."""
    rows = RunStatistic.objects.filter(
        run_id__in=run_ids, run_device__isnull=False, mean_ns__isnull=False, mechanism=None
    ).values_list("run_id", "mean_ns")
    means: dict[UUID, list[float]] = defaultdict(list)
    for run_id, mean in rows:
        assert mean is not None
        means[run_id].append(mean)
    return dict(means)


def round_trip_cache(
    *, run_device_ids: Sequence[int], with_seq: bool = True
) -> dict[int, RoundTrips]:
    """The cached round trips of those run devices that have them (results.models); without
    `with_seq` the sequence numbers are left unread (an empty array)."""
    seq = "seq" if with_seq else "NULL::bytea"
    sql = (
        f"SELECT run_device_id, {seq}, rtt_ns, outcomes FROM {RoundTripCache._meta.db_table} "
        "WHERE run_device_id = ANY(%s)"
    )
    with binary_cursor() as cursor:
        cursor.execute(sql, [list(run_device_ids)])
        return {
            rd_id: RoundTrips(
                seq=np.frombuffer(seq or b"", "<i4"),
                rtt_ns=np.frombuffer(rtt, "<i8"),
                outcomes=counts,
            )
            for rd_id, seq, rtt, counts in cursor.fetchall()
        }
