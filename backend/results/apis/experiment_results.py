"""An experiment's results per cell of its matrix and their overheads (docs/results.md,
"Experiment results")."""

from __future__ import annotations

import dataclasses
from uuid import UUID

from django.http import HttpResponse
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import workspace_for_user
from experiments.models import Experiment
from experiments.selectors import experiment_get
from results.apis.common import float_list
from results.apis.exports import AnyAcceptNegotiation
from results.hierarchical import LEVEL_MESSAGES, LEVEL_RUNS
from results.services import PARQUET_MEDIA_TYPE
from results.services.cells import LEVEL_REPETITIONS
from results.services.experiment_results import (
    VERDICT_CHOICES,
    ExperimentResults,
    experiment_results_compute,
)
from results.services.experiment_results_cache import (
    experiment_results_cache_get,
    experiment_results_cache_key,
    experiment_results_cache_set,
)
from results.services.experiment_table import (
    experiment_methods_paragraph,
    experiment_table_csv,
    experiment_table_parquet,
)

_LEVEL_HELP = (
    f"'{LEVEL_RUNS}': two-stage bootstrap, runs then messages within runs (two completed "
    f"runs or more); '{LEVEL_MESSAGES}': one completed run, a message-level interval that "
    "cannot see run-to-run variation; "
    f"'{LEVEL_REPETITIONS}': a benchmark cell's one completed run, over its repetitions "
    "(or windows)."
)
# The interval levels of a cell, and of a difference (an overhead, a compared pair); named
# in the schema by ENUM_NAME_OVERRIDES (config/settings/drf.py).
CELL_LEVELS = [LEVEL_RUNS, LEVEL_MESSAGES, LEVEL_REPETITIONS]
DIFFERENCE_LEVELS = [LEVEL_RUNS, LEVEL_MESSAGES]


def _interval(**kwargs: object) -> serializers.ListField:
    return float_list(min_length=2, max_length=2, **kwargs)


@extend_schema_serializer(component_name="ExperimentCellRun")
class CellRunSerializer(serializers.Serializer[object]):
    run_id = serializers.UUIDField()
    repeat = serializers.IntegerField()
    messages = serializers.IntegerField(help_text="Delivered messages (all devices).")
    lost = serializers.IntegerField()
    mean_ms = serializers.FloatField(allow_null=True)
    median_ms = serializers.FloatField(allow_null=True)


@extend_schema_serializer(component_name="ExperimentCellMetric")
class MetricSerializer(serializers.Serializer[object]):
    name = serializers.CharField(
        help_text="median_ms, mean_ms (messaging); seconds, mb_s (cipher bench); packets_per_s, "
        "mb_s (throughput); peak_rss_kb (benchmarks, a maximum: no interval)."
    )
    unit = serializers.CharField()
    value = serializers.FloatField(allow_null=True)
    ci = _interval(allow_null=True)


@extend_schema_serializer(component_name="ExperimentCell")
class CellSerializer(serializers.Serializer[object]):
    """One parameter combination: its completed runs and their figures (ms)."""

    key = serializers.CharField(help_text="Give it as ?baseline= to compare against this cell.")
    label = serializers.CharField(  # type: ignore[assignment]  # a declared field, not Field.label
        help_text="The parameters in which the cells differ."
    )
    parameters = serializers.DictField(child=serializers.JSONField())
    runs = CellRunSerializer(many=True, help_text="Completed runs only.")
    other_runs = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="Runs of the cell that did not complete (not measured), by status.",
    )
    interval_level = serializers.ChoiceField(
        choices=CELL_LEVELS, allow_null=True, help_text=_LEVEL_HELP
    )
    messages = serializers.IntegerField(
        help_text="Delivered messages; a benchmark cell's repetitions (or windows)."
    )
    lost = serializers.IntegerField()
    mean_ms = serializers.FloatField(allow_null=True, help_text="Mean of the runs' means.")
    mean_ci_ms = _interval(allow_null=True)
    median_ms = serializers.FloatField(allow_null=True, help_text="Mean of the runs' medians.")
    median_ci_ms = _interval(allow_null=True)
    ci_clipped = serializers.BooleanField(
        help_text="The mean's or median's interval reached below 0 (the widening of a few "
        "runs on a noisy host) and was clipped at 0: a delay cannot be negative."
    )
    metrics = MetricSerializer(many=True, help_text="Every figure of the cell, of any kind.")


@extend_schema_serializer(component_name="ExperimentOverhead")
class OverheadSerializer(serializers.Serializer[object]):
    """A cell's mean minus its baseline cell's (ms)."""

    cell = serializers.CharField()
    baseline = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label
    baseline_label = serializers.CharField()
    interval_level = serializers.ChoiceField(choices=DIFFERENCE_LEVELS, help_text=_LEVEL_HELP)
    overhead_ms = serializers.FloatField()
    ci_ms = _interval()
    relative_percent = serializers.FloatField()
    relative_ci_percent = _interval()
    verdict = serializers.ChoiceField(
        choices=VERDICT_CHOICES,
        help_text="From the interval: slower when it lies above 0, faster below, else none.",
    )
    verdict_text = serializers.CharField()
    max_rate_per_s = serializers.FloatField(
        allow_null=True,
        help_text="1000 / overhead_ms: messages a second the added work alone allows; null "
        "unless the overhead is above zero.",
    )
    max_rate_ci_per_s = serializers.ListField(
        child=serializers.FloatField(allow_null=True),
        min_length=2,
        max_length=2,
        allow_null=True,
        help_text="From the overhead's interval; the upper end null when it reaches zero.",
    )
    paired = serializers.BooleanField(
        help_text="Two mechanisms of the same interleaved runs: the overhead is the mean of "
        "differences paired by rotation cycle, its interval their two-stage bootstrap."
    )


