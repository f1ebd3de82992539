"""Results of runs: statistics, plot data, sizes and comparisons of messaging runs; exports and
the methods paragraph of every kind (docs/results.md)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import numpy as np
from django.http import FileResponse, HttpResponse, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import workspace_for_user
from experiments.models import SAMPLE_KINDS, Run, RunStatus
from experiments.selectors import run_get
from results.errors import RunHasNoDeliveredMessages
from results.selectors import run_require_round_trips, runs_in_workspace
from results.services import (
    BINS_DEFAULT,
    BINS_MAX,
    COMPARE_RUNS_MAX,
    PARQUET_MEDIA_TYPE,
    run_bench_methods_paragraph,
    run_distribution_compute,
    run_methods_paragraph,
    run_records_csv,
    run_records_parquet,
    run_sizes_compute,
    run_statistics_compute,
    run_summary_csv,
    run_summary_parquet,
    runs_compare,
)
from results.services.distribution import KDE_GRID_POINTS, Span
from results.services.sizes import COMPONENTS, Basis
from results.statistics import CONFIDENCE, DENSITY_BINS

RANGE_ORDER_MESSAGE = "min_ms must be below max_ms."
DUPLICATE_RUNS_MESSAGE = "List each run once."
NO_DELIVERED_MESSAGES_MESSAGE = (
    "Run {run_id} has no delivered message: there are no measured wire bytes to break down."
)
DENSITY_METHOD = (
    f"Gaussian kernel density of every value, binned ({DENSITY_BINS} bins over the range, "
    f"Silverman's bandwidth 0.9*min(s, IQR/1.34)*n^(-1/5)), at {KDE_GRID_POINTS} points"
)


class NumberListField(serializers.ListField):
    """A list of numbers handed over as it is (a list or a numpy array). Plot arrays hold
    thousands of numbers; converting each through the child field cost more than the rest
    of the response. The child still declares the item type for the schema."""

    def to_representation(self, data: Any) -> list[Any]:
        return data.tolist() if isinstance(data, np.ndarray) else list(data)


def _floats(**kwargs: Any) -> NumberListField:
    return NumberListField(child=serializers.FloatField(), **kwargs)


def _ints(**kwargs: Any) -> NumberListField:
    return NumberListField(child=serializers.IntegerField(), **kwargs)


def _any_run(request: Request, run_id: UUID) -> Run:
    """The run in the user's workspace, whatever its kind; 404 outside it."""
    return run_get(workspace=workspace_for_user(user=request.user), run_id=run_id)


def _run(request: Request, run_id: UUID) -> Run:
    """A messaging run in the user's workspace (400 run_has_no_round_trips for another kind)."""
    run = _any_run(request, run_id)
    run_require_round_trips(run=run)
    return run


# --- statistics -------------------------------------------------------------------------


@extend_schema_serializer(component_name="RoundTripStatistics")
class RoundTripStatisticsSerializer(serializers.Serializer[object]):
    """Counts and round-trip statistics (ms) of one device, or of all devices."""

    device_id = serializers.UUIDField(allow_null=True)
    device_name = serializers.CharField()
    records = serializers.IntegerField(help_text="Records stored, whatever their outcome.")
    n = serializers.IntegerField(source="summary.n", help_text="Delivered messages.")
    lost = serializers.IntegerField()
    rejected = serializers.IntegerField(
        help_text="rejected_signature + rejected_replay + decrypt_error"
    )
    rejected_signature = serializers.IntegerField()
    rejected_replay = serializers.IntegerField()
    decrypt_error = serializers.IntegerField()
    mean_ms = serializers.FloatField(source="summary.mean", allow_null=True)
    ci_low_ms = serializers.FloatField(
        source="summary.ci_low", allow_null=True, help_text="95% t interval of the mean."
    )
    ci_high_ms = serializers.FloatField(source="summary.ci_high", allow_null=True)
    median_ms = serializers.FloatField(source="summary.median", allow_null=True)
    q1_ms = serializers.FloatField(source="summary.q1", allow_null=True)
    q3_ms = serializers.FloatField(source="summary.q3", allow_null=True)
    p95_ms = serializers.FloatField(source="summary.p95", allow_null=True)
    p99_ms = serializers.FloatField(source="summary.p99", allow_null=True)
    min_ms = serializers.FloatField(source="summary.min", allow_null=True)
    max_ms = serializers.FloatField(source="summary.max", allow_null=True)
    variance_ms2 = serializers.FloatField(source="summary.variance", allow_null=True)
    std_ms = serializers.FloatField(source="summary.std", allow_null=True)


