"""Runs: a run's page (its devices and summaries, run_output), cancelling and retrying it."""

from __future__ import annotations

from uuid import UUID

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import workspace_for_user
from experiments.models import ExperimentKind, Run, RunStatus
from experiments.selectors import run_get
from experiments.services.scheduling import run_cancel, run_retry
from measurements.models import BenchOperation
from measurements.selectors import (
    NS_PER_MS,
    NS_PER_US,
    BenchBaselines,
    bench_statistics,
    run_statistics,
)

ALL_DEVICES_LABEL = "All devices"


@extend_schema_serializer(component_name="RunDevice")
class RunDeviceOutputSerializer(serializers.Serializer[object]):
    device_id = serializers.UUIDField()
    name = serializers.CharField(source="device.name")
    status = serializers.ChoiceField(choices=RunStatus.choices)
    sent = serializers.IntegerField()
    received = serializers.IntegerField()
    total = serializers.IntegerField()
    records_ingested = serializers.IntegerField()
    error = serializers.CharField()
    facts = serializers.DictField()
    network = serializers.DictField(
        allow_null=True,
        help_text="The agent's proof that the run's network profile was enforced: backend, "
        "verification figures, forwarder and relay counters (docs/network-emulation.md).",
    )
    clock = serializers.DictField(
        allow_null=True,
        help_text="One-way runs: the device's clock offset to the platform before and after "
        "the run ({offset_ms, uncertainty_ms}) and the offset applied to its receive times.",
    )


@extend_schema_serializer(component_name="RunSummaryRow")
class RunSummaryRowSerializer(serializers.Serializer[object]):
    device_id = serializers.UUIDField(allow_null=True)
    device_name = serializers.CharField()
    n = serializers.IntegerField()
    lost = serializers.IntegerField()
    mean_ms = serializers.FloatField(allow_null=True)
    median_ms = serializers.FloatField(allow_null=True)
    p95_ms = serializers.FloatField(allow_null=True)
    p99_ms = serializers.FloatField(allow_null=True)
    min_ms = serializers.FloatField(allow_null=True)
    max_ms = serializers.FloatField(allow_null=True)
    std_ms = serializers.FloatField(allow_null=True)
    secure_mean_us = serializers.FloatField(
        allow_null=True, help_text="Mean time inside the mechanism's secure (raw)."
    )
    unsecure_mean_us = serializers.FloatField(
        allow_null=True, help_text="Mean time inside the mechanism's unsecure (raw)."
    )
    floor_secure_mean_us = serializers.FloatField(
        allow_null=True,
        help_text="The harness floor: mean time of the `null` mechanism's secure on the same "
        "payload size, measured beside every message of this run; null without a mechanism "
        "(security `none`) or from agents before the floor.",
    )
    floor_unsecure_mean_us = serializers.FloatField(
        allow_null=True, help_text="The harness floor of unsecuring (see floor_secure_mean_us)."
    )
    net_secure_mean_us = serializers.FloatField(
        allow_null=True,
        help_text="secure_mean_us - floor_secure_mean_us: the mechanism's securing cost net of "
        "the harness floor; null without a floor.",
    )
    net_unsecure_mean_us = serializers.FloatField(
        allow_null=True, help_text="unsecure_mean_us - floor_unsecure_mean_us."
    )
    secure_median_us = serializers.FloatField(
        allow_null=True,
        help_text="Median time inside the mechanism's secure (raw): a few slow (cold) calls "
        "move it less than the mean.",
    )
    unsecure_median_us = serializers.FloatField(
        allow_null=True, help_text="Median time inside the mechanism's unsecure (raw)."
    )
    net_secure_median_us = serializers.FloatField(
        allow_null=True,
        help_text="Median over the messages of each one's securing time net of its own "
        "harness floor; null without a floor.",
    )
    net_unsecure_median_us = serializers.FloatField(
        allow_null=True,
        help_text="Median over the messages of each one's unsecuring time net of its floor.",
    )


@extend_schema_serializer(component_name="BenchSummaryRow")
class BenchSummaryRowSerializer(serializers.Serializer[object]):
    device_id = serializers.UUIDField()
    device_name = serializers.CharField()
    mechanism = serializers.CharField()
    operation = serializers.ChoiceField(choices=BenchOperation.choices)
    data_bytes = serializers.IntegerField()
    n = serializers.IntegerField()
    mean_us = serializers.FloatField()
    var_us2 = serializers.FloatField(allow_null=True)
    std_us = serializers.FloatField(allow_null=True)
    cpu_mean_us = serializers.FloatField()
    throughput_mb_s = serializers.FloatField()
    peak_rss_kb = serializers.IntegerField()
    calls_per_repetition = serializers.IntegerField(
        allow_null=True,
        help_text="Back-to-back calls each repetition timed (calls shorter than 1 ms are "
        "timed in groups; the times are then means per call); null: one call per repetition "
        "(older agents) or a throughput run.",
    )
    packets_per_s_mean = serializers.FloatField(allow_null=True)
    packets_per_s_std = serializers.FloatField(allow_null=True)
    net_mean_us = serializers.FloatField(
        allow_null=True,
        help_text="Mean time minus the `null` mechanism's mean for the same device, size and "
        "direction (encrypt/sign vs. decrypt/verify): the cost net of the harness floor; null "
        "when the run has no `null` rows.",
    )
    relative_cost = serializers.FloatField(
        allow_null=True,
        help_text="Packets/s without security ÷ packets/s with this mechanism (same device, "
        "operation and size); null when the run has no `none` rows.",
    )


@extend_schema_serializer(component_name="ExperimentBrief")
class ExperimentBriefSerializer(serializers.Serializer[object]):
    id = serializers.UUIDField()
    name = serializers.CharField()


