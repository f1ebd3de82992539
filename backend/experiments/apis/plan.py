"""The design plan: how many runs a design expands to, in which order, and how long they
take, before anything is created."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import workspace_for_user
from experiments.apis.experiments import ExperimentInputSerializer
from experiments.estimate import duration_words
from experiments.services.plan import design_plan


@extend_schema_serializer(component_name="DesignPlanInput")
class DesignPlanInputSerializer(ExperimentInputSerializer):
    """A design to plan: the experiment input, the name optional. Strict as creating it."""

    name = serializers.CharField(max_length=200, required=False, default="")


@extend_schema_serializer(component_name="PlannedRun")
class PlannedRunSerializer(serializers.Serializer[object]):
    position = serializers.IntegerField()
    repeat = serializers.IntegerField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label
    cell = serializers.DictField()
    estimated_seconds = serializers.FloatField()


@extend_schema_serializer(component_name="DesignPlan")
class DesignPlanSerializer(serializers.Serializer[object]):
    run_count = serializers.IntegerField()
    cells = serializers.IntegerField()
    excluded = serializers.IntegerField()
    repeats = serializers.IntegerField()
    order_seed = serializers.IntegerField(
        help_text="The seed of this order: the design's, or a fresh one when it has none "
        "(give it in the design to run in this order)."
    )
    estimated_seconds = serializers.FloatField()
    estimated = serializers.CharField(help_text="The estimate in words, e.g. '2.5 h'.")
    warnings = serializers.ListField(child=serializers.CharField())
    runs = PlannedRunSerializer(
        many=True,
        help_text="The first 200 runs, in queue order: repeat blocks in turn, the runs of "
        "each block shuffled by `order_seed`.",
    )


class ExperimentPlanApi(APIView):
    """How many runs a design expands to and how long they take, before anything is
    created: the same checks and field errors as creating it."""

    @extend_schema(
        operation_id="experiments_plan",
        request=DesignPlanInputSerializer,
        responses=DesignPlanSerializer,
    )
    def post(self, request: Request) -> Response:
        serializer = DesignPlanInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        workspace = workspace_for_user(user=request.user)
        attrs = dict(serializer.validated_data)
        matrix = attrs.pop("matrix")
        plan = design_plan(workspace=workspace, attrs=attrs, matrix=matrix)
        body = {
            "run_count": plan.cells * plan.repeats,
            "cells": plan.cells,
            "excluded": plan.excluded,
            "repeats": plan.repeats,
            "order_seed": plan.order_seed,
            "estimated_seconds": plan.estimated_seconds,
            "estimated": duration_words(plan.estimated_seconds),
            "warnings": plan.warnings,
            "runs": plan.runs,
        }
        return Response(DesignPlanSerializer(body).data)
