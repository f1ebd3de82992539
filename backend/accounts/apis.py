from __future__ import annotations

from django.contrib.auth import authenticate, login, logout
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.middleware.csrf import get_token
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import ensure_csrf_cookie
from drf_spectacular.utils import (
    extend_schema,
    extend_schema_serializer,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.errors import InvalidCredentials
from accounts.login_throttle import (
    client_address,
    login_failure_record,
    login_success_record,
    login_throttle_check,
)
from accounts.selectors import workspace_for_user

INVALID_CREDENTIALS_MESSAGE = "Wrong username or password."


@extend_schema_serializer(component_name="Workspace")
class WorkspaceOutputSerializer(serializers.Serializer[object]):
    id = serializers.UUIDField()
    name = serializers.CharField()


@extend_schema_serializer(component_name="User")
class UserOutputSerializer(serializers.Serializer[object]):
    id = serializers.IntegerField()
    username = serializers.CharField()
    workspace = WorkspaceOutputSerializer()


def _user_payload(user: AbstractBaseUser | AnonymousUser) -> dict[str, object]:
    workspace = workspace_for_user(user=user)
    return UserOutputSerializer(
        {"id": user.pk, "username": user.get_username(), "workspace": workspace}
    ).data


class CsrfApi(APIView):
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="auth_csrf",
        responses=inline_serializer("CsrfToken", {"csrf_token": serializers.CharField()}),
        auth=[],
    )
    @method_decorator(ensure_csrf_cookie)
    def get(self, request: Request) -> Response:
        return Response({"csrf_token": get_token(request)})


class LoginApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema_serializer(component_name="LoginInput")
    class InputSerializer(serializers.Serializer[object]):
        username = serializers.CharField()
        password = serializers.CharField(style={"input_type": "password"})

    @extend_schema(
        operation_id="auth_login",
        request=InputSerializer,
        responses=UserOutputSerializer,
        auth=[],
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        username = serializer.validated_data["username"]
        address = client_address(request._request)
        login_throttle_check(username=username, address=address)
        user = authenticate(request._request, **serializer.validated_data)
        if user is None:
            login_failure_record(username=username, address=address)
            raise InvalidCredentials(INVALID_CREDENTIALS_MESSAGE)
        login_success_record(username=username)
        login(request._request, user)
        return Response(_user_payload(user))


class LogoutApi(APIView):
    @extend_schema(operation_id="auth_logout", request=None, responses={204: None})
    def post(self, request: Request) -> Response:
        logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeApi(APIView):
    @extend_schema(operation_id="auth_me", responses=UserOutputSerializer)
    def get(self, request: Request) -> Response:
        return Response(_user_payload(request.user))
