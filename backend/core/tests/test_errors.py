"""Every domain error answers with the same envelope, its own code and its own status."""

from __future__ import annotations

import importlib
import inspect

import pytest
from rest_framework.views import APIView

from core.exception_handlers import api_exception_handler
from core.exceptions import ApplicationError

ERROR_MODULES = [
    "accounts.errors",
    "devices.errors",
    "experiments.errors",
    "measurements.errors",
    "power.errors",
    "results.errors",
    "sharing.errors",
    "netprofiles.errors",
    "core.mqtt",
]


def _error_classes() -> list[type[ApplicationError]]:
    classes = []
    for name in ERROR_MODULES:
        module = importlib.import_module(name)
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if issubclass(obj, ApplicationError) and obj is not ApplicationError:
                classes.append(obj)
    return classes


def test_every_error_class_has_a_docstring_and_a_unique_code():
    classes = _error_classes()
    assert len(classes) >= 10
    codes = [c.code for c in classes]
    assert len(codes) == len(set(codes))
    assert all(c.__doc__ and c.__doc__.strip() for c in classes)


@pytest.mark.parametrize("error_class", _error_classes(), ids=lambda c: c.code)
def test_error_is_answered_with_the_envelope(error_class):
    response = api_exception_handler(
        error_class("Something specific.", extra={"k": 1}), {"view": APIView()}
    )
    assert response.status_code == error_class.status_code
    assert response.data == {
        "message": "Something specific.",
        "code": error_class.code,
        "extra": {"k": 1},
    }


def test_unexpected_exception_is_answered_with_a_500_envelope():
    response = api_exception_handler(RuntimeError("boom"), {"view": APIView()})
    assert response.status_code == 500
    assert response.data["code"] == "internal_error"
    assert "boom" not in response.data["message"]