@extend_schema_serializer(component_name="RepeatRun")
class RepeatRunSerializer(serializers.Serializer[object]):
    run_id = serializers.UUIDField()
    created_at = serializers.DateTimeField()
    mean_ms = serializers.FloatField(help_text="The run's combined mean (mean of device means).")


@extend_schema_serializer(component_name="RunRepeats")
class RepeatsSerializer(serializers.Serializer[object]):
    """The completed runs of the same experiment with the same spec."""

    n = serializers.IntegerField(source="interval.n")
    mean_ms = serializers.FloatField(source="interval.mean", allow_null=True)
    std_ms = serializers.FloatField(source="interval.std", allow_null=True)
    ci_low_ms = serializers.FloatField(source="interval.ci_low", allow_null=True)
    ci_high_ms = serializers.FloatField(source="interval.ci_high", allow_null=True)
    runs = RepeatRunSerializer(many=True)


@extend_schema_serializer(component_name="RunStatistics")
class RunStatisticsSerializer(serializers.Serializer[object]):
    run_id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=RunStatus.choices)
    confidence = serializers.SerializerMethodField()
    devices = RoundTripStatisticsSerializer(many=True)
    all_devices = RoundTripStatisticsSerializer()
    mean_of_device_means_ms = serializers.FloatField(
        allow_null=True, help_text="The SRUP paper's combined mean: every device weighs the same."
    )
    repeats = RepeatsSerializer()

    def get_confidence(self, obj: object) -> float:
        return CONFIDENCE


class RunStatisticsApi(APIView):
    @extend_schema(operation_id="runs_statistics", responses=RunStatisticsSerializer)
    def get(self, request: Request, run_id: UUID) -> Response:
        run = _run(request, run_id)
        return Response(RunStatisticsSerializer(run_statistics_compute(run=run)).data)


# --- distribution -----------------------------------------------------------------------


@extend_schema_serializer(component_name="BoxStatistics")
class BoxSerializer(serializers.Serializer[object]):
    q1_ms = serializers.FloatField(source="q1")
    median_ms = serializers.FloatField(source="median")
    q3_ms = serializers.FloatField(source="q3")
    whisker_low_ms = serializers.FloatField(source="whisker_low")
    whisker_high_ms = serializers.FloatField(source="whisker_high")
    outliers = serializers.IntegerField(help_text="Values beyond 1.5 IQR from the quartiles.")
    outlier_sample_ms = _floats(
        source="outlier_sample", help_text="At most 50, spread evenly over the sorted outliers."
    )


@extend_schema_serializer(component_name="RoundTripSeries")
class SeriesSerializer(serializers.Serializer[object]):
    """Delivered messages in send order, cut into equal-count buckets."""

    seq_first = _ints()
    seq_last = _ints()
    min_ms = _floats(source="min")
    max_ms = _floats(source="max")
    mean_ms = _floats(source="mean")


@extend_schema_serializer(component_name="DeviceDistribution")
class DeviceDistributionSerializer(serializers.Serializer[object]):
    device_id = serializers.UUIDField()
    device_name = serializers.CharField()
    n = serializers.IntegerField()
    counts = _ints(help_text="Histogram counts, one per bin of `edges_ms`.")
    below = serializers.IntegerField(help_text="Values below the range.")
    above = serializers.IntegerField(help_text="Values above the range.")
    box = BoxSerializer(allow_null=True)
    density = _floats(
        allow_null=True, help_text="Density (1/ms) at `grid_ms`; null below 2 distinct values."
    )
    series = SeriesSerializer()


