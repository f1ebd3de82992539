"""A run's page (its devices and summaries), cancelling and retrying it: views here, above
measurements, whose summaries the page shows; its serializer is experiments.apis.runs."""

from __future__ import annotations

from dataclasses import replace
from uuid import UUID

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import workspace_for_user
from experiments.apis.runs import RunOutputSerializer, run_output
from experiments.selectors import run_get, run_waiting_for
from experiments.services.scheduling import run_cancel, run_retry
from measurements.selectors import run_page


class RunDetailApi(APIView):
    @extend_schema(operation_id="runs_retrieve", responses=RunOutputSerializer)
    def get(self, request: Request, run_id: UUID) -> Response:
        run = run_get(workspace=workspace_for_user(user=request.user), run_id=run_id)
        page = replace(run_page(run=run), waiting_for=run_waiting_for(run=run))
        return Response(run_output(page))


class RunCancelApi(APIView):
    """Cancel a queued or active run; its agents stop and upload what they measured."""

    @extend_schema(operation_id="runs_cancel", request=None, responses=RunOutputSerializer)
    def post(self, request: Request, run_id: UUID) -> Response:
        workspace = workspace_for_user(user=request.user)
        run = run_get(workspace=workspace, run_id=run_id)
        run_cancel(run=run, by=request.user.get_username())
        return Response(run_output(run_page(run=run_get(workspace=workspace, run_id=run_id))))


class RunRetryApi(APIView):
    """Queue a failed or cancelled run again (same spec and devices); answers the new run."""

    @extend_schema(operation_id="runs_retry", request=None, responses={201: RunOutputSerializer})
    def post(self, request: Request, run_id: UUID) -> Response:
        workspace = workspace_for_user(user=request.user)
        retry = run_retry(run=run_get(workspace=workspace, run_id=run_id))
        body = run_output(run_page(run=run_get(workspace=workspace, run_id=retry.pk)))
        return Response(body, status=status.HTTP_201_CREATED)
