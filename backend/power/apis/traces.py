"""Power traces: list, upload, detail, parse, raw file."""

from __future__ import annotations

from uuid import UUID

from django.http import FileResponse
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Workspace
from accounts.selectors import workspace_for_user
from devices.models import Device
from experiments.models import Run
from power.apis.serializers import ParseSpecSerializer, TraceOutputSerializer, trace_detail
from power.models import TraceKind
from power.selectors import device_find, run_find, trace_get, trace_list
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


def device_or_400(workspace: Workspace, device_id: UUID | None) -> Device | None:
    if device_id is None:
        return None
    device = device_find(workspace=workspace, device_id=device_id)
    if device is None:
        raise serializers.ValidationError({"device": [NO_SUCH_DEVICE]})
    return device


def run_or_400(workspace: Workspace, run_id: UUID | None) -> Run | None:
    if run_id is None:
        return None
    run = run_find(workspace=workspace, run_id=run_id)
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
            device=device_or_400(workspace, data["device"]),
            run=run_or_400(workspace, data["run"]),
            baseline_name=data["baseline_name"],
        )
        return Response(trace_detail(trace), status=status.HTTP_201_CREATED)


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
        return Response(trace_detail(trace))

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
            data["device"] = device_or_400(workspace, data["device"])
        if "run" in data:
            data["run"] = run_or_400(workspace, data["run"])
        trace = trace_update(trace=trace, fields=fields, **data)
        return Response(trace_detail(trace))

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
        workspace = workspace_for_user(user=request.user)
        trace = trace_get(workspace=workspace, trace_id=trace_id)
        # The spec's rules live in one place, power.parsing.spec_from_json, whose messages
        # name the field and what it allows; ParseSpecSerializer only documents the shape.
        trace_parse_request(trace=trace, spec=request.data)
        trace = trace_get(workspace=workspace, trace_id=trace_id)  # as it stands now
        return Response(trace_detail(trace), status=status.HTTP_202_ACCEPTED)


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
