"""Shared links: the owner's API (create, list, change, revoke) and the public pages' API,
which answers without login and shows exactly what was shared (docs/sharing.md)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from uuid import UUID

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from iotsecbench_contract.jobspec import BROKER_EXTERNAL
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import workspace_for_user
from experiments.apis.experiments import ExperimentOutputSerializer
from experiments.apis.runs import RunOutputSerializer, run_output
from experiments.models import (
    MEASURED_STATUSES,
    ExperimentKind,
    Run,
)
from measurements.selectors import run_page
from results.apis.compare import CompareApi, ComparisonSerializer
from results.apis.exports import MethodsSerializer
from results.apis.sizes import NO_DELIVERED_MESSAGES_MESSAGE, RunSizesSerializer
from results.apis.statistics import (
    RunDistributionApi,
    RunDistributionSerializer,
    RunStatisticsSerializer,
    distribution_answer,
    distribution_query,
)
from results.errors import RunHasNoDeliveredMessages
from results.selectors import run_require_round_trips
from results.services import (
    COMPARE_RUNS_MAX,
    RunStatistics,
    run_methods,
    run_sizes_compute,
    run_statistics_compute,
    runs_compare,
)
from results.services.summaries import repeats_within
from sharing.addresses import public_address_words
from sharing.models import Share, ShareKind, ShareState
from sharing.public import scrub
from sharing.selectors import (
    share_addresses,
    share_get,
    share_get_public,
    share_list,
    share_record_view,
    share_run_get,
    share_run_ids,
    share_runs,
    share_runs_by_alias,
    workspace_experiment,
    workspace_runs,
)
from sharing.services import share_create, share_revoke, share_update

SHARE_PATH = "/s/{token}"
NOT_IN_WORKSPACE = "No {what} with this id in your workspace."
ONLY_FOR_KIND = "Only for a share of kind {kind}: leave it out."
REQUIRED_FOR_KIND = "Required for a share of kind {kind}."
RUN_NOT_COMPLETED = (
    "Only a completed or partial run can be shared (this one is {status}): share it when it "
    "has finished."
)
COMPARE_NEEDS_MESSAGING = (
    "Only messaging runs can be compared; this one is a {kind} run. Share it on its own."
)
DUPLICATE_RUNS = "List each run once."
EXPIRY_IN_PAST = "Choose an expiry in the future, or none for a link that does not expire."

# --- the owner's API --------------------------------------------------------------------


@extend_schema_serializer(component_name="Share")
class ShareOutputSerializer(serializers.Serializer[object]):
    id = serializers.UUIDField()
    kind = serializers.ChoiceField(choices=ShareKind.choices)
    title = serializers.CharField()
    path = serializers.SerializerMethodField(
        help_text="The public page's path, /s/<token>: prefix it with the site's address."
    )
    run_id = serializers.UUIDField(allow_null=True)
    experiment_id = serializers.UUIDField(allow_null=True)
    run_ids = serializers.ListField(child=serializers.UUIDField())
    state = serializers.ChoiceField(choices=ShareState.choices)
    created_at = serializers.DateTimeField()
    created_by = serializers.CharField(source="created_by.username", allow_null=True)
    expires_at = serializers.DateTimeField(allow_null=True)
    revoked_at = serializers.DateTimeField(allow_null=True)
    views = serializers.IntegerField()
    last_viewed_at = serializers.DateTimeField(allow_null=True)

    def get_path(self, share: Share) -> str:
        return SHARE_PATH.format(token=share.token)


def _future(value: Any) -> Any:
    if value is not None and value <= timezone.now():
        raise serializers.ValidationError(EXPIRY_IN_PAST)
    return value


class SharesApi(APIView):
    class FilterSerializer(serializers.Serializer[object]):
        run = serializers.UUIDField(required=False, help_text="Shares showing this run.")
        experiment = serializers.UUIDField(required=False)

    @extend_schema_serializer(component_name="ShareInput")
    class InputSerializer(serializers.Serializer[object]):
        kind = serializers.ChoiceField(choices=ShareKind.choices)
        run = serializers.UUIDField(required=False, help_text="kind=run: the run to share.")
        experiment = serializers.UUIDField(
            required=False, help_text="kind=experiment: the experiment, with all its runs."
        )
        runs = serializers.ListField(
            child=serializers.UUIDField(),
            required=False,
            min_length=2,
            max_length=COMPARE_RUNS_MAX,
            help_text="kind=comparison: the completed messaging runs, in the order shown.",
        )
        title = serializers.CharField(max_length=200, required=False, allow_blank=True)
        expires_at = serializers.DateTimeField(
            required=False, allow_null=True, help_text="Default: the link never expires."
        )

        validate_expires_at = staticmethod(_future)

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            kind = attrs["kind"]
            wanted = {
                ShareKind.RUN: "run",
                ShareKind.EXPERIMENT: "experiment",
                ShareKind.COMPARISON: "runs",
            }
            errors: dict[str, list[str]] = {}
            for share_kind, field in wanted.items():
                if share_kind == kind and field not in attrs:
                    errors[field] = [REQUIRED_FOR_KIND.format(kind=kind)]
                if share_kind != kind and field in attrs:
                    errors[field] = [ONLY_FOR_KIND.format(kind=share_kind.value)]
            if errors:
                raise serializers.ValidationError(errors)
            workspace = self.context["workspace"]
            if "run" in attrs:
                attrs["run"] = self._completed_runs(workspace, [attrs["run"]], "run")[0]
            if "runs" in attrs:
                runs = self._completed_runs(workspace, attrs["runs"], "runs")
                for run in runs:
                    if run.experiment.kind != ExperimentKind.MESSAGING:
                        raise serializers.ValidationError(
                            {"runs": [COMPARE_NEEDS_MESSAGING.format(kind=run.experiment.kind)]}
                        )
                attrs["runs"] = runs
            if "experiment" in attrs:
                experiment = workspace_experiment(
                    workspace=workspace, experiment_id=attrs["experiment"]
                )
                if experiment is None:
                    raise serializers.ValidationError(
                        {"experiment": [NOT_IN_WORKSPACE.format(what="experiment")]}
                    )
                attrs["experiment"] = experiment
            return attrs

        @staticmethod
        def _completed_runs(workspace: Any, run_ids: list[UUID], field: str) -> list[Run]:
            if len(set(run_ids)) != len(run_ids):
                raise serializers.ValidationError({field: [DUPLICATE_RUNS]})
            found = workspace_runs(workspace=workspace, run_ids=run_ids)
            if len(found) != len(run_ids):
                raise serializers.ValidationError({field: [NOT_IN_WORKSPACE.format(what="run")]})
            runs = [found[run_id] for run_id in run_ids]
            for run in runs:
                if run.status not in MEASURED_STATUSES:
                    raise serializers.ValidationError(
                        {field: [RUN_NOT_COMPLETED.format(status=run.status)]}
                    )
            return runs

    @extend_schema(
        operation_id="shares_list",
        parameters=[FilterSerializer],
        responses=ShareOutputSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        query = self.FilterSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        shares = share_list(
            workspace=workspace_for_user(user=request.user),
            run_id=query.validated_data.get("run"),
            experiment_id=query.validated_data.get("experiment"),
        )
        return Response(ShareOutputSerializer(shares, many=True).data)

    @extend_schema(
        operation_id="shares_create",
        request=InputSerializer,
        responses={201: ShareOutputSerializer},
    )
    def post(self, request: Request) -> Response:
        workspace = workspace_for_user(user=request.user)
        data = self.InputSerializer(data=request.data, context={"workspace": workspace})
        data.is_valid(raise_exception=True)
        share = share_create(
            workspace=workspace,
            user=request.user,
            **data.validated_data,
        )
        return Response(ShareOutputSerializer(share).data, status=status.HTTP_201_CREATED)


class ShareDetailApi(APIView):
    @extend_schema_serializer(component_name="ShareUpdate")
    class UpdateSerializer(serializers.Serializer[object]):
        title = serializers.CharField(max_length=200, required=False, allow_blank=True)
        expires_at = serializers.DateTimeField(
            required=False, allow_null=True, help_text="null: the link never expires."
        )

        validate_expires_at = staticmethod(_future)

    @extend_schema(operation_id="shares_retrieve", responses=ShareOutputSerializer)
    def get(self, request: Request, share_id: UUID) -> Response:
        share = share_get(workspace=workspace_for_user(user=request.user), share_id=share_id)
        return Response(ShareOutputSerializer(share).data)

    @extend_schema(
        operation_id="shares_update", request=UpdateSerializer, responses=ShareOutputSerializer
    )
    def patch(self, request: Request, share_id: UUID) -> Response:
        share = share_get(workspace=workspace_for_user(user=request.user), share_id=share_id)
        data = self.UpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        share = share_update(
            share=share,
            title=data.validated_data.get("title"),
            expires_at=data.validated_data.get("expires_at", False),
        )
        return Response(ShareOutputSerializer(share).data)


class ShareRevokeApi(APIView):
    @extend_schema(operation_id="shares_revoke", request=None, responses=ShareOutputSerializer)
    def post(self, request: Request, share_id: UUID) -> Response:
        share = share_get(workspace=workspace_for_user(user=request.user), share_id=share_id)
        return Response(ShareOutputSerializer(share_revoke(share=share)).data)


# --- the public pages' API --------------------------------------------------------------


class _PublicApi(APIView):
    """No login, no session, no CSRF: the link's token is the only key. Every answer, errors
    included (their messages name runs), leaves with its ids replaced by the share's aliases
    (sharing.public.scrub); none is cached (a revoked link must stop answering at once) or
    meant for search engines."""

    authentication_classes: list[type] = []
    permission_classes = [AllowAny]
    share: Share | None = None

    def public_share(self, token: str) -> Share:
        """The link's active share (404 share_not_found otherwise), kept for the scrub."""
        self.share = share_get_public(token=token)
        return self.share

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        response = super().finalize_response(request, response, *args, **kwargs)
        if self.share is not None and isinstance(response, Response):
            addresses = share_addresses(share=self.share)
            response.data = scrub(self.share, response.data, addresses=addresses)
        response["Cache-Control"] = "no-store"
        response["X-Robots-Tag"] = "noindex, nofollow"
        return response


