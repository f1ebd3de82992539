from __future__ import annotations

from uuid import UUID

from django.db.models import Prefetch, QuerySet
from django.shortcuts import get_object_or_404

from accounts.models import Workspace
from experiments.models import Experiment, Run, RunDevice


def experiment_list(*, workspace: Workspace) -> QuerySet[Experiment]:
    return (
        Experiment.objects.filter(workspace=workspace)
        .prefetch_related("devices", "runs")
        .order_by("-created_at")
    )


def experiment_get(*, workspace: Workspace, experiment_id: UUID) -> Experiment:
    """The experiment if it is in the workspace; 404 otherwise (no existence leak)."""
    return get_object_or_404(experiment_list(workspace=workspace), pk=experiment_id)


def run_get(*, workspace: Workspace, run_id: UUID) -> Run:
    runs = Run.objects.filter(experiment__workspace=workspace).select_related("experiment")
    runs = runs.prefetch_related(
        Prefetch("run_devices", queryset=RunDevice.objects.select_related("device")),
        "transitions",
    )
    return get_object_or_404(runs, pk=run_id)
