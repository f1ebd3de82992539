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
from results.apis.statistics import RunStatisticsSerializer
from results.selectors import runs_in_workspace
from results.services import COMPARE_RUNS_MAX, runs_compare

DUPLICATE_RUNS_MESSAGE = "List each run once."


# --- comparison -------------------------------------------------------------------------


@extend_schema_serializer(component_name="TreatmentDifference")
class DifferenceSerializer(serializers.Serializer[object]):
    key = serializers.CharField()
    baseline = serializers.CharField(allow_null=True, help_text="Null: not in its spec.")
    treatment = serializers.CharField(allow_null=True)


@extend_schema_serializer(component_name="PairComparison")
class PairComparisonSerializer(serializers.Serializer[object]):
    """treatment - baseline of two runs whose conditions agree (docs/results.md)."""

    baseline_run_id = serializers.UUIDField()
    treatment_run_id = serializers.UUIDField()
    differs_in = DifferenceSerializer(many=True)
    baseline_mean_ms = serializers.FloatField(allow_null=True)
    treatment_mean_ms = serializers.FloatField(allow_null=True)
    overhead_ms = serializers.FloatField(
        allow_null=True, help_text="Difference of the combined means (mean of device means)."
    )
    ci_low_ms = serializers.FloatField(allow_null=True, help_text="95% bootstrap interval.")
    ci_high_ms = serializers.FloatField(allow_null=True)
    relative_overhead_pct = serializers.FloatField(allow_null=True)
    mann_whitney_u = serializers.FloatField(
        allow_null=True, help_text="U of the treatment's round trips against the baseline's."
    )
    p_value = serializers.FloatField(allow_null=True, help_text="Two-sided.")
    max_rate_hz = serializers.FloatField(
        allow_null=True, help_text="1 / overhead: above this rate the overhead exceeds the period."
    )


@extend_schema_serializer(component_name="ComparedRun")
class ComparedRunSerializer(serializers.Serializer[object]):
    run_id = serializers.UUIDField()
    experiment_id = serializers.UUIDField()
    experiment_name = serializers.CharField()
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


@extend_schema_serializer(component_name="RunComparison")
class ComparisonSerializer(serializers.Serializer[object]):
    runs = ComparedRunSerializer(many=True)
    pairs = PairComparisonSerializer(many=True)
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
