"""Request-level guards that must act before a view (or DRF) reads the request body."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse

from core.exception_handlers import application_error_response
from core.exceptions import ApplicationError


class BodyLimitMiddleware:
    """Refuse a request body over its view's limit from `Content-Length`, before any of it
    is read.

    A view class that takes large bodies declares the classmethod
    `refuse_body_over_limit(content_length: int) -> None`, raising its own ApplicationError
    (413) when the declared length is over its limit. Checking here, in `process_view`,
    matters: by the time the view runs, DRF's CSRF check has read `request.POST`, which for
    a multipart upload writes the whole file to disk first. A body without `Content-Length`
    (chunked) is read by Django as empty, so it cannot get round the check. Place this
    before CsrfViewMiddleware, whose process_view may read the body too.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self,
        request: HttpRequest,
        view_func: Callable[..., Any],
        view_args: Any,
        view_kwargs: Any,
    ) -> HttpResponse | None:
        refuse = getattr(getattr(view_func, "cls", None), "refuse_body_over_limit", None)
        if refuse is None:
            return None
        try:
            content_length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return None  # Django reads a malformed length as an empty body
        try:
            refuse(content_length)
        except ApplicationError as exc:
            return application_error_response(exc)
        return None