@extend_schema_serializer(component_name="RunDistribution")
class RunDistributionSerializer(serializers.Serializer[object]):
    run_id = serializers.UUIDField()
    low_ms = serializers.FloatField()
    high_ms = serializers.FloatField()
    edges_ms = _floats(help_text="Bin edges shared by every device (bins + 1 values).")
    grid_ms = _floats(help_text="Where the densities are evaluated.")
    density_method = serializers.SerializerMethodField()
    devices = DeviceDistributionSerializer(many=True)

    def get_density_method(self, obj: object) -> str:
        return DENSITY_METHOD


class RunDistributionApi(APIView):
    class InputSerializer(serializers.Serializer[object]):
        bins = serializers.IntegerField(min_value=1, max_value=BINS_MAX, default=BINS_DEFAULT)
        range = serializers.ChoiceField(
            choices=Span.choices,
            default=Span.DATA,
            help_text="The default range: every value, or the boxes' whiskers (the bulk).",
        )
        min_ms = serializers.FloatField(required=False, help_text="Default: the smallest value.")
        max_ms = serializers.FloatField(required=False, help_text="Default: the largest value.")

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            low, high = attrs.get("min_ms"), attrs.get("max_ms")
            if low is not None and high is not None and low >= high:
                raise serializers.ValidationError({"max_ms": [RANGE_ORDER_MESSAGE]})
            return attrs

    @extend_schema(
        operation_id="runs_distribution",
        parameters=[InputSerializer],
        responses=RunDistributionSerializer,
    )
    def get(self, request: Request, run_id: UUID) -> Response:
        query = distribution_query(request)
        return Response(distribution_answer(_run(request, run_id), query))


def distribution_query(request: Request) -> dict[str, Any]:
    """The validated query of a /distribution/ request (400 before the run is looked up)."""
    query = RunDistributionApi.InputSerializer(data=request.query_params)
    query.is_valid(raise_exception=True)
    return dict(query.validated_data)


def distribution_answer(run: Run, query: dict[str, Any]) -> Any:
    """The /distribution/ answer for a messaging run (also a shared run's, sharing.apis)."""
    distribution = run_distribution_compute(
        run=run,
        bins=query["bins"],
        low_ms=query.get("min_ms"),
        high_ms=query.get("max_ms"),
        span=query["range"],
    )
    return RunDistributionSerializer(distribution).data


# --- message sizes ----------------------------------------------------------------------


@extend_schema_serializer(component_name="SizeComponent")
class SizeComponentSerializer(serializers.Serializer[object]):
    key = serializers.ChoiceField(choices=[key for key, _, _ in COMPONENTS])
    name = serializers.CharField()
    bytes = serializers.IntegerField()
    basis = serializers.ChoiceField(
        choices=[Basis.MEASURED, Basis.SPEC, Basis.ASSUMED],
        help_text="measured (from wire bytes), spec (computed from the run's parameters) or "
        "assumed (a documented constant per TCP segment).",
    )


@extend_schema_serializer(component_name="RunSizes")
class RunSizesSerializer(serializers.Serializer[object]):
    """One message of the run, byte by byte (docs/results.md, "Message sizes")."""

    run_id = serializers.UUIDField()
    protocol = serializers.CharField()
    mqtt_version = serializers.CharField()
    qos = serializers.IntegerField()
    transport = serializers.CharField()
    security = serializers.CharField()
    srup_signature = serializers.CharField(allow_null=True)
    payload_size = serializers.IntegerField()
    messages = serializers.IntegerField(
        source="wire.messages", help_text="Delivered messages whose wire bytes were counted."
    )
    wire_bytes_median = serializers.IntegerField(
        source="wire.median",
        help_text="Measured TCP payload bytes of a message (its MQTT packet, in TLS records "
        "over TLS): the lower median over delivered messages.",
    )
    wire_bytes_min = serializers.IntegerField(source="wire.min")
    wire_bytes_max = serializers.IntegerField(source="wire.max")
    plaintext_bytes = serializers.IntegerField(
        help_text="The MQTT packet the run's parameters describe, without TLS."
    )
    residual_bytes = serializers.IntegerField(
        help_text="wire_bytes_median - plaintext_bytes: the TLS record overhead over TLS, "
        "0 on plain TCP when the model is right."
    )
    model_agrees = serializers.BooleanField()
    warning = serializers.CharField(allow_null=True)
    segments = serializers.IntegerField(help_text="TCP segments assumed for one message.")
    frame_bytes = serializers.IntegerField(help_text="Sum of the components.")
    components = SizeComponentSerializer(many=True)
    assumptions = serializers.ListField(child=serializers.CharField())


