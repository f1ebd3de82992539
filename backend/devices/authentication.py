"""`Authorization: Device <api token>` for the agent endpoints."""

from __future__ import annotations

import hashlib

from django.contrib.auth.models import AnonymousUser
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView

from devices.errors import DeviceAuthenticationFailed
from devices.models import Device

KEYWORD = b"device"
MISSING_MESSAGE = "Send the agent's API token as `Authorization: Device <token>`."
UNKNOWN_MESSAGE = "This device token is not known; enroll the agent again."


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class DeviceTokenAuthentication(BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[AnonymousUser, Device] | None:
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() != KEYWORD:
            return None
        if len(parts) != 2:
            raise DeviceAuthenticationFailed(MISSING_MESSAGE)
        device = Device.objects.filter(token_hash=token_hash(parts[1].decode())).first()
        if device is None:
            raise DeviceAuthenticationFailed(UNKNOWN_MESSAGE)
        return AnonymousUser(), device

    def authenticate_header(self, request: Request) -> str:
        return "Device"


class IsDevice(BasePermission):
    message = MISSING_MESSAGE

    def has_permission(self, request: Request, view: APIView) -> bool:
        return isinstance(request.auth, Device)


class DeviceTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = "devices.authentication.DeviceTokenAuthentication"
    name = "deviceToken"

    def get_security_definition(self, auto_schema: object) -> dict[str, str]:
        return {"type": "apiKey", "in": "header", "name": "Authorization"}