def _statistics(share: Share, run: Run) -> RunStatistics:
    """The run's statistics, its repeats narrowed to the runs the share shows."""
    statistics = run_statistics_compute(run=run)
    shown = share_run_ids(share=share)
    return replace(statistics, repeats=repeats_within(statistics.repeats, run_ids=shown))


class _SharedHeadSerializer(serializers.Serializer[object]):
    kind = serializers.ChoiceField(choices=ShareKind.choices)
    title = serializers.CharField()
    shared_at = serializers.DateTimeField(source="created_at")
    expires_at = serializers.DateTimeField(allow_null=True)


@extend_schema_serializer(component_name="SharedContent")
class SharedContentSerializer(_SharedHeadSerializer):
    """What a link shows. Every id in it is the share's alias of the real one."""

    experiment = ExperimentOutputSerializer(
        allow_null=True, help_text="kind=experiment: its design and runs."
    )
    runs = RunOutputSerializer(many=True, help_text="The shared runs, in the order shown.")


_TOKEN = OpenApiParameter("token", OpenApiTypes.STR, OpenApiParameter.PATH)


class PublicShareApi(_PublicApi):
    @extend_schema(
        operation_id="public_share", parameters=[_TOKEN], responses=SharedContentSerializer, auth=[]
    )
    def get(self, request: Request, token: str) -> Response:
        share = self.public_share(token)
        share_record_view(share=share)
        # The run payloads are serialized by experiments.apis.runs.run_output already.
        content = {
            **_SharedHeadSerializer(share).data,
            "experiment": ExperimentOutputSerializer(share.experiment).data
            if share.experiment
            else None,
            "runs": [_public_run(run_output(run_page(run=run))) for run in share_runs(share=share)],
        }
        return Response(content)


