"""One's own account: password and personal API tokens for scripts."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.contrib.auth import update_session_auth_hash
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import IsSignedInWithSession, signed_in_user
from accounts.selectors import api_token_get, api_token_list
from accounts.services import api_token_create, api_token_revoke, password_change


@extend_schema_serializer(component_name="ApiToken")
class ApiTokenOutputSerializer(serializers.Serializer[object]):
    id = serializers.UUIDField()
    name = serializers.CharField()
    prefix = serializers.CharField(help_text="The key's first characters, to tell keys apart.")
    created_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField(allow_null=True)


@extend_schema_serializer(component_name="ApiTokenIssued")
class ApiTokenIssuedSerializer(ApiTokenOutputSerializer):
    key = serializers.CharField(help_text="Shown once: only its hash is stored.")


class PasswordChangeApi(APIView):
    permission_classes = [IsAuthenticated, IsSignedInWithSession]

    @extend_schema_serializer(component_name="PasswordChangeInput")
    class InputSerializer(serializers.Serializer[object]):
        current_password = serializers.CharField(style={"input_type": "password"})
        new_password = serializers.CharField(style={"input_type": "password"})

    @extend_schema(
        operation_id="auth_password_change", request=InputSerializer, responses={204: None}
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        password_change(
            user=signed_in_user(request),
            current=serializer.validated_data["current_password"],
            new=serializer.validated_data["new_password"],
        )
        # Keeps this session signed in; the user's other sessions end.
        update_session_auth_hash(request._request, signed_in_user(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class ApiTokenListApi(APIView):
    permission_classes = [IsAuthenticated, IsSignedInWithSession]

    @extend_schema_serializer(component_name="ApiTokenCreateInput")
    class InputSerializer(serializers.Serializer[object]):
        name = serializers.CharField(max_length=80)

    @extend_schema(operation_id="auth_tokens", responses=ApiTokenOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(
            ApiTokenOutputSerializer(api_token_list(user=signed_in_user(request)), many=True).data
        )

    @extend_schema(
        operation_id="auth_token_create",
        request=InputSerializer,
        responses={201: ApiTokenIssuedSerializer},
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        issued = api_token_create(
            user=signed_in_user(request), name=serializer.validated_data["name"]
        )
        payload: dict[str, Any] = {
            **ApiTokenOutputSerializer(issued.token).data,
            "key": issued.key,
        }
        return Response(payload, status=status.HTTP_201_CREATED)


class ApiTokenRevokeApi(APIView):
    """Revoke one of one's tokens; the next request made with it is refused. A token may
    revoke itself (a script cleaning up)."""

    @extend_schema(operation_id="auth_token_revoke", responses={204: None})
    def delete(self, request: Request, token_id: UUID) -> Response:
        api_token_revoke(token=api_token_get(user=signed_in_user(request), token_id=token_id))
        return Response(status=status.HTTP_204_NO_CONTENT)
