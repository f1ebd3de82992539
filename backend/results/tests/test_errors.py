"""The results app's errors answer with the one envelope (as core/tests/test_errors.py)."""

from __future__ import annotations

import inspect

import pytest
from rest_framework.views import APIView

import results.errors
from core.exception_handlers import api_exception_handler
from core.exceptions import ApplicationError

ERRORS = [
    obj
    for _, obj in inspect.getmembers(results.errors, inspect.isclass)
    if issubclass(obj, ApplicationError) and obj is not ApplicationError
]


@pytest.mark.parametrize("error_class", ERRORS, ids=lambda c: c.code)
def test_error_is_answered_with_the_envelope_its_code_and_status(error_class):
    assert error_class.__doc__
    response = api_exception_handler(error_class("Why.", extra={"k": 1}), {"view": APIView()})
    assert response.status_code == error_class.status_code
    assert response.data == {"message": "Why.", "code": error_class.code, "extra": {"k": 1}}