@extend_schema_serializer(component_name="ExperimentResults")
class ExperimentResultsSerializer(serializers.Serializer[object]):
    experiment_id = serializers.UUIDField()
    kind = serializers.CharField()
    confidence = serializers.FloatField()
    baseline = serializers.CharField(
        allow_null=True,
        help_text="The cell asked for; null: each cell against the cell that differs only in "
        "security = none.",
    )
    quantity = serializers.CharField(
        help_text="What a messaging experiment's figures are: 'round-trip time', 'one-way "
        "delay', 'acknowledgement time (CON → ACK)'…; empty for a benchmark."
    )
    cells = CellSerializer(many=True)
    overheads = OverheadSerializer(many=True, help_text="Messaging experiments only.")
    methods = serializers.CharField(help_text="A methods paragraph for the whole experiment.")


class _BaselineSerializer(serializers.Serializer[object]):
    baseline = serializers.CharField(
        required=False, max_length=64, help_text="A cell's key: every cell against it."
    )


def _experiment_and_baseline(
    request: Request, experiment_id: UUID
) -> tuple[Experiment, str | None]:
    experiment = experiment_get(
        workspace=workspace_for_user(user=request.user), experiment_id=experiment_id
    )
    params = _BaselineSerializer(data=request.query_params)
    params.is_valid(raise_exception=True)
    return experiment, params.validated_data.get("baseline")


def results_payload(*, experiment: Experiment, results: ExperimentResults) -> dict[str, object]:
    """The results endpoint's body (the shared results page answers the same)."""
    methods = experiment_methods_paragraph(experiment=experiment, results=results)
    fields = {f.name: getattr(results, f.name) for f in dataclasses.fields(results)}
    return dict(ExperimentResultsSerializer({**fields, "methods": methods}).data)


def results_payload_cached(
    *, experiment: Experiment, baseline: str | None = None
) -> dict[str, object]:
    """results_payload, read from the cache while the experiment and its runs are unchanged
    (results.services.experiment_results_cache)."""
    key = experiment_results_cache_key(experiment=experiment, baseline=baseline)
    payload = experiment_results_cache_get(key=key)
    if payload is None:
        results = experiment_results_compute(experiment=experiment, baseline=baseline)
        payload = results_payload(experiment=experiment, results=results)
        experiment_results_cache_set(key=key, payload=payload)
    return payload


class ExperimentResultsApi(APIView):
    InputSerializer = _BaselineSerializer

    @extend_schema(
        operation_id="experiments_results",
        parameters=[InputSerializer],
        responses=ExperimentResultsSerializer,
    )
    def get(self, request: Request, experiment_id: UUID) -> Response:
        experiment, baseline = _experiment_and_baseline(request, experiment_id)
        return Response(results_payload_cached(experiment=experiment, baseline=baseline))


_BINARY = {"type": "string", "format": "binary"}


class ExperimentResultsTableCsvApi(APIView):
    """The results page's table (one row per cell) as CSV; ?baseline= as the results."""

    content_negotiation_class = AnyAcceptNegotiation

    @extend_schema(
        operation_id="experiments_results_table_csv",
        parameters=[_BaselineSerializer],
        responses={(200, "text/csv"): _BINARY},
    )
    def get(self, request: Request, experiment_id: UUID) -> HttpResponse:
        experiment, baseline = _experiment_and_baseline(request, experiment_id)
        payload = results_payload_cached(experiment=experiment, baseline=baseline)
        response = HttpResponse(experiment_table_csv(payload=payload), content_type="text/csv")
        name = f"experiment-{experiment.pk}-results.csv"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response


class ExperimentResultsTableParquetApi(APIView):
    """The results page's table (one row per cell) as Parquet; ?baseline= as the results."""

    content_negotiation_class = AnyAcceptNegotiation

    @extend_schema(
        operation_id="experiments_results_table_parquet",
        parameters=[_BaselineSerializer],
        responses={(200, PARQUET_MEDIA_TYPE): _BINARY},
    )
    def get(self, request: Request, experiment_id: UUID) -> HttpResponse:
        experiment, baseline = _experiment_and_baseline(request, experiment_id)
        payload = results_payload_cached(experiment=experiment, baseline=baseline)
        response = HttpResponse(
            experiment_table_parquet(payload=payload), content_type=PARQUET_MEDIA_TYPE
        )
        name = f"experiment-{experiment.pk}-results.parquet"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response
