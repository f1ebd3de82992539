"""`Authorization: Token <key>` for scripts: personal API tokens, stored hashed (ApiToken)."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import TYPE_CHECKING

from django.contrib.auth.models import AbstractBaseUser, User
from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from accounts.errors import SessionRequired
from accounts.models import ApiToken

if TYPE_CHECKING:
    # Only for types: rest_framework.views imports this module through its settings.
    from rest_framework.views import APIView

KEYWORD = b"token"
# Failures raise DRF's AuthenticationFailed (code `authentication_failed`, as before),
# not an ApplicationError: DRF then adds the `WWW-Authenticate` header.
MALFORMED_MESSAGE = "Send the API token as `Authorization: Token <key>`."
UNKNOWN_MESSAGE = "This API token is unknown or was revoked; create a new one under Account."
SESSION_REQUIRED_MESSAGE = "Sign in to the web UI to do this; an API token cannot."
# `last_used_at` is written at most this often per token: a script making many requests
# would otherwise write a row on each one.
LAST_USED_RESOLUTION = timedelta(minutes=1)


def api_token_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class ApiTokenAuthentication(BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[AbstractBaseUser, ApiToken] | None:
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() != KEYWORD:
            return None
        if len(parts) != 2:
            raise AuthenticationFailed(MALFORMED_MESSAGE)
        token = (
            ApiToken.objects.select_related("user")
            .filter(token_hash=api_token_hash(parts[1].decode(errors="replace")))
            .first()
        )
        if token is None or not token.user.is_active:
            raise AuthenticationFailed(UNKNOWN_MESSAGE)
        now = timezone.now()
        if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        # Makes "not signed in" a 401 (with WWW-Authenticate), not a 403.
        return "Token"


def signed_in_user(request: Request) -> User:
    """The request's user, once IsAuthenticated has let it through (never anonymous)."""
    user = request.user
    assert isinstance(user, User), "only for views behind IsAuthenticated"
    return user


class IsSignedInWithSession(BasePermission):
    """Refuses requests authenticated by an API token (their `auth` is the ApiToken)."""

    def has_permission(self, request: Request, view: APIView) -> bool:
        if isinstance(request.auth, ApiToken):
            raise SessionRequired(SESSION_REQUIRED_MESSAGE)
        return True


class ApiTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = "accounts.authentication.ApiTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: object) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token <key>`; create a key under Account → API tokens.",
        }