def _public_run(run: dict[str, Any]) -> dict[str, Any]:
    """A run as a link shows it: its target device keeps its name, role and state, but not
    its id (ids on a link are aliases; the lab address it served on is left out by the
    scrub, sharing.addresses); its spec without the platform's own broker (a broker the
    design named is labelled by the scrub)."""
    target = run.get("target")
    if isinstance(target, dict):
        run["target"] = {**target, "device_id": None}
    spec = run.get("spec")
    if isinstance(spec, dict) and not spec.get(BROKER_EXTERNAL):
        run["spec"] = {key: value for key, value in spec.items() if key != "broker_url"}
    return run


class PublicRunStatisticsApi(_PublicApi):
    @extend_schema(
        operation_id="public_share_run_statistics",
        parameters=[_TOKEN],
        responses=RunStatisticsSerializer,
        auth=[],
    )
    def get(self, request: Request, token: str, run_id: UUID) -> Response:
        share = self.public_share(token)
        run = share_run_get(share=share, run_alias=run_id)
        run_require_round_trips(run=run)
        return Response(RunStatisticsSerializer(_statistics(share, run)).data)


class PublicRunDistributionApi(_PublicApi):
    @extend_schema(
        operation_id="public_share_run_distribution",
        parameters=[_TOKEN, RunDistributionApi.InputSerializer],
        responses=RunDistributionSerializer,
        auth=[],
    )
    def get(self, request: Request, token: str, run_id: UUID) -> Response:
        query = distribution_query(request)
        run = share_run_get(share=self.public_share(token), run_alias=run_id)
        run_require_round_trips(run=run)
        return Response(distribution_answer(run, query))