@extend_schema_serializer(component_name="RunTransition")
class RunTransitionSerializer(serializers.Serializer[object]):
    status = serializers.ChoiceField(choices=RunStatus.choices)
    at = serializers.DateTimeField()


@extend_schema_serializer(component_name="Run")
class RunOutputSerializer(serializers.Serializer[object]):
    id = serializers.UUIDField()
    experiment = ExperimentBriefSerializer()
    kind = serializers.ChoiceField(choices=ExperimentKind.choices, source="experiment.kind")
    status = serializers.ChoiceField(choices=RunStatus.choices)
    error = serializers.CharField()
    spec = serializers.DictField()
    cell = serializers.DictField(help_text="The axis values this run of the matrix uses.")
    cell_label = serializers.CharField()
    repeat = serializers.IntegerField()
    position = serializers.IntegerField()
    retry_of = serializers.UUIDField(source="retry_of_id", allow_null=True)
    transitions = RunTransitionSerializer(
        many=True, help_text="Every status change with its time, oldest first."
    )
    queued_at = serializers.DateTimeField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    devices = RunDeviceOutputSerializer(source="run_devices", many=True)
    summary = RunSummaryRowSerializer(many=True)
    bench_summary = BenchSummaryRowSerializer(many=True)


def _ms(value: float | None) -> float | None:
    return None if value is None else value / NS_PER_MS


def _us(value: float | None) -> float | None:
    return None if value is None else value / NS_PER_US


def run_output(run: Run) -> dict[str, object]:
    """The run page's answer: the run, its devices and its summaries (also what a shared
    run shows, sharing.apis)."""
    summary = [
        {
            "device_id": s.run_device.device_id if s.run_device else None,
            "device_name": s.run_device.device.name if s.run_device else ALL_DEVICES_LABEL,
            "n": s.n,
            "lost": s.lost,
            "mean_ms": _ms(s.mean_ns),
            "median_ms": _ms(s.median_ns),
            "p95_ms": _ms(s.p95_ns),
            "p99_ms": _ms(s.p99_ns),
            "min_ms": _ms(s.min_ns),
            "max_ms": _ms(s.max_ns),
            "std_ms": _ms(s.std_ns),
            "secure_mean_us": _us(s.secure_mean_ns),
            "unsecure_mean_us": _us(s.unsecure_mean_ns),
            "floor_secure_mean_us": _us(s.floor_secure_mean_ns),
            "floor_unsecure_mean_us": _us(s.floor_unsecure_mean_ns),
            "net_secure_mean_us": _us(s.net_secure_mean_ns),
            "net_unsecure_mean_us": _us(s.net_unsecure_mean_ns),
            "secure_median_us": _us(s.secure_median_ns),
            "unsecure_median_us": _us(s.unsecure_median_ns),
            "net_secure_median_us": _us(s.net_secure_median_ns),
            "net_unsecure_median_us": _us(s.net_unsecure_median_ns),
        }
        for s in run_statistics(run=run)
    ]
    statistics = list(bench_statistics(run=run))
    baselines = BenchBaselines.of(statistics)
    bench_summary = [
        {
            "device_id": b.run_device.device_id,
            "device_name": b.run_device.device.name,
            "mechanism": b.mechanism,
            "operation": b.operation,
            "data_bytes": b.data_bytes,
            "n": b.n,
            "mean_us": b.wall_mean_ns / NS_PER_US,
            "var_us2": None if b.wall_var_ns2 is None else b.wall_var_ns2 / NS_PER_US**2,
            "std_us": _us(b.wall_std_ns),
            "cpu_mean_us": b.cpu_mean_ns / NS_PER_US,
            # MB/s = bytes / µs
            "throughput_mb_s": b.data_bytes / (b.wall_mean_ns / NS_PER_US)
            if b.wall_mean_ns
            else 0.0,
            "peak_rss_kb": b.peak_rss_kb,
            "calls_per_repetition": b.calls,
            "packets_per_s_mean": b.rate_mean,
            "packets_per_s_std": b.rate_std,
            "net_mean_us": baselines.net_mean_us(b),
            "relative_cost": baselines.relative_cost(b),
        }
        for b in statistics
    ]
    run.summary = summary  # type: ignore[attr-defined]
    run.bench_summary = bench_summary  # type: ignore[attr-defined]
    return RunOutputSerializer(run).data


class RunDetailApi(APIView):
    @extend_schema(operation_id="runs_retrieve", responses=RunOutputSerializer)
    def get(self, request: Request, run_id: UUID) -> Response:
        run = run_get(workspace=workspace_for_user(user=request.user), run_id=run_id)
        return Response(run_output(run))


class RunCancelApi(APIView):
    """Cancel a queued or active run; its agents stop and upload what they measured."""

    @extend_schema(operation_id="runs_cancel", request=None, responses=RunOutputSerializer)
    def post(self, request: Request, run_id: UUID) -> Response:
        workspace = workspace_for_user(user=request.user)
        run = run_get(workspace=workspace, run_id=run_id)
        run_cancel(run=run, by=request.user.get_username())
        return Response(run_output(run_get(workspace=workspace, run_id=run_id)))


class RunRetryApi(APIView):
    """Queue a failed or cancelled run again (same spec and devices); answers the new run."""

    @extend_schema(operation_id="runs_retry", request=None, responses={201: RunOutputSerializer})
    def post(self, request: Request, run_id: UUID) -> Response:
        workspace = workspace_for_user(user=request.user)
        retry = run_retry(run=run_get(workspace=workspace, run_id=run_id))
        body = run_output(run_get(workspace=workspace, run_id=retry.pk))
        return Response(body, status=status.HTTP_201_CREATED)
