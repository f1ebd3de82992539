"""An experiment's results per cell of its matrix and their overheads (docs/results.md,
"Experiment results")."""

from __future__ import annotations

from uuid import UUID

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import workspace_for_user
from experiments.selectors import experiment_get
from results.apis.common import float_list
from results.hierarchical import LEVEL_MESSAGES, LEVEL_RUNS
from results.services.experiment_results import (
    VERDICT_FASTER,
    VERDICT_NO_DIFFERENCE,
    VERDICT_SLOWER,
    experiment_results_compute,
)

_LEVEL_HELP = (
    f"'{LEVEL_RUNS}': two-stage bootstrap, runs then messages within runs (two completed "
    f"runs or more); '{LEVEL_MESSAGES}': one completed run, a message-level interval that "
    "cannot see run-to-run variation."
)


def _interval(**kwargs: object) -> serializers.ListField:
    return float_list(min_length=2, max_length=2, **kwargs)


@extend_schema_serializer(component_name="ExperimentCellRun")
class CellRunSerializer(serializers.Serializer[object]):
    run_id = serializers.UUIDField()
    repeat = serializers.IntegerField()
    messages = serializers.IntegerField(help_text="Delivered messages (all devices).")
    lost = serializers.IntegerField()
    mean_ms = serializers.FloatField(allow_null=True)
    median_ms = serializers.FloatField(allow_null=True)


@extend_schema_serializer(component_name="ExperimentCell")
class CellSerializer(serializers.Serializer[object]):
    """One parameter combination: its completed runs and their figures (ms)."""

    key = serializers.CharField(help_text="Give it as ?baseline= to compare against this cell.")
    label = serializers.CharField(  # type: ignore[assignment]  # a declared field, not Field.label
        help_text="The parameters in which the cells differ."
    )
    parameters = serializers.DictField(child=serializers.JSONField())
    runs = CellRunSerializer(many=True, help_text="Completed runs only.")
    other_runs = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="Runs of the cell that did not complete (not measured), by status.",
    )
    interval_level = serializers.ChoiceField(
        choices=[LEVEL_RUNS, LEVEL_MESSAGES], allow_null=True, help_text=_LEVEL_HELP
    )
    messages = serializers.IntegerField()
    lost = serializers.IntegerField()
    mean_ms = serializers.FloatField(allow_null=True, help_text="Mean of the runs' means.")
    mean_ci_ms = _interval(allow_null=True)
    median_ms = serializers.FloatField(allow_null=True, help_text="Mean of the runs' medians.")
    median_ci_ms = _interval(allow_null=True)


@extend_schema_serializer(component_name="ExperimentOverhead")
class OverheadSerializer(serializers.Serializer[object]):
    """A cell's mean minus its baseline cell's (ms)."""

    cell = serializers.CharField()
    baseline = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label
    baseline_label = serializers.CharField()
    interval_level = serializers.ChoiceField(
        choices=[LEVEL_RUNS, LEVEL_MESSAGES], help_text=_LEVEL_HELP
    )
    overhead_ms = serializers.FloatField()
    ci_ms = _interval()
    relative_percent = serializers.FloatField()
    relative_ci_percent = _interval()
    verdict = serializers.ChoiceField(
        choices=[VERDICT_SLOWER, VERDICT_FASTER, VERDICT_NO_DIFFERENCE],
        help_text="From the interval: slower when it lies above 0, faster below, else none.",
    )
    verdict_text = serializers.CharField()
    max_rate_per_s = serializers.FloatField(
        allow_null=True,
        help_text="1000 / overhead_ms: messages a second the added work alone allows; null "
        "unless the overhead is above zero.",
    )
    max_rate_ci_per_s = serializers.ListField(
        child=serializers.FloatField(allow_null=True),
        min_length=2,
        max_length=2,
        allow_null=True,
        help_text="From the overhead's interval; the upper end null when it reaches zero.",
    )


@extend_schema_serializer(component_name="ExperimentResults")
class ExperimentResultsSerializer(serializers.Serializer[object]):
    experiment_id = serializers.UUIDField()
    kind = serializers.CharField()
    confidence = serializers.FloatField()
    baseline = serializers.CharField(
        allow_null=True,
        help_text="The cell asked for; null: each cell against the cell that differs only in "
        "security = none.",
    )
    cells = CellSerializer(many=True)
    overheads = OverheadSerializer(many=True)


class ExperimentResultsApi(APIView):
    class InputSerializer(serializers.Serializer[object]):
        baseline = serializers.CharField(
            required=False, max_length=64, help_text="A cell's key: every cell against it."
        )

    @extend_schema(
        operation_id="experiments_results",
        parameters=[InputSerializer],
        responses=ExperimentResultsSerializer,
    )
    def get(self, request: Request, experiment_id: UUID) -> Response:
        experiment = experiment_get(
            workspace=workspace_for_user(user=request.user), experiment_id=experiment_id
        )
        params = self.InputSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        results = experiment_results_compute(
            experiment=experiment, baseline=params.validated_data.get("baseline")
        )
        return Response(ExperimentResultsSerializer(results).data)