class RunSizesApi(APIView):
    @extend_schema(operation_id="runs_sizes", responses=RunSizesSerializer)
    def get(self, request: Request, run_id: UUID) -> Response:
        run = _run(request, run_id)
        sizes = run_sizes_compute(run=run)
        if sizes is None:
            raise RunHasNoDeliveredMessages(NO_DELIVERED_MESSAGES_MESSAGE.format(run_id=run.pk))
        return Response(RunSizesSerializer(sizes).data)


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


# --- exports ----------------------------------------------------------------------------


class AnyAcceptNegotiation(BaseContentNegotiation):
    """Downloads answer their file whatever the Accept header says (a browser or pandas may
    ask for text/csv); errors keep answering the JSON envelope."""

    def select_renderer(self, request: Request, renderers: Any, format_suffix: Any = None) -> Any:
        return renderers[0], renderers[0].media_type

    def select_parser(self, request: Request, parsers: Any) -> Any:
        return parsers[0] if parsers else None


def _filename(run: Run, name: str) -> str:
    return f"run-{run.pk}-{name}"


class _ExportApi(APIView):
    content_negotiation_class = AnyAcceptNegotiation


_BINARY = {"type": "string", "format": "binary"}


class RunRecordsCsvApi(_ExportApi):
    @extend_schema(operation_id="runs_export_records_csv", responses={(200, "text/csv"): _BINARY})
    def get(self, request: Request, run_id: UUID) -> StreamingHttpResponse:
        run = _any_run(request, run_id)
        response = StreamingHttpResponse(run_records_csv(run=run), content_type="text/csv")
        response["Content-Disposition"] = f'attachment; filename="{_filename(run, "records.csv")}"'
        return response


class RunRecordsParquetApi(_ExportApi):
    @extend_schema(
        operation_id="runs_export_records_parquet",
        responses={(200, PARQUET_MEDIA_TYPE): _BINARY},
    )
    def get(self, request: Request, run_id: UUID) -> FileResponse:
        run = _any_run(request, run_id)
        return FileResponse(
            run_records_parquet(run=run),
            as_attachment=True,
            filename=_filename(run, "records.parquet"),
            content_type=PARQUET_MEDIA_TYPE,
        )


class RunSummaryCsvApi(_ExportApi):
    @extend_schema(operation_id="runs_export_summary_csv", responses={(200, "text/csv"): _BINARY})
    def get(self, request: Request, run_id: UUID) -> HttpResponse:
        run = _any_run(request, run_id)
        body = run_summary_csv(run=run)
        response = HttpResponse(body, content_type="text/csv")
        response["Content-Disposition"] = f'attachment; filename="{_filename(run, "summary.csv")}"'
        return response


class RunSummaryParquetApi(_ExportApi):
    @extend_schema(
        operation_id="runs_export_summary_parquet",
        responses={(200, PARQUET_MEDIA_TYPE): _BINARY},
    )
    def get(self, request: Request, run_id: UUID) -> HttpResponse:
        run = _any_run(request, run_id)
        body = run_summary_parquet(run=run)
        response = HttpResponse(body, content_type=PARQUET_MEDIA_TYPE)
        response["Content-Disposition"] = (
            f'attachment; filename="{_filename(run, "summary.parquet")}"'
        )
        return response


@extend_schema_serializer(component_name="RunMethods")
class MethodsSerializer(serializers.Serializer[object]):
    run_id = serializers.UUIDField()
    text = serializers.CharField(help_text="A methods paragraph ready to paste into a paper.")


class RunMethodsApi(APIView):
    @extend_schema(operation_id="runs_methods", responses=MethodsSerializer)
    def get(self, request: Request, run_id: UUID) -> Response:
        run = _any_run(request, run_id)
        if run.experiment.kind in SAMPLE_KINDS:
            text = run_bench_methods_paragraph(run=run)
        else:
            text = run_methods_paragraph(run=run, statistics=run_statistics_compute(run=run))
        return Response(MethodsSerializer({"run_id": run.pk, "text": text}).data)