class PublicRunMethodsApi(_PublicApi):
    @extend_schema(
        operation_id="public_share_run_methods",
        parameters=[_TOKEN],
        responses=MethodsSerializer,
        auth=[],
    )
    def get(self, request: Request, token: str, run_id: UUID) -> Response:
        share = self.public_share(token)
        run = share_run_get(share=share, run_alias=run_id)
        text = run_methods(
            run=run, statistics=lambda: _statistics(share, run), addresses=public_address_words
        )
        return Response(MethodsSerializer({"run_id": run.pk, "text": text}).data)


class PublicRunSizesApi(_PublicApi):
    @extend_schema(
        operation_id="public_share_run_sizes",
        parameters=[_TOKEN],
        responses=RunSizesSerializer,
        auth=[],
    )
    def get(self, request: Request, token: str, run_id: UUID) -> Response:
        share = self.public_share(token)
        run = share_run_get(share=share, run_alias=run_id)
        run_require_round_trips(run=run)
        sizes = run_sizes_compute(run=run)
        if sizes is None:
            raise RunHasNoDeliveredMessages(NO_DELIVERED_MESSAGES_MESSAGE.format(run_id=run.pk))
        return Response(RunSizesSerializer(sizes).data)


class PublicCompareApi(_PublicApi):
    @extend_schema(
        operation_id="public_share_compare",
        parameters=[
            _TOKEN,
            OpenApiParameter(
                "run",
                OpenApiTypes.UUID,
                many=True,
                explode=True,
                required=True,
                description="A shared run (its id on the shared page); repeat for each.",
            ),
        ],
        responses=ComparisonSerializer,
        auth=[],
    )
    def get(self, request: Request, token: str) -> Response:
        query = CompareApi.InputSerializer(data={"run": request.query_params.getlist("run")})
        query.is_valid(raise_exception=True)
        share = self.public_share(token)
        runs = share_runs_by_alias(share=share, run_aliases=query.validated_data["run"])
        for run in runs:
            run_require_round_trips(run=run)
        comparison = runs_compare(runs=runs)
        shown = share_run_ids(share=share)
        narrowed = replace(
            comparison,
            runs=[
                replace(
                    compared,
                    statistics=replace(
                        compared.statistics,
                        repeats=repeats_within(compared.statistics.repeats, run_ids=shown),
                    ),
                )
                for compared in comparison.runs
            ],
        )
        return Response(ComparisonSerializer(narrowed).data)
