"""Comparison of messaging runs."""

from __future__ import annotations

from uuid import UUID

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import workspace_for_user
from results.apis.experiment_results import DIFFERENCE_LEVELS
from results.apis.statistics import RunStatisticsSerializer
from results.selectors import runs_in_workspace
from results.services import COMPARE_RUNS_MAX, runs_compare
from results.services.experiment_results import VERDICT_CHOICES

DUPLICATE_RUNS_MESSAGE = "List each run once."


# --- comparison -------------------------------------------------------------------------


@extend_schema_serializer(component_name="TreatmentDifference")
class DifferenceSerializer(serializers.Serializer[object]):
    key = serializers.CharField()
    baseline = serializers.CharField(allow_null=True, help_text="Null: not in its spec.")
    treatment = serializers.CharField(allow_null=True)


@extend_schema_serializer(component_name="PairComparison")
class PairComparisonSerializer(serializers.Serializer[object]):
    """treatment - baseline of two sides that differ in exactly one parameter: one run a side
    within one repeat, or two runs or more a side aggregated over repeats (docs/results.md)."""

    baseline_run_id = serializers.UUIDField(help_text="The baseline side's first run.")
    treatment_run_id = serializers.UUIDField(help_text="The treatment side's first run.")
    baseline_run_ids = serializers.ListField(child=serializers.UUIDField())
    treatment_run_ids = serializers.ListField(child=serializers.UUIDField())
    baseline_label = serializers.CharField()
    treatment_label = serializers.CharField()
    repeat = serializers.IntegerField(
        allow_null=True, help_text="The repeat both runs are; null: aggregated over repeats."
    )
    parameter = serializers.CharField(help_text="The one parameter in which the sides differ.")
    differs_in = DifferenceSerializer(many=True)
    interval_level = serializers.ChoiceField(
        choices=DIFFERENCE_LEVELS,
        help_text="runs: a two-stage bootstrap over each side's runs (sees run-to-run "
        "variation); messages: one run a side, a bootstrap over its messages (cannot).",
    )
    baseline_mean_ms = serializers.FloatField(allow_null=True)
    treatment_mean_ms = serializers.FloatField(allow_null=True)
    overhead_ms = serializers.FloatField(
        allow_null=True,
        help_text="Difference of the means: combined means (mean of device means) for one "
        "run a side, means of the run means over repeats.",
    )
    ci_low_ms = serializers.FloatField(allow_null=True, help_text="95% bootstrap interval.")
    ci_high_ms = serializers.FloatField(allow_null=True)
    relative_overhead_pct = serializers.FloatField(allow_null=True)
    verdict = serializers.ChoiceField(
        choices=VERDICT_CHOICES,
        allow_null=True,
        help_text="From the interval: slower when it lies above 0, faster below, else none; "
        "null when a side delivered nothing.",
    )
    verdict_text = serializers.CharField()
    max_rate_hz = serializers.FloatField(
        allow_null=True,
        help_text="1 / overhead: above this rate the overhead exceeds the period; null "
        "unless the overhead's interval lies above zero.",
    )
    mechanism = serializers.CharField(
        allow_null=True,
        help_text="When a side is an interleaved run: the mechanism whose messages it gives "
        "(the same mechanism as the other side's); null when neither side is interleaved.",
    )
    mechanism_text = serializers.CharField(
        help_text="Which mechanism was matched, in words; empty when neither side is interleaved."
    )


@extend_schema_serializer(component_name="ComparedRun")
class ComparedRunSerializer(serializers.Serializer[object]):
    run_id = serializers.UUIDField()
    experiment_id = serializers.UUIDField()
    experiment_name = serializers.CharField()
    label = serializers.CharField(  # type: ignore[assignment]  # a declared field, not Field.label
        help_text="The parameters in which it differs from the other runs of its experiment "
        "(and its repeat); after the experiment's name when the runs span experiments."
    )
    repeat = serializers.IntegerField()
    treatment = serializers.DictField()
    conditions = serializers.DictField()
    statistics = RunStatisticsSerializer()


@extend_schema_serializer(component_name="BootstrapSettings")
class BootstrapSerializer(serializers.Serializer[object]):
    resamples = serializers.IntegerField()
    draw_max = serializers.IntegerField(
        help_text="Values drawn per device and resample; above, deviations scale by √(m/n)."
    )
    seed = serializers.IntegerField()


@extend_schema_serializer(component_name="UnmatchedMechanisms")
class UnmatchedSerializer(serializers.Serializer[object]):
    """Two runs, one interleaved at least, of which neither has a mechanism of the other."""

    run_ids = serializers.ListField(child=serializers.UUIDField())
    message = serializers.CharField()


@extend_schema_serializer(component_name="RunComparison")
class ComparisonSerializer(serializers.Serializer[object]):
    runs = ComparedRunSerializer(many=True)
    pairs = PairComparisonSerializer(
        many=True,
        help_text="An interleaved run pairs by mechanism: one pair per mechanism it shares "
        "with the other side (`mechanism`).",
    )
    unmatched = UnmatchedSerializer(
        many=True, help_text="Runs that could not be matched by mechanism, and why."
    )
    bootstrap = BootstrapSerializer(source="*")


class CompareApi(APIView):
    class InputSerializer(serializers.Serializer[object]):
        run = serializers.ListField(
            child=serializers.UUIDField(), min_length=2, max_length=COMPARE_RUNS_MAX
        )

        def validate_run(self, value: list[UUID]) -> list[UUID]:
            if len(set(value)) != len(value):
                raise serializers.ValidationError(DUPLICATE_RUNS_MESSAGE)
            return value

    @extend_schema(
        operation_id="compare",
        parameters=[
            OpenApiParameter(
                "run",
                OpenApiTypes.UUID,
                many=True,
                explode=True,
                required=True,
                description=f"A run to compare; repeat for each (2 to {COMPARE_RUNS_MAX}).",
            )
        ],
        responses=ComparisonSerializer,
    )
    def get(self, request: Request) -> Response:
        query = self.InputSerializer(data={"run": request.query_params.getlist("run")})
        query.is_valid(raise_exception=True)
        runs = runs_in_workspace(
            workspace=workspace_for_user(user=request.user),
            run_ids=query.validated_data["run"],
        )
        return Response(ComparisonSerializer(runs_compare(runs=runs)).data)
