"""Network profiles: the built-in catalogue (read-only, visible to every workspace) and the
workspace's own profiles (docs/network-profiles.md)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import workspace_for_user
from netprofiles.models import NetworkProfile, ProfileKind
from netprofiles.selectors import profile_delays, profile_get, profile_list
from netprofiles.services import profile_copy, profile_create, profile_delete, profile_update

SPEC_HELP = (
    'A link profile per direction: {"both": {…}} or {"egress": {…}, "ingress": {…}} with '
    "rate_kbit, delay_ms, jitter_ms, distribution (normal, pareto, paretonormal, uniform, "
    "table), table, loss_pct, loss_gemodel, duplicate_pct, reorder_pct, corrupt_pct, limit "
    "(docs/network-emulation.md). {} is an unshaped LAN."
)


@extend_schema_serializer(component_name="NetworkProfile")
class ProfileOutputSerializer(serializers.Serializer[object]):
    id = serializers.UUIDField()
    name = serializers.CharField()
    slug = serializers.CharField()
    kind = serializers.ChoiceField(choices=ProfileKind.choices)
    builtin = serializers.BooleanField(
        help_text="A catalogue entry: read-only for everyone; copy it to change it."
    )
    description = serializers.CharField()
    citation = serializers.CharField(help_text="Where the figures come from.")
    spec = serializers.JSONField(help_text=SPEC_HELP)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class DelayFiguresSerializer(serializers.Serializer[object]):
    direction = serializers.ChoiceField(choices=["both", "egress", "ingress"])
    distribution = serializers.CharField()
    table = serializers.CharField(allow_null=True)
    mu_ms = serializers.FloatField()
    sigma_ms = serializers.FloatField()
    delivered_mean_ms = serializers.FloatField(
        help_text="Mean of the delays the agent draws (µ + sigma · the table's mean)."
    )
    delivered_std_ms = serializers.FloatField(
        help_text="sigma of the delays the agent draws; below sigma_ms for the clipped tables."
    )
    entries = serializers.IntegerField(help_text="Values in the table (4096 for maketable's).")
    edges_ms = serializers.ListField(child=serializers.FloatField())
    counts = serializers.ListField(child=serializers.IntegerField())


@extend_schema_serializer(component_name="NetworkProfileDetail")
class ProfileDetailSerializer(ProfileOutputSerializer):
    delays = DelayFiguresSerializer(
        many=True,
        help_text="Per direction that draws its delay from a distribution table: what it "
        "delivers, with a histogram for a chart.",
    )


def _detail(profile: NetworkProfile) -> dict[str, Any]:
    data: dict[str, Any] = dict(ProfileOutputSerializer(profile).data)
    data["delays"] = DelayFiguresSerializer(profile_delays(profile=profile), many=True).data
    return data


class NetworkProfilesApi(APIView):
    class FilterSerializer(serializers.Serializer[object]):
        kind = serializers.ChoiceField(choices=ProfileKind.choices, required=False)
        search = serializers.CharField(
            required=False, max_length=200, help_text="A part of the name (any case)."
        )

    @extend_schema_serializer(component_name="NetworkProfileInput")
    class InputSerializer(serializers.Serializer[object]):
        name = serializers.CharField(max_length=200)
        description = serializers.CharField(required=False, allow_blank=True, default="")
        citation = serializers.CharField(required=False, allow_blank=True, default="")
        spec = serializers.JSONField(help_text=SPEC_HELP)

    @extend_schema(
        operation_id="network_profiles_list",
        parameters=[FilterSerializer],
        responses=ProfileOutputSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        query = self.FilterSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        profiles = profile_list(
            workspace=workspace_for_user(user=request.user), **query.validated_data
        )
        return Response(ProfileOutputSerializer(profiles, many=True).data)

    @extend_schema(
        operation_id="network_profiles_create",
        request=InputSerializer,
        responses={201: ProfileDetailSerializer},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        profile = profile_create(
            workspace=workspace_for_user(user=request.user),
            user=request.user,
            **data.validated_data,
        )
        return Response(_detail(profile), status=status.HTTP_201_CREATED)


class NetworkProfileDetailApi(APIView):
    @extend_schema_serializer(component_name="NetworkProfileUpdate")
    class UpdateSerializer(serializers.Serializer[object]):
        name = serializers.CharField(max_length=200, required=False)
        description = serializers.CharField(required=False, allow_blank=True)
        citation = serializers.CharField(required=False, allow_blank=True)
        spec = serializers.JSONField(required=False, help_text=SPEC_HELP)

    @extend_schema(operation_id="network_profiles_retrieve", responses=ProfileDetailSerializer)
    def get(self, request: Request, profile_id: UUID) -> Response:
        profile = profile_get(
            workspace=workspace_for_user(user=request.user), profile_id=profile_id
        )
        return Response(_detail(profile))

    @extend_schema(
        operation_id="network_profiles_update",
        request=UpdateSerializer,
        responses=ProfileDetailSerializer,
    )
    def patch(self, request: Request, profile_id: UUID) -> Response:
        profile = profile_get(
            workspace=workspace_for_user(user=request.user), profile_id=profile_id
        )
        data = self.UpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        profile = profile_update(profile=profile, **data.validated_data)
        return Response(_detail(profile))

    @extend_schema(operation_id="network_profiles_delete", responses={204: None})
    def delete(self, request: Request, profile_id: UUID) -> Response:
        profile = profile_get(
            workspace=workspace_for_user(user=request.user), profile_id=profile_id
        )
        profile_delete(profile=profile)
        return Response(status=status.HTTP_204_NO_CONTENT)


class NetworkProfileCopyApi(APIView):
    @extend_schema_serializer(component_name="NetworkProfileCopy")
    class InputSerializer(serializers.Serializer[object]):
        name = serializers.CharField(
            max_length=200, required=False, help_text="Default: “<name> (copy)”."
        )

    @extend_schema(
        operation_id="network_profiles_copy",
        request=InputSerializer,
        responses={201: ProfileDetailSerializer},
    )
    def post(self, request: Request, profile_id: UUID) -> Response:
        workspace = workspace_for_user(user=request.user)
        profile = profile_get(workspace=workspace, profile_id=profile_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        copy = profile_copy(
            profile=profile,
            workspace=workspace,
            user=request.user,
            name=data.validated_data.get("name"),
        )
        return Response(_detail(copy), status=status.HTTP_201_CREATED)
