"""Pieces shared by the results endpoints: number lists, the run lookups."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import numpy as np
from rest_framework import serializers
from rest_framework.request import Request

from accounts.selectors import workspace_for_user
from experiments.models import Run
from experiments.selectors import run_get
from results.selectors import run_require_round_trips


class NumberListField(serializers.ListField):
    """A list of numbers handed over as it is (a list or a numpy array). Plot arrays hold
    thousands of numbers; converting each through the child field cost more than the rest
    of the response. The child still declares the item type for the schema."""

    def to_representation(self, data: Any) -> list[Any]:
        return data.tolist() if isinstance(data, np.ndarray) else list(data)


def float_list(**kwargs: Any) -> NumberListField:
    return NumberListField(child=serializers.FloatField(), **kwargs)


def int_list(**kwargs: Any) -> NumberListField:
    return NumberListField(child=serializers.IntegerField(), **kwargs)


def any_run(request: Request, run_id: UUID) -> Run:
    """The run in the user's workspace, whatever its kind; 404 outside it."""
    return run_get(workspace=workspace_for_user(user=request.user), run_id=run_id)


def messaging_run(request: Request, run_id: UUID) -> Run:
    """A messaging run in the user's workspace (400 run_has_no_round_trips for another kind)."""
    run = any_run(request, run_id)
    run_require_round_trips(run=run)
    return run
