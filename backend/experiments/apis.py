from __future__ import annotations

from uuid import UUID

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import workspace_for_user
from devices.models import Device
from experiments.models import (
    INTERVAL_MS_MAX,
    MESSAGE_COUNT_MAX,
    PAYLOAD_SIZE_MAX,
    Experiment,
    Measurement,
    Protocol,
    Run,
    RunStatus,
    Security,
)
from experiments.selectors import experiment_get, experiment_list, run_get
from experiments.services import experiment_create, run_start
from measurements.selectors import NS_PER_MS, run_rtt_ms, run_statistics

ALL_DEVICES_LABEL = "All devices"


@extend_schema_serializer(component_name="RunBrief")
class RunBriefSerializer(serializers.Serializer[object]):
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=RunStatus.choices)
    created_at = serializers.DateTimeField()


@extend_schema_serializer(component_name="Experiment")
class ExperimentOutputSerializer(serializers.ModelSerializer[Experiment]):
    device_ids = serializers.PrimaryKeyRelatedField[Device](
        source="devices", many=True, read_only=True
    )
    runs = RunBriefSerializer(many=True, read_only=True)

    class Meta:
        model = Experiment
        fields = [
            "id",
            "name",
            "protocol",
            "qos",
            "security",
            "payload_size",
            "message_count",
            "interval_ms",
            "measurement",
            "device_ids",
            "created_at",
            "runs",
        ]
        read_only_fields = fields


@extend_schema_serializer(component_name="ExperimentInput")
class ExperimentInputSerializer(serializers.Serializer[object]):
    name = serializers.CharField(max_length=200)
    protocol = serializers.ChoiceField(choices=Protocol.choices, default=Protocol.MQTT)
    qos = serializers.IntegerField(min_value=0, max_value=2, default=1)
    security = serializers.ChoiceField(choices=Security.choices, default=Security.NONE)
    payload_size = serializers.IntegerField(min_value=1, max_value=PAYLOAD_SIZE_MAX, default=66)
    message_count = serializers.IntegerField(min_value=1, max_value=MESSAGE_COUNT_MAX, default=100)
    interval_ms = serializers.IntegerField(min_value=0, max_value=INTERVAL_MS_MAX, default=0)
    measurement = serializers.ChoiceField(
        choices=Measurement.choices, default=Measurement.ROUND_TRIP
    )
    device_ids = serializers.ListField(child=serializers.UUIDField(), min_length=1)


class ExperimentsApi(APIView):
    """List the workspace's experiments (GET) or create one (POST)."""

    @extend_schema(operation_id="experiments_list", responses=ExperimentOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        experiments = experiment_list(workspace=workspace_for_user(user=request.user))
        return Response(ExperimentOutputSerializer(experiments, many=True).data)

    @extend_schema(
        operation_id="experiments_create",
        request=ExperimentInputSerializer,
        responses={201: ExperimentOutputSerializer},
    )
    def post(self, request: Request) -> Response:
        serializer = ExperimentInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        experiment = experiment_create(
            workspace=workspace_for_user(user=request.user),
            user=request.user,
            **serializer.validated_data,
        )
        data = ExperimentOutputSerializer(experiment).data
        return Response(data, status=status.HTTP_201_CREATED)


class ExperimentDetailApi(APIView):
    @extend_schema(operation_id="experiments_retrieve", responses=ExperimentOutputSerializer)
    def get(self, request: Request, experiment_id: UUID) -> Response:
        workspace = workspace_for_user(user=request.user)
        experiment = experiment_get(workspace=workspace, experiment_id=experiment_id)
        return Response(ExperimentOutputSerializer(experiment).data)


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


@extend_schema_serializer(component_name="ExperimentBrief")
class ExperimentBriefSerializer(serializers.Serializer[object]):
    id = serializers.UUIDField()
    name = serializers.CharField()


@extend_schema_serializer(component_name="Run")
class RunOutputSerializer(serializers.Serializer[object]):
    id = serializers.UUIDField()
    experiment = ExperimentBriefSerializer()
    status = serializers.ChoiceField(choices=RunStatus.choices)
    error = serializers.CharField()
    spec = serializers.DictField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    devices = RunDeviceOutputSerializer(source="run_devices", many=True)
    summary = RunSummaryRowSerializer(many=True)


def _ms(value: float | None) -> float | None:
    return None if value is None else value / NS_PER_MS


def _run_payload(run: Run) -> dict[str, object]:
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
        }
        for s in run_statistics(run=run)
    ]
    run.summary = summary  # type: ignore[attr-defined]
    return RunOutputSerializer(run).data


class ExperimentRunStartApi(APIView):
    @extend_schema(
        operation_id="experiments_run_start", request=None, responses={201: RunOutputSerializer}
    )
    def post(self, request: Request, experiment_id: UUID) -> Response:
        workspace = workspace_for_user(user=request.user)
        experiment = experiment_get(workspace=workspace, experiment_id=experiment_id)
        run = run_start(experiment=experiment)
        run = run_get(workspace=workspace, run_id=run.pk)
        return Response(_run_payload(run), status=status.HTTP_201_CREATED)


class RunDetailApi(APIView):
    @extend_schema(operation_id="runs_retrieve", responses=RunOutputSerializer)
    def get(self, request: Request, run_id: UUID) -> Response:
        run = run_get(workspace=workspace_for_user(user=request.user), run_id=run_id)
        return Response(_run_payload(run))


@extend_schema_serializer(component_name="DeviceRtt")
class DeviceRttSerializer(serializers.Serializer[object]):
    device_id = serializers.UUIDField()
    name = serializers.CharField()
    rtt_ms = serializers.ListField(child=serializers.FloatField())


class RunRttApi(APIView):
    @extend_schema_serializer(component_name="RunRtt")
    class OutputSerializer(serializers.Serializer[object]):
        devices = DeviceRttSerializer(many=True)

    @extend_schema(operation_id="runs_rtt", responses=OutputSerializer)
    def get(self, request: Request, run_id: UUID) -> Response:
        run = run_get(workspace=workspace_for_user(user=request.user), run_id=run_id)
        rtts = run_rtt_ms(run=run) if run.status == RunStatus.COMPLETED else {}
        devices = [
            {"device_id": rd.device_id, "name": rd.device.name, "rtt_ms": rtts.get(rd.pk, [])}
            for rd in run.run_devices.all()
        ]
        return Response({"devices": DeviceRttSerializer(devices, many=True).data})
