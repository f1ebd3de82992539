"""The base of every domain error the API can answer with.

Each app declares its failures in `<app>/errors.py` as subclasses. The docstring says what
the failure means to the user; `code` is stable and machine-readable (clients branch on it);
`status_code` is the HTTP status the one exception handler answers with; `retry_after_s`,
when set, becomes the answer's `Retry-After` header (a 429 says when to come back).
"""

from __future__ import annotations

from typing import Any


class ApplicationError(Exception):
    """Something the user asked for cannot be done; the message says why and what to do."""

    code = "application_error"
    status_code = 400

    def __init__(
        self,
        message: str,
        *,
        extra: dict[str, Any] | None = None,
        retry_after_s: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra or {}
        self.retry_after_s = retry_after_s
