"""Statistics and plot data (distribution) of a messaging run."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from experiments.models import Measurement, Run, RunStatus
from results.apis.common import float_list, int_list, messaging_run
from results.plotdata import DENSITY_BINS
from results.services import (
    BINS_DEFAULT,
    BINS_MAX,
    run_distribution_compute,
    run_statistics_compute,
)
from results.services.distribution import KDE_GRID_POINTS, Span
from results.services.methods_ack import measured_quantity
from results.statistics import (
    BOOTSTRAP_MAX_VALUES,
    BOOTSTRAP_MIN_VALUES,
    CI_METHOD,
    CI_METHOD_MEDIAN,
    CI_METHOD_T,
    CONFIDENCE,
)

RANGE_ORDER_MESSAGE = "min_ms must be below max_ms."
DENSITY_METHOD = (
    f"Gaussian kernel density of every value, binned ({DENSITY_BINS} bins over the range, "
    f"Silverman's bandwidth 0.9*min(s, IQR/1.34)*n^(-1/5)), at {KDE_GRID_POINTS} points"
)


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
    ci_method = serializers.CharField(
        source="summary.ci_method",
        allow_null=True,
        help_text=f"How ci_low_ms/ci_high_ms were computed: '{CI_METHOD}' (studentized "
        f"bootstrap) from {BOOTSTRAP_MIN_VALUES} to {BOOTSTRAP_MAX_VALUES:,} values, else "
        f"'{CI_METHOD_T}'.",
    )
    ci_low_ms = serializers.FloatField(
        source="summary.ci_low", allow_null=True, help_text="95% interval of the mean (ci_method)."
    )
    ci_high_ms = serializers.FloatField(source="summary.ci_high", allow_null=True)
    t_ci_low_ms = serializers.FloatField(
        source="summary.t_ci_low",
        allow_null=True,
        help_text="95% t interval of the mean (symmetric; too narrow on skewed data).",
    )
    t_ci_high_ms = serializers.FloatField(source="summary.t_ci_high", allow_null=True)
    median_ms = serializers.FloatField(source="summary.median", allow_null=True)
    median_ci_low_ms = serializers.FloatField(
        source="summary.median_ci_low",
        allow_null=True,
        help_text=f"95% {CI_METHOD_MEDIAN} interval of the median; null below "
        f"{BOOTSTRAP_MIN_VALUES} values.",
    )
    median_ci_high_ms = serializers.FloatField(source="summary.median_ci_high", allow_null=True)
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
    ci_method = serializers.SerializerMethodField(
        help_text="The interval over the runs' means: the t interval (a few runs are too few "
        "values for a bootstrap)."
    )
    mean_ms = serializers.FloatField(source="interval.mean", allow_null=True)
    std_ms = serializers.FloatField(source="interval.std", allow_null=True)
    ci_low_ms = serializers.FloatField(source="interval.ci_low", allow_null=True)
    ci_high_ms = serializers.FloatField(source="interval.ci_high", allow_null=True)
    runs = RepeatRunSerializer(many=True)

    def get_ci_method(self, obj: object) -> str:
        return CI_METHOD_T


@extend_schema_serializer(component_name="RunPairedOverhead")
class PairedOverheadSerializer(serializers.Serializer[object]):
    """A mechanism's round trip minus the baseline's in the same rotation cycles of the run."""

    baseline = serializers.CharField(help_text="The baseline mechanism: none.")
    pairs = serializers.IntegerField(help_text="Rotation cycles in which both were delivered.")
    overhead_ms = serializers.FloatField(help_text="The mean of the paired differences.")
    ci_low_ms = serializers.FloatField(
        help_text="95% bootstrap interval of the mean difference (cycles resampled)."
    )
    ci_high_ms = serializers.FloatField()


@extend_schema_serializer(component_name="MechanismStatistics")
class MechanismStatisticsSerializer(serializers.Serializer[object]):
    """An interleaved run's statistics of one mechanism's messages."""

    mechanism = serializers.CharField()
    devices = RoundTripStatisticsSerializer(many=True)
    all_devices = RoundTripStatisticsSerializer()
    mean_of_device_means_ms = serializers.FloatField(
        allow_null=True,
        help_text="The SRUP paper's combined mean over this mechanism's messages: every "
        "device weighs the same.",
    )
    overhead = PairedOverheadSerializer(
        allow_null=True,
        help_text="Against the run's own `none` messages, paired by rotation cycle; null for "
        "none itself and in a rotation without none.",
    )


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
    mechanisms = MechanismStatisticsSerializer(
        many=True,
        help_text="An interleaved run's statistics per mechanism of its rotation, in rotation "
        "order ([] in any other run; `devices` and `all_devices` then mix its mechanisms).",
    )
    measurement = serializers.SerializerMethodField(
        help_text="What the run measured: round_trip, one_way or ack (its spec's measurement)."
    )
    quantity = serializers.SerializerMethodField(
        help_text="The figures' quantity in words, e.g. 'round-trip time' or "
        "'acknowledgement time (publish → PUBACK)', 'acknowledgement time (CON → ACK)'."
    )

    def get_confidence(self, obj: object) -> float:
        return CONFIDENCE

    def _spec(self, obj: Any) -> dict[str, Any]:
        """The run's spec: from the context when the view passed it, else looked up (the
        serializer nested in comparisons and shares)."""
        spec = self.context.get("spec")
        if spec is None:
            spec = Run.objects.only("spec").get(pk=obj.run_id).spec
        return dict(spec)

    def get_measurement(self, obj: Any) -> str:
        return str(self._spec(obj).get("measurement", Measurement.ROUND_TRIP))

    def get_quantity(self, obj: Any) -> str:
        return measured_quantity(self._spec(obj))


class RunStatisticsApi(APIView):
    @extend_schema(operation_id="runs_statistics", responses=RunStatisticsSerializer)
    def get(self, request: Request, run_id: UUID) -> Response:
        run = messaging_run(request, run_id)
        statistics = run_statistics_compute(run=run)
        context = {"spec": run.spec}
        return Response(RunStatisticsSerializer(statistics, context=context).data)


# --- distribution -----------------------------------------------------------------------


@extend_schema_serializer(component_name="BoxStatistics")
class BoxSerializer(serializers.Serializer[object]):
    q1_ms = serializers.FloatField(source="q1")
    median_ms = serializers.FloatField(source="median")
    q3_ms = serializers.FloatField(source="q3")
    whisker_low_ms = serializers.FloatField(source="whisker_low")
    whisker_high_ms = serializers.FloatField(source="whisker_high")
    outliers = serializers.IntegerField(help_text="Values beyond 1.5 IQR from the quartiles.")
    outlier_sample_ms = float_list(
        source="outlier_sample", help_text="At most 50, spread evenly over the sorted outliers."
    )


@extend_schema_serializer(component_name="RoundTripSeries")
class SeriesSerializer(serializers.Serializer[object]):
    """Delivered messages in send order, cut into equal-count buckets."""

    seq_first = int_list()
    seq_last = int_list()
    min_ms = float_list(source="min")
    max_ms = float_list(source="max")
    mean_ms = float_list(source="mean")


@extend_schema_serializer(component_name="DeviceDistribution")
class DeviceDistributionSerializer(serializers.Serializer[object]):
    device_id = serializers.UUIDField()
    device_name = serializers.CharField()
    mechanism = serializers.CharField(
        allow_null=True,
        help_text="An interleaved run's mechanism: one entry per device and mechanism; null "
        "in any other run.",
    )
    n = serializers.IntegerField()
    counts = int_list(help_text="Histogram counts, one per bin of `edges_ms`.")
    below = serializers.IntegerField(help_text="Values below the range.")
    above = serializers.IntegerField(help_text="Values above the range.")
    box = BoxSerializer(allow_null=True)
    density = float_list(
        allow_null=True, help_text="Density (1/ms) at `grid_ms`; null below 2 distinct values."
    )
    series = SeriesSerializer()


@extend_schema_serializer(component_name="RunDistribution")
class RunDistributionSerializer(serializers.Serializer[object]):
    run_id = serializers.UUIDField()
    low_ms = serializers.FloatField()
    high_ms = serializers.FloatField()
    edges_ms = float_list(help_text="Bin edges shared by every device (bins + 1 values).")
    grid_ms = float_list(help_text="Where the densities are evaluated.")
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
        return Response(distribution_answer(messaging_run(request, run_id), query))


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
