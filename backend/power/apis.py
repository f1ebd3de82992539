"""Power-trace endpoints (docs/power-traces.md)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import numpy as np
from django.http import FileResponse
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    extend_schema_serializer,
)
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Workspace
from accounts.selectors import workspace_for_user
from devices.models import Device
from experiments.models import Run
from power import energy
from power.models import PowerTrace, TraceKind, TraceStatus
from power.selectors import (
    baseline_resolve,
    trace_figures,
    trace_get,
    trace_list,
    trace_plot,
    trace_projection,
    trace_run_window,
)
from power.services import (
    UPLOAD_FORM_ALLOWANCE_BYTES,
    trace_delete,
    trace_parse_request,
    trace_size_check,
    trace_update,
    trace_upload,
)

NO_SUCH_DEVICE = "No device with this id in your workspace."
NO_SUCH_RUN = "No run with this id in your workspace."
NO_SUCH_TRACE = "No power trace with this id in your workspace."
CAPACITY_NEEDED = (
    "Give the battery capacity as capacity_wh, or capacity_mah with capacity_voltage_v."
)
ONE_BASELINE = "Give at most one baseline: baseline_trace, baseline_w or baseline_current_a."


# --- serializers ---------------------------------------------------------------------------


@extend_schema_serializer(component_name="PowerTimeSpec")
class TimeSpecSerializer(serializers.Serializer[object]):
    column = serializers.IntegerField()
    unit = serializers.ChoiceField(choices=["s", "ms", "us", "ns", "datetime"])
    datetime_format = serializers.CharField(allow_null=True, required=False)
    timezone = serializers.CharField(default="UTC")


@extend_schema_serializer(component_name="PowerChannelSpec")
class ChannelSpecSerializer(serializers.Serializer[object]):
    column = serializers.IntegerField()
    unit = serializers.ChoiceField(choices=["V", "mV", "A", "mA", "uA", "nA", "W", "mW", "uW"])


@extend_schema_serializer(component_name="PowerParseSpec")
class ParseSpecSerializer(serializers.Serializer[object]):
    """The column mapping; its rules are checked by power.parsing.spec_from_json."""

    format = serializers.CharField()
    delimiter = serializers.CharField(trim_whitespace=False, default=",")
    decimal_comma = serializers.BooleanField(default=False)
    skip_lines = serializers.IntegerField(default=0)
    time = TimeSpecSerializer(allow_null=True, required=False)
    sample_rate_hz = serializers.FloatField(allow_null=True, required=False)
    voltage = ChannelSpecSerializer(allow_null=True, required=False)
    current = ChannelSpecSerializer(allow_null=True, required=False)
    power = ChannelSpecSerializer(allow_null=True, required=False)
    supply_voltage_v = serializers.FloatField(allow_null=True, required=False)


@extend_schema_serializer(component_name="PowerFormatChoice")
class FormatChoiceSerializer(serializers.Serializer[object]):
    format = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label


@extend_schema_serializer(component_name="PowerDetection")
class DetectionSerializer(serializers.Serializer[object]):
    format = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label
    confidence = serializers.ChoiceField(choices=["high", "medium", "low"])
    spec = ParseSpecSerializer()
    header = serializers.ListField(child=serializers.CharField(allow_blank=True))
    preview = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField(allow_blank=True))
    )
    notes = serializers.ListField(child=serializers.CharField())
    alternatives = FormatChoiceSerializer(many=True)


@extend_schema_serializer(component_name="PowerTraceError")
class TraceErrorSerializer(serializers.Serializer[object]):
    message = serializers.CharField()
    line = serializers.IntegerField(allow_null=True)
    column = serializers.IntegerField(allow_null=True)


@extend_schema_serializer(component_name="PowerWindow")
class WindowSerializer(serializers.Serializer[object]):
    start_s = serializers.FloatField()
    end_s = serializers.FloatField()


@extend_schema_serializer(component_name="PowerTrace")
class TraceOutputSerializer(serializers.ModelSerializer[PowerTrace]):
    detection = DetectionSerializer(allow_null=True)
    spec = ParseSpecSerializer(allow_null=True)
    error = TraceErrorSerializer(allow_null=True)
    notes = serializers.ListField(child=serializers.CharField())
    device_name = serializers.CharField(source="device.name", allow_null=True, default=None)
    alignment = serializers.SerializerMethodField()
    run_window = serializers.SerializerMethodField()

    class Meta:
        model = PowerTrace
        fields = [
            "id",
            "name",
            "kind",
            "device",
            "device_name",
            "run",
            "baseline_name",
            "original_filename",
            "size_bytes",
            "sha256",
            "status",
            "progress",
            "detection",
            "spec",
            "error",
            "sample_count",
            "duration_s",
            "absolute_start",
            "has_voltage",
            "has_current",
            "supply_voltage_v",
            "offset_s",
            "alignment",
            "run_window",
            "notes",
            "created_at",
            "parsed_at",
        ]
        read_only_fields = fields

    def _window(self, trace: PowerTrace) -> Any:
        if not self.context.get("detail"):
            return None  # lists leave the run window out: one query per trace is too many
        if not hasattr(self, "_windows"):
            self._windows: dict[Any, Any] = {}
        if trace.pk not in self._windows:
            self._windows[trace.pk] = trace_run_window(trace=trace)
        return self._windows[trace.pk]

    @extend_schema_field(
        serializers.ChoiceField(choices=["absolute", "manual", "none"], allow_null=True)
    )
    def get_alignment(self, trace: PowerTrace) -> str | None:
        window = self._window(trace)
        return None if window is None else str(window.alignment)

    @extend_schema_field(WindowSerializer(allow_null=True))
    def get_run_window(self, trace: PowerTrace) -> dict[str, float] | None:
        window = self._window(trace)
        return None if window is None else {"start_s": window.start_s, "end_s": window.end_s}


def _detail(trace: PowerTrace) -> dict[str, Any]:
    return dict(TraceOutputSerializer(trace, context={"detail": True}).data)


def _device(workspace: Workspace, device_id: UUID | None) -> Device | None:
    if device_id is None:
        return None
    device = Device.objects.filter(workspace=workspace, pk=device_id).first()
    if device is None:
        raise serializers.ValidationError({"device": [NO_SUCH_DEVICE]})
    return device


def _run(workspace: Workspace, run_id: UUID | None) -> Run | None:
    if run_id is None:
        return None
    run = Run.objects.filter(experiment__workspace=workspace, pk=run_id).first()
    if run is None:
        raise serializers.ValidationError({"run": [NO_SUCH_RUN]})
    return run


# --- views ---------------------------------------------------------------------------------


class PowerTracesApi(APIView):
    """List the workspace's power traces (GET) or upload one (POST, multipart)."""

    parser_classes = [MultiPartParser, FormParser, JSONParser]

    @classmethod
    def refuse_body_over_limit(cls, content_length: int) -> None:
        """Called by core.middleware.BodyLimitMiddleware before the body is read: a file
        over the limit is refused without a byte of it written to disk."""
        trace_size_check(size=content_length, allowance=UPLOAD_FORM_ALLOWANCE_BYTES)

    class FilterSerializer(serializers.Serializer[object]):
        run = serializers.UUIDField(required=False)
        device = serializers.UUIDField(required=False)
        kind = serializers.ChoiceField(choices=TraceKind.choices, required=False)

    @extend_schema_serializer(component_name="PowerTraceUpload")
    class InputSerializer(serializers.Serializer[object]):
        file = serializers.FileField(allow_empty_file=True)
        name = serializers.CharField(max_length=200, required=False, default="")
        device = serializers.UUIDField(required=False, allow_null=True, default=None)
        run = serializers.UUIDField(required=False, allow_null=True, default=None)
        baseline_name = serializers.CharField(max_length=100, required=False, default="")

    @extend_schema(
        operation_id="power_traces_list",
        parameters=[FilterSerializer],
        responses=TraceOutputSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        traces = trace_list(
            workspace=workspace_for_user(user=request.user), **filters.validated_data
        )
        return Response(TraceOutputSerializer(traces, many=True).data)

    @extend_schema(
        operation_id="power_traces_upload",
        request={"multipart/form-data": InputSerializer},
        responses={201: TraceOutputSerializer},
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        workspace = workspace_for_user(user=request.user)
        trace = trace_upload(
            workspace=workspace,
            user=request.user,
            file=data["file"],
            name=data["name"],
            device=_device(workspace, data["device"]),
            run=_run(workspace, data["run"]),
            baseline_name=data["baseline_name"],
        )
        return Response(_detail(trace), status=status.HTTP_201_CREATED)


class PowerTraceDetailApi(APIView):
    @extend_schema_serializer(component_name="PowerTraceUpdate")
    class InputSerializer(serializers.Serializer[object]):
        name = serializers.CharField(max_length=200, required=False)
        device = serializers.UUIDField(required=False, allow_null=True)
        run = serializers.UUIDField(required=False, allow_null=True)
        baseline_name = serializers.CharField(max_length=100, required=False, allow_blank=True)
        offset_s = serializers.FloatField(required=False, allow_null=True)

    @extend_schema(operation_id="power_traces_retrieve", responses=TraceOutputSerializer)
    def get(self, request: Request, trace_id: UUID) -> Response:
        trace = trace_get(workspace=workspace_for_user(user=request.user), trace_id=trace_id)
        return Response(_detail(trace))

    @extend_schema(
        operation_id="power_traces_update",
        request=InputSerializer,
        responses=TraceOutputSerializer,
    )
    def patch(self, request: Request, trace_id: UUID) -> Response:
        workspace = workspace_for_user(user=request.user)
        trace = trace_get(workspace=workspace, trace_id=trace_id)
        serializer = self.InputSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        fields = set(data)
        if "device" in data:
            data["device"] = _device(workspace, data["device"])
        if "run" in data:
            data["run"] = _run(workspace, data["run"])
        trace = trace_update(trace=trace, fields=fields, **data)
        return Response(_detail(trace))

    @extend_schema(operation_id="power_traces_delete", responses={204: None})
    def delete(self, request: Request, trace_id: UUID) -> Response:
        trace = trace_get(workspace=workspace_for_user(user=request.user), trace_id=trace_id)
        trace_delete(trace=trace)
        return Response(status=status.HTTP_204_NO_CONTENT)


class PowerTraceParseApi(APIView):
    @extend_schema(
        operation_id="power_traces_parse",
        request=ParseSpecSerializer,
        responses={202: TraceOutputSerializer},
    )
    def post(self, request: Request, trace_id: UUID) -> Response:
        trace = trace_get(workspace=workspace_for_user(user=request.user), trace_id=trace_id)
        # The spec's rules live in one place, power.parsing.spec_from_json, whose messages
        # name the field and what it allows; ParseSpecSerializer only documents the shape.
        trace = trace_parse_request(trace=trace, spec=request.data)
        trace.refresh_from_db()
        return Response(_detail(trace), status=status.HTTP_202_ACCEPTED)


class PowerTraceRawApi(APIView):
    @extend_schema(
        operation_id="power_traces_raw",
        responses={(200, "application/octet-stream"): {"type": "string", "format": "binary"}},
    )
    def get(self, request: Request, trace_id: UUID) -> FileResponse:
        trace = trace_get(workspace=workspace_for_user(user=request.user), trace_id=trace_id)
        return FileResponse(
            trace.raw.open("rb"), as_attachment=True, filename=trace.original_filename
        )


@extend_schema_serializer(component_name="PowerPlot")
class PlotOutputSerializer(serializers.Serializer[object]):
    start_s = serializers.FloatField()
    end_s = serializers.FloatField()
    duration_s = serializers.FloatField()
    samples = serializers.IntegerField()
    exact = serializers.BooleanField()
    t = serializers.ListField(child=serializers.FloatField())
    min_w = serializers.ListField(child=serializers.FloatField())
    max_w = serializers.ListField(child=serializers.FloatField())
    mean_w = serializers.ListField(child=serializers.FloatField())
    run_window = WindowSerializer(allow_null=True)


class PowerTracePlotApi(APIView):
    class FilterSerializer(serializers.Serializer[object]):
        start = serializers.FloatField(required=False)
        end = serializers.FloatField(required=False)
        points = serializers.IntegerField(min_value=100, max_value=5000, default=2000)

    @extend_schema(
        operation_id="power_traces_plot",
        parameters=[FilterSerializer],
        responses=PlotOutputSerializer,
    )
    def get(self, request: Request, trace_id: UUID) -> Response:
        trace = trace_get(workspace=workspace_for_user(user=request.user), trace_id=trace_id)
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        data = filters.validated_data
        plot = trace_plot(
            trace=trace, start=data.get("start"), end=data.get("end"), points=data["points"]
        )
        # Already plain lists and floats; a serializer pass would cost more than the query.
        return Response(plot)


class _BaselineFilter(serializers.Serializer[object]):
    baseline_trace = serializers.UUIDField(required=False)
    baseline_w = serializers.FloatField(required=False, min_value=0)
    baseline_current_a = serializers.FloatField(required=False, min_value=0)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if len(attrs.keys() & {"baseline_trace", "baseline_w", "baseline_current_a"}) > 1:
            raise serializers.ValidationError(ONE_BASELINE)
        return attrs


@extend_schema_serializer(component_name="PowerFiguresWindow")
class FiguresWindowSerializer(serializers.Serializer[object]):
    start_s = serializers.FloatField()
    end_s = serializers.FloatField()
    duration_s = serializers.FloatField()
    samples = serializers.IntegerField()


@extend_schema_serializer(component_name="PowerBaseline")
class BaselineSerializer(serializers.Serializer[object]):
    source = serializers.ChoiceField(choices=["trace", "constant", "none"])  # type: ignore[assignment]  # a declared field
    power_w = serializers.FloatField()


@extend_schema_serializer(component_name="PowerReference")
class ReferenceSerializer(serializers.Serializer[object]):
    trace = serializers.UUIDField()
    name = serializers.CharField()
    mean_w = serializers.FloatField()
    overhead_w = serializers.FloatField()
    overhead_pct = serializers.FloatField()


@extend_schema_serializer(component_name="PowerFigures")
class FiguresOutputSerializer(serializers.Serializer[object]):
    window = FiguresWindowSerializer()
    mean_w = serializers.FloatField()
    median_w = serializers.FloatField()
    min_w = serializers.FloatField()
    max_w = serializers.FloatField()
    energy_j = serializers.FloatField()
    baseline = BaselineSerializer()
    net_mean_w = serializers.FloatField()
    net_energy_j = serializers.FloatField()
    messages = serializers.IntegerField()
    energy_per_message_j = serializers.FloatField(allow_null=True)
    net_energy_per_message_j = serializers.FloatField(allow_null=True)
    charge_mah = serializers.FloatField(allow_null=True)
    supply_voltage_v = serializers.FloatField(allow_null=True)
    reference = ReferenceSerializer(allow_null=True)


class PowerTraceFiguresApi(APIView):
    class FilterSerializer(_BaselineFilter):
        start = serializers.FloatField(required=False)
        end = serializers.FloatField(required=False)
        reference_trace = serializers.UUIDField(required=False)

    @extend_schema(
        operation_id="power_traces_figures",
        parameters=[FilterSerializer],
        responses=FiguresOutputSerializer,
    )
    def get(self, request: Request, trace_id: UUID) -> Response:
        workspace = workspace_for_user(user=request.user)
        trace = trace_get(workspace=workspace, trace_id=trace_id)
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        data = filters.validated_data
        baseline = baseline_resolve(
            workspace=workspace,
            trace=trace,
            baseline_trace=data.get("baseline_trace"),
            baseline_w=data.get("baseline_w"),
            baseline_current_a=data.get("baseline_current_a"),
        )
        reference = None
        if "reference_trace" in data:
            reference = PowerTrace.objects.filter(
                workspace=workspace, pk=data["reference_trace"]
            ).first()
            if reference is None:
                raise serializers.ValidationError({"reference_trace": [NO_SUCH_TRACE]})
        figures = trace_figures(
            trace=trace,
            start=data.get("start"),
            end=data.get("end"),
            baseline=baseline,
            reference=reference,
        )
        return Response(FiguresOutputSerializer(figures).data)


@extend_schema_serializer(component_name="PowerProjectionSeries")
class ProjectionSeriesSerializer(serializers.Serializer[object]):
    trace = serializers.UUIDField()
    name = serializers.CharField()
    mean_w = serializers.FloatField()
    idle_w = serializers.FloatField(allow_null=True)
    energy_per_message_j = serializers.FloatField(allow_null=True)
    continuous_hours = serializers.FloatField(allow_null=True)
    hours = serializers.ListField(child=serializers.FloatField(allow_null=True), allow_null=True)
    reason = serializers.CharField(allow_blank=True)


@extend_schema_serializer(component_name="PowerProjection")
class ProjectionOutputSerializer(serializers.Serializer[object]):
    capacity_wh = serializers.FloatField()
    rates_per_min = serializers.ListField(child=serializers.FloatField())
    series = ProjectionSeriesSerializer(many=True)


class PowerProjectionApi(APIView):
    class FilterSerializer(_BaselineFilter):
        trace = serializers.ListField(child=serializers.UUIDField(), min_length=1, max_length=12)
        capacity_wh = serializers.FloatField(required=False, min_value=0.001)
        capacity_mah = serializers.FloatField(required=False, min_value=0.001)
        capacity_voltage_v = serializers.FloatField(required=False, min_value=0.001)
        rate_max_per_min = serializers.FloatField(default=60.0, min_value=0.1, max_value=60_000)

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            attrs = super().validate(attrs)
            has_mah = "capacity_mah" in attrs and "capacity_voltage_v" in attrs
            if "capacity_wh" not in attrs and not has_mah:
                raise serializers.ValidationError({"capacity_wh": [CAPACITY_NEEDED]})
            return attrs

    @extend_schema(
        operation_id="power_traces_projection",
        parameters=[
            OpenApiParameter("trace", UUID, many=True, required=True),
            OpenApiParameter("capacity_wh", float),
            OpenApiParameter("capacity_mah", float),
            OpenApiParameter("capacity_voltage_v", float),
            OpenApiParameter("rate_max_per_min", float),
            OpenApiParameter("baseline_trace", UUID),
            OpenApiParameter("baseline_w", float),
            OpenApiParameter("baseline_current_a", float),
        ],
        responses=ProjectionOutputSerializer,
    )
    def get(self, request: Request) -> Response:
        workspace = workspace_for_user(user=request.user)
        query = request.query_params
        filters = self.FilterSerializer(data={**query.dict(), "trace": query.getlist("trace")})
        filters.is_valid(raise_exception=True)
        data = filters.validated_data
        traces = []
        for trace_id in data["trace"]:
            trace = PowerTrace.objects.filter(workspace=workspace, pk=trace_id).first()
            if trace is None or trace.status != TraceStatus.PARSED:
                raise serializers.ValidationError(
                    {"trace": [f"{trace_id}: not a parsed power trace of your workspace."]}
                )
            traces.append(trace)
        capacity = energy.capacity_wh(
            wh=data.get("capacity_wh"),
            mah=data.get("capacity_mah"),
            volts=data.get("capacity_voltage_v"),
        )
        baseline = baseline_resolve(
            workspace=workspace,
            trace=traces[0],
            baseline_trace=data.get("baseline_trace"),
            baseline_w=data.get("baseline_w"),
            baseline_current_a=data.get("baseline_current_a"),
        )
        rates = np.linspace(0.0, data["rate_max_per_min"], 61)
        projection = trace_projection(
            traces=traces, capacity=capacity, baseline=baseline, rates_per_min=rates
        )
        return Response(ProjectionOutputSerializer(projection).data)
