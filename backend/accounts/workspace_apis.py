"""A workspace's team: members, roles, invitation links, and switching workspace."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from uuid import UUID

from django.contrib.auth import login
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import signed_in_user
from accounts.errors import OwnerRequired
from accounts.models import Membership
from accounts.selectors import (
    invitation_get,
    invitation_list,
    member_get,
    member_list,
    membership_get_for_user,
    membership_list_for_user,
    workspace_for_user,
)
from accounts.services import (
    INVITATION_TTL,
    OWNER_REQUIRED_MESSAGE,
    invitation_accept,
    invitation_check,
    invitation_create,
    invitation_revoke,
    membership_remove,
    workspace_select,
)

INVITE_PATH = "/invite/"


@extend_schema_serializer(component_name="Member")
class MemberOutputSerializer(serializers.Serializer[object]):
    id = serializers.IntegerField(help_text="The membership's id (remove with it).")
    user_id = serializers.IntegerField()
    username = serializers.CharField(source="user.username")
    role = serializers.ChoiceField(choices=Membership.Role.choices)
    joined_at = serializers.DateTimeField()


@extend_schema_serializer(component_name="Invitation")
class InvitationOutputSerializer(serializers.Serializer[object]):
    id = serializers.UUIDField()
    role = serializers.ChoiceField(choices=Membership.Role.choices)
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()


@extend_schema_serializer(component_name="InvitationIssued")
class InvitationIssuedSerializer(InvitationOutputSerializer):
    token = serializers.CharField(help_text="Shown once: only its hash is stored.")
    url = serializers.CharField(help_text="The link to send, on this site.")


@extend_schema_serializer(component_name="InvitationPreview")
class InvitationPreviewSerializer(serializers.Serializer[object]):
    workspace_name = serializers.CharField(source="workspace.name")
    invited_by = serializers.CharField(source="created_by.username")
    role = serializers.ChoiceField(choices=Membership.Role.choices)
    expires_at = serializers.DateTimeField()


@extend_schema_serializer(component_name="WorkspaceMembership")
class WorkspaceMembershipSerializer(serializers.Serializer[object]):
    id = serializers.UUIDField(source="workspace.id")
    name = serializers.CharField(source="workspace.name")
    role = serializers.ChoiceField(choices=Membership.Role.choices)
    current = serializers.BooleanField()


def _role(request: Request) -> str:
    workspace = workspace_for_user(user=signed_in_user(request))
    membership = Membership.objects.get(workspace=workspace, user_id=signed_in_user(request).pk)
    return membership.role


class MemberListApi(APIView):
    @extend_schema(operation_id="workspace_members", responses=MemberOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        members = member_list(workspace=workspace_for_user(user=signed_in_user(request)))
        return Response(MemberOutputSerializer(members, many=True).data)


class MemberRemoveApi(APIView):
    """An owner removes someone from the workspace; they lose access at once."""

    @extend_schema(operation_id="workspace_member_remove", responses={204: None})
    def delete(self, request: Request, membership_id: int) -> Response:
        membership = member_get(
            workspace=workspace_for_user(user=signed_in_user(request)), membership_id=membership_id
        )
        membership_remove(membership=membership, by=signed_in_user(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class InvitationListApi(APIView):
    class InputSerializer(serializers.Serializer[object]):
        role = serializers.ChoiceField(
            choices=Membership.Role.choices, default=Membership.Role.MEMBER
        )
        expires_in_days = serializers.IntegerField(
            min_value=1, max_value=30, default=INVITATION_TTL.days
        )

    @extend_schema(
        operation_id="workspace_invitations", responses=InvitationOutputSerializer(many=True)
    )
    def get(self, request: Request) -> Response:
        workspace = workspace_for_user(user=signed_in_user(request))
        if _role(request) != Membership.Role.OWNER:
            raise OwnerRequired(OWNER_REQUIRED_MESSAGE)
        return Response(
            InvitationOutputSerializer(invitation_list(workspace=workspace), many=True).data
        )

    @extend_schema(
        operation_id="workspace_invitation_create",
        request=InputSerializer,
        responses={201: InvitationIssuedSerializer},
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        issued = invitation_create(
            workspace=workspace_for_user(user=signed_in_user(request)),
            by=signed_in_user(request),
            role=serializer.validated_data["role"],
            ttl=timedelta(days=serializer.validated_data["expires_in_days"]),
        )
        payload: dict[str, Any] = {
            **InvitationOutputSerializer(issued.invitation).data,
            "token": issued.token,
            "url": request.build_absolute_uri(f"{INVITE_PATH}{issued.token}"),
        }
        return Response(payload, status=status.HTTP_201_CREATED)


class InvitationRevokeApi(APIView):
    @extend_schema(operation_id="workspace_invitation_revoke", responses={204: None})
    def delete(self, request: Request, invitation_id: UUID) -> Response:
        invitation = invitation_get(
            workspace=workspace_for_user(user=signed_in_user(request)), invitation_id=invitation_id
        )
        invitation_revoke(invitation=invitation, by=signed_in_user(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class WorkspaceListApi(APIView):
    @extend_schema(
        operation_id="workspace_list", responses=WorkspaceMembershipSerializer(many=True)
    )
    def get(self, request: Request) -> Response:
        memberships = list(membership_list_for_user(user=signed_in_user(request)))
        for index, membership in enumerate(memberships):
            membership.current = index == 0  # type: ignore[attr-defined]
        return Response(WorkspaceMembershipSerializer(memberships, many=True).data)


class WorkspaceSelectApi(APIView):
    """Work in another of one's workspaces from now on (UI and API tokens alike)."""

    @extend_schema(operation_id="workspace_select", request=None, responses={204: None})
    def post(self, request: Request, workspace_id: UUID) -> Response:
        workspace_select(
            membership=membership_get_for_user(
                user=signed_in_user(request), workspace_id=workspace_id
            )
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class InvitationPublicApi(APIView):
    """What an invitation link opens (answered without login, so the invitee can see it)."""

    permission_classes = [AllowAny]

    @extend_schema(operation_id="invitation_preview", responses=InvitationPreviewSerializer)
    def get(self, request: Request, token: str) -> Response:
        return Response(InvitationPreviewSerializer(invitation_check(token=token)).data)


class InvitationAcceptApi(APIView):
    """Join the workspace: signed in, as oneself; signed out, as a new account (signed in
    afterwards). The link then stops working."""

    permission_classes = [AllowAny]

    @extend_schema_serializer(component_name="InvitationAcceptInput")
    class InputSerializer(serializers.Serializer[object]):
        username = serializers.CharField(max_length=150, required=False)
        password = serializers.CharField(style={"input_type": "password"}, required=False)

    @extend_schema(
        operation_id="invitation_accept",
        request=InputSerializer,
        responses={201: WorkspaceMembershipSerializer},
    )
    def post(self, request: Request, token: str) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        if request.user.is_authenticated:
            membership = invitation_accept(token=token, user=signed_in_user(request))
        else:
            missing = {
                field: ["Required to create your account."]
                for field in ("username", "password")
                if not serializer.validated_data.get(field)
            }
            if missing:
                raise serializers.ValidationError(missing)
            membership = invitation_accept(
                token=token,
                username=serializer.validated_data["username"],
                password=serializer.validated_data["password"],
            )
            login(
                request._request,
                membership.user,
                backend="django.contrib.auth.backends.ModelBackend",
            )
        membership.current = True  # type: ignore[attr-defined]
        return Response(
            WorkspaceMembershipSerializer(membership).data, status=status.HTTP_201_CREATED
        )
