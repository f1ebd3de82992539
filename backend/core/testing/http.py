"""Requests that say more than they carry: for tests of limits checked before a body is read."""

from __future__ import annotations

from typing import Any


class UnreadableBody:
    """A WSGI input stream that fails the test if any of it is read."""

    def read(self, *args: Any) -> bytes:
        raise AssertionError("the request body was read; it should have been refused unread")

    readline = read


def declared_body(content_length: int) -> dict[str, Any]:
    """Extra WSGI environ for a test client request declaring `content_length` bytes of
    body that cannot be read (the client's own body and length are replaced)."""
    return {"CONTENT_LENGTH": str(content_length), "wsgi.input": UnreadableBody()}
