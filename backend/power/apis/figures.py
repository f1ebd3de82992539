"""Plot data, energy figures and battery projections of power traces."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import numpy as np
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import workspace_for_user
from power import energy
from power.apis.serializers import (
    FiguresOutputSerializer,
    PlotOutputSerializer,
    ProjectionOutputSerializer,
)
from power.models import TraceStatus
from power.plot import trace_plot
from power.projection import trace_projection
from power.selectors import (
    baseline_resolve,
    trace_figures,
    trace_find,
    trace_get,
    traces_by_id,
)

NO_SUCH_TRACE = "No power trace with this id in your workspace."
CAPACITY_NEEDED = (
    "Give the battery capacity as capacity_wh, or capacity_mah with capacity_voltage_v."
)
ONE_BASELINE = "Give at most one baseline: baseline_trace, baseline_w or baseline_current_a."


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
            reference = trace_find(workspace=workspace, trace_id=data["reference_trace"])
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
        found = traces_by_id(workspace=workspace, trace_ids=data["trace"])
        traces = []
        for trace_id in data["trace"]:
            trace = found.get(trace_id)
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
