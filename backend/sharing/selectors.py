"""Reads of the sharing app: a workspace's shares, and what a public link may show."""

from __future__ import annotations

from uuid import UUID

from django.db.models import F, Prefetch, QuerySet
from django.shortcuts import get_object_or_404
from django.utils import timezone
from iotsecbench_contract.jobspec import BROKER_EXTERNAL

from accounts.models import Workspace
from experiments.models import Experiment, Run, RunDevice
from sharing.addresses import AddressText, mapping_addresses, object_addresses
from sharing.errors import ShareNotFound
from sharing.models import Share, ShareState
from sharing.public import alias

SHARE_NOT_FOUND_MESSAGE = (
    "This link does not lead to anything: it may have been revoked or have expired, or it was "
    "copied incompletely. Ask the person who shared it for a new link."
)


def share_list(
    *, workspace: Workspace, run_id: UUID | None = None, experiment_id: UUID | None = None
) -> QuerySet[Share]:
    """The workspace's shares, newest first; those of one run (shared alone or in a
    comparison) or of one experiment when asked."""
    shares = Share.objects.filter(workspace=workspace).select_related("created_by")
    if run_id is not None:
        shares = shares.filter(run_id=run_id) | shares.filter(run_ids__contains=[run_id])
    if experiment_id is not None:
        shares = shares.filter(experiment_id=experiment_id)
    return shares.order_by("-created_at")


def share_get(*, workspace: Workspace, share_id: UUID) -> Share:
    """The share if it is the workspace's; 404 otherwise (no existence leak)."""
    return get_object_or_404(Share.objects.filter(workspace=workspace), pk=share_id)


def share_get_public(*, token: str) -> Share:
    """The active share of a link; unknown, revoked and expired links answer alike."""
    share = Share.objects.filter(token=token).select_related("experiment").first()
    if share is None or share.state != ShareState.ACTIVE:
        raise ShareNotFound(SHARE_NOT_FOUND_MESSAGE)
    return share


def share_record_view(*, share: Share) -> None:
    """Count a view of the shared page (its owner sees how often it was opened)."""
    Share.objects.filter(pk=share.pk).update(views=F("views") + 1, last_viewed_at=timezone.now())


def _runs() -> QuerySet[Run]:
    return Run.objects.select_related("experiment").prefetch_related(
        Prefetch("run_devices", queryset=RunDevice.objects.select_related("device"))
    )


def share_runs(*, share: Share) -> list[Run]:
    """The runs a share shows: its run; the comparison's runs in their order; or every run
    of the experiment, oldest first (a shared experiment shows the runs it has now)."""
    if share.run_id is not None:
        return list(_runs().filter(pk=share.run_id))
    if share.experiment_id is not None:
        return list(_runs().filter(experiment_id=share.experiment_id).order_by("created_at"))
    by_id = {run.pk: run for run in _runs().filter(pk__in=share.run_ids)}
    return [by_id[run_id] for run_id in share.run_ids if run_id in by_id]


def share_run_ids(*, share: Share) -> set[UUID]:
    """The ids of the runs a share shows, without loading them (what the repeats of a shared
    run's statistics are narrowed to)."""
    if share.run_id is not None:
        return {share.run_id}
    if share.experiment_id is not None:
        runs = Run.objects.filter(experiment_id=share.experiment_id)
        return set(runs.values_list("pk", flat=True))
    return set(share.run_ids)


def share_addresses(*, share: Share) -> AddressText:
    """Every lab address the share's designs and runs hold (the design's fields, each run's
    frozen spec, its target device's address), to be replaced inside the text of public
    answers. A spec's broker_url counts only when the design named it: otherwise it is the
    platform's own broker, which is left out of a shared page altogether."""
    runs = share_runs(share=share)
    experiments = {run.experiment_id: run.experiment for run in runs}
    if share.experiment is not None:
        experiments[share.experiment.pk] = share.experiment
    found = [pair for experiment in experiments.values() for pair in object_addresses(experiment)]
    for run in runs:
        spec = {
            k: v for k, v in run.spec.items() if k != "broker_url" or run.spec.get(BROKER_EXTERNAL)
        }
        found += mapping_addresses(spec) + mapping_addresses(run.target or {})
    return AddressText(found)


def share_run_get(*, share: Share, run_alias: UUID) -> Run:
    """One of the share's runs, by the alias the shared page knows it by."""
    for run in share_runs(share=share):
        if alias(share, run.pk) == run_alias:
            return run
    raise ShareNotFound(SHARE_NOT_FOUND_MESSAGE)


def share_runs_by_alias(*, share: Share, run_aliases: list[UUID]) -> list[Run]:
    """Several of the share's runs, in the order asked; 404 when one is not the share's."""
    by_alias = {alias(share, run.pk): run for run in share_runs(share=share)}
    if any(a not in by_alias for a in run_aliases):
        raise ShareNotFound(SHARE_NOT_FOUND_MESSAGE)
    return [by_alias[a] for a in run_aliases]


def workspace_experiment(*, workspace: Workspace, experiment_id: UUID) -> Experiment | None:
    """The workspace's experiment of that id, if any (what a new share may point at)."""
    return Experiment.objects.filter(workspace=workspace, pk=experiment_id).first()


def workspace_runs(*, workspace: Workspace, run_ids: list[UUID]) -> dict[UUID, Run]:
    """The workspace's runs of those ids (with their experiment), by id; others left out."""
    runs = Run.objects.filter(experiment__workspace=workspace, pk__in=run_ids)
    return {run.pk: run for run in runs.select_related("experiment")}
