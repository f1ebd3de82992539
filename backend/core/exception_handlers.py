"""One envelope for every API error: {"message", "code", "extra"}.

Combines HackSoft's proposed handler (Django errors mapped onto DRF's) with a stable machine
`code` per failure. HTTP mapping lives here and nowhere else.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, JsonResponse
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.serializers import as_serializer_error
from rest_framework.views import exception_handler

from core.exceptions import ApplicationError

logger = logging.getLogger(__name__)

VALIDATION_MESSAGE = "Some fields are invalid: correct them and send again."
INTERNAL_MESSAGE = "The server failed to handle this request; it has been logged."


def envelope(message: str, code: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"message": message, "code": code, "extra": extra or {}}


def _retry_after(exc: ApplicationError) -> dict[str, str] | None:
    return None if exc.retry_after_s is None else {"Retry-After": str(exc.retry_after_s)}


def application_error_response(exc: ApplicationError) -> JsonResponse:
    """The envelope of a domain error raised outside DRF (middleware, Django's handlers)."""
    return JsonResponse(
        envelope(exc.message, exc.code, exc.extra),
        status=exc.status_code,
        headers=_retry_after(exc),
    )


def _flatten(errors: Any, prefix: str = "") -> list[str]:
    """Field errors as a flat list of messages: DRF reports a bad list item as
    {"1": ["..."]}; clients get ["Item 2: ..."] so every field maps to messages."""
    if isinstance(errors, dict):
        flat: list[str] = []
        for key, value in errors.items():
            label = f"Item {int(key) + 1}" if str(key).isdigit() else str(key)
            flat.extend(_flatten(value, prefix=f"{prefix}{label}: "))
        return flat
    if isinstance(errors, list):
        return [message for item in errors for message in _flatten(item, prefix)]
    return [f"{prefix}{errors}"]


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    if isinstance(exc, ApplicationError):
        return Response(
            envelope(exc.message, exc.code, exc.extra),
            status=exc.status_code,
            headers=_retry_after(exc),
        )

    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(as_serializer_error(exc))
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    if isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()

    response = exception_handler(exc, context)
    if response is None:
        logger.exception("api.unhandled_error", exc_info=exc)
        return Response(
            envelope(INTERNAL_MESSAGE, "internal_error"),
            status=status.HTTP_500_INTERNAL_SERVER_ERROR,
        )

    assert isinstance(exc, exceptions.APIException)
    if isinstance(exc, exceptions.ValidationError):
        detail = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
        fields = {name: _flatten(errors) for name, errors in detail.items()}
        response.data = envelope(VALIDATION_MESSAGE, "validation_error", {"fields": fields})
        return response

    codes = exc.get_codes()
    code = codes if isinstance(codes, str) else exc.default_code
    response.data = envelope(str(exc.detail), str(code))
    return response
