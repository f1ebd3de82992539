"""Exports and the methods paragraph of a run of any kind."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.http import FileResponse, HttpResponse, StreamingHttpResponse
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from experiments.models import Run
from results.apis.common import any_run
from results.services import (
    PARQUET_MEDIA_TYPE,
    run_methods,
    run_records_csv,
    run_records_parquet,
    run_statistics_compute,
    run_summary_csv,
    run_summary_parquet,
)

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
        run = any_run(request, run_id)
        response = StreamingHttpResponse(run_records_csv(run=run), content_type="text/csv")
        response["Content-Disposition"] = f'attachment; filename="{_filename(run, "records.csv")}"'
        return response


class RunRecordsParquetApi(_ExportApi):
    @extend_schema(
        operation_id="runs_export_records_parquet",
        responses={(200, PARQUET_MEDIA_TYPE): _BINARY},
    )
    def get(self, request: Request, run_id: UUID) -> FileResponse:
        run = any_run(request, run_id)
        return FileResponse(
            run_records_parquet(run=run),
            as_attachment=True,
            filename=_filename(run, "records.parquet"),
            content_type=PARQUET_MEDIA_TYPE,
        )


class RunSummaryCsvApi(_ExportApi):
    @extend_schema(operation_id="runs_export_summary_csv", responses={(200, "text/csv"): _BINARY})
    def get(self, request: Request, run_id: UUID) -> HttpResponse:
        run = any_run(request, run_id)
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
        run = any_run(request, run_id)
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
        run = any_run(request, run_id)
        text = run_methods(run=run, statistics=lambda: run_statistics_compute(run=run))
        return Response(MethodsSerializer({"run_id": run.pk, "text": text}).data)
