from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from uuid import UUID

from django.http import HttpResponse
from django.utils.text import slugify
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from iotsecbench_agent.runners.mqttsn_roundtrip import MAX_PUBLISH_DATA
from iotsecbench_agent.security import registry as agent_registry
from iotsecbench_agent.throughput.plan import MAX_UDP_PAYLOAD
from rest_framework import serializers, status
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Workspace
from accounts.selectors import workspace_for_user
from devices.models import Device
from experiments import design_file
from experiments.catalogue import (
    MECHANISM_CHOICES,
    MECHANISM_KINDS,
    MECHANISMS,
    largest_payload,
)
from experiments.describe import describe_plain
from experiments.estimate import duration_words
from experiments.matrix import KIND_AXIS_PARAMETERS, MatrixError
from experiments.matrix import build as build_matrix
from experiments.matrix import label as matrix_label
from experiments.models import (
    BENCH_DATA_BYTES_MAX,
    BENCH_MECHANISMS_MAX,
    BENCH_REPETITIONS_MAX,
    BENCH_SIZES_MAX,
    BROKER_PROTOCOLS,
    INTERVAL_MS_MAX,
    MATRIX_RUNS_MAX,
    MESSAGE_COUNT_MAX,
    PAYLOAD_SIZE_MAX,
    REPEATS_MAX,
    SAMPLE_KINDS,
    WINDOW_MS_MAX,
    WINDOW_MS_MIN,
    CoapMethod,
    CoapType,
    Experiment,
    ExperimentKind,
    IntervalDistribution,
    Measurement,
    MqttVersion,
    Protocol,
    Run,
    RunStatus,
    SrupSignature,
    TopicIdType,
    Transport,
)
from experiments.presets import preset_design, presets
from experiments.selectors import (
    NEVER_RUN,
    ExperimentFilters,
    experiment_get,
    experiment_search,
    run_get,
)
from experiments.services import (
    design_plan,
    experiment_create,
    run_cancel,
    run_retry,
    run_start,
)
from measurements.models import BenchOperation
from measurements.selectors import (
    NS_PER_MS,
    NS_PER_US,
    BenchBaselines,
    bench_statistics,
    run_statistics,
)
from netprofiles.models import NetworkProfile
from netprofiles.selectors import profile_visible

ALL_DEVICES_LABEL = "All devices"
BENCH_NEEDS_MECHANISMS = "A cipher benchmark needs at least one mechanism."
BENCH_NEEDS_SIZES = "A cipher benchmark needs at least one data size (bytes)."
BENCH_DUPLICATES = "List each value once."
BENCH_NO_NONE = "A cipher benchmark times cryptography: leave out None (Null is the floor)."
SRUP_SIGNS_ITSELF = (
    "SRUP signs every message itself: choose the signature under SRUP and leave payload "
    "security at None."
)
NETWORK_PROFILE_UNKNOWN = (
    "No network profile with this id among the built-in ones and your workspace's: pick one "
    "from the Network page."
)
NETWORK_PROFILE_MESSAGING = (
    "A network profile shapes the messages of a messaging experiment; a cipher benchmark or "
    "throughput run has none: leave it empty."
)
ONE_WAY_PROTOCOLS = (
    "One-way delay is measured for MQTT and SRUP (the platform sends through the broker); "
    "measure CoAP and MQTT-SN as round trips."
)
# Sequence number and the controller's send time travel in the payload.
ONE_WAY_PAYLOAD_MIN = 16
ONE_WAY_PAYLOAD_TOO_SMALL = (
    f"One-way messages carry their sequence number and send time: at least "
    f"{ONE_WAY_PAYLOAD_MIN} bytes."
)
QOS_MINUS_ONE_MQTTSN = "QoS -1 (publish without a connection) exists in MQTT-SN only."
MQTTSN_QOS = "MQTT-SN runs use QoS -1, 0 or 1."
MQTTSN_QOS_MINUS_ONE_TOPIC = (
    "QoS -1 publishes without connecting or registering a topic: choose short or predefined "
    "topic ids."
)
TLS_NEEDS_BROKER_PROTOCOL = (
    "TLS applies to the MQTT broker connection of MQTT and SRUP runs; CoAP and MQTT-SN run "
    "over UDP: choose MQTT over TCP."
)
PROFILE_NEEDS_BROKER_PROTOCOL = (
    "Network profiles are enforced on the broker link of MQTT and SRUP runs; CoAP and MQTT-SN "
    "runs cannot be measured under one yet: leave it empty."
)
# The largest Data of an MQTT-SN PUBLISH in one UDP datagram (the agent's limit: 65,507
# octets less the 9-octet header with the 3-octet length).
MQTTSN_DATA_MAX = MAX_PUBLISH_DATA
MQTTSN_PAYLOAD_TOO_LARGE = (
    "An MQTT-SN message travels in one UDP datagram, whose PUBLISH carries at most "
    "{limit:,} bytes: with {mechanism} use at most {fits:,} bytes of payload."
)
DESIGN_FILE_NOT_TEXT = "The file is not UTF-8 text; export a design as YAML and upload that."
THROUGHPUT_PAYLOAD_TOO_LARGE = (
    "Throughput packets go in one UDP datagram of at most {limit:,} bytes: {mechanism} "
    "turns {size:,} bytes into {frame:,}; use at most {fits:,} bytes with it."
)


@extend_schema_serializer(component_name="RunBrief")
class RunBriefSerializer(serializers.Serializer[object]):
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=RunStatus.choices)
    cell_label = serializers.CharField()
    repeat = serializers.IntegerField()
    position = serializers.IntegerField()
    error = serializers.CharField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


@extend_schema_serializer(component_name="Experiment")
class ExperimentOutputSerializer(serializers.ModelSerializer[Experiment]):
    device_ids = serializers.PrimaryKeyRelatedField[Device](
        source="devices", many=True, read_only=True
    )
    runs = RunBriefSerializer(many=True, read_only=True)
    network_profile_name = serializers.CharField(
        source="network_profile.name", allow_null=True, read_only=True, default=None
    )

    class Meta:
        model = Experiment
        fields = [
            "id",
            "name",
            "kind",
            "protocol",
            "mqtt_version",
            "transport",
            "srup_signature",
            "qos",
            "coap_type",
            "coap_method",
            "topic_id_type",
            "security",
            "payload_size",
            "message_count",
            "interval_ms",
            "interval_distribution",
            "measurement",
            "mechanisms",
            "data_sizes",
            "repetitions",
            "window_ms",
            "device_ids",
            "network_profile",
            "network_profile_name",
            "axes",
            "exclusions",
            "repeats",
            "description",
            "preset",
            "created_at",
            "runs",
        ]
        read_only_fields = fields


@extend_schema_serializer(component_name="ExperimentInput")
class ExperimentInputSerializer(serializers.Serializer[object]):
    name = serializers.CharField(max_length=200)
    kind = serializers.ChoiceField(choices=ExperimentKind.choices, default=ExperimentKind.MESSAGING)
    protocol = serializers.ChoiceField(choices=Protocol.choices, default=Protocol.MQTT)
    mqtt_version = serializers.ChoiceField(choices=MqttVersion.choices, default=MqttVersion.V311)
    transport = serializers.ChoiceField(choices=Transport.choices, default=Transport.TCP)
    srup_signature = serializers.ChoiceField(
        choices=SrupSignature.choices, default=SrupSignature.RSA_2048
    )
    qos = serializers.IntegerField(
        min_value=-1,
        max_value=2,
        default=1,
        help_text="MQTT QoS 0, 1 or 2; MQTT-SN also -1. Not used by CoAP.",
    )
    coap_type = serializers.ChoiceField(choices=CoapType.choices, default=CoapType.CON)
    coap_method = serializers.ChoiceField(choices=CoapMethod.choices, default=CoapMethod.GET)
    topic_id_type = serializers.ChoiceField(choices=TopicIdType.choices, default=TopicIdType.NORMAL)
    security = serializers.ChoiceField(choices=MECHANISM_CHOICES, default="none")
    payload_size = serializers.IntegerField(min_value=1, max_value=PAYLOAD_SIZE_MAX, default=66)
    message_count = serializers.IntegerField(min_value=1, max_value=MESSAGE_COUNT_MAX, default=100)
    interval_ms = serializers.IntegerField(min_value=0, max_value=INTERVAL_MS_MAX, default=0)
    interval_distribution = serializers.ChoiceField(
        choices=IntervalDistribution.choices, default=IntervalDistribution.FIXED
    )
    measurement = serializers.ChoiceField(
        choices=Measurement.choices, default=Measurement.ROUND_TRIP
    )
    mechanisms = serializers.ListField(
        child=serializers.ChoiceField(choices=MECHANISM_CHOICES),
        default=list,
        max_length=BENCH_MECHANISMS_MAX,
    )
    data_sizes = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=BENCH_DATA_BYTES_MAX),
        default=list,
        max_length=BENCH_SIZES_MAX,
    )
    repetitions = serializers.IntegerField(
        min_value=1, max_value=BENCH_REPETITIONS_MAX, default=100
    )
    window_ms = serializers.IntegerField(
        min_value=WINDOW_MS_MIN, max_value=WINDOW_MS_MAX, default=2000
    )
    device_ids = serializers.ListField(child=serializers.UUIDField(), min_length=1)
    network_profile = serializers.UUIDField(
        required=False,
        allow_null=True,
        help_text="A network profile (built-in or the workspace's) every run is measured "
        "under; messaging experiments only. Default: none, the link as it is.",
    )

    axes = serializers.ListField(
        child=serializers.DictField(),
        default=list,
        help_text="Parameters with several values: {parameter, values: [...]} or {name, "
        "values: [{parameter: value, ...}]} for parameters that change together. One run per "
        "combination (docs/experiment-design.md).",
    )
    exclusions = serializers.ListField(
        child=serializers.DictField(),
        default=list,
        help_text="Combinations not to run: objects of axis values ({parameter: value}).",
    )
    repeats = serializers.IntegerField(
        min_value=1,
        max_value=REPEATS_MAX,
        default=1,
        help_text="How many times every combination runs (runs of the same combination are "
        "repeats; results pool them).",
    )
    description = serializers.CharField(allow_blank=True, default="", max_length=5000)
    preset = serializers.CharField(allow_blank=True, default="", max_length=64)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        try:
            matrix = build_matrix(attrs["axes"], attrs["exclusions"], self._check_axis_value)
        except MatrixError as exc:
            raise serializers.ValidationError(exc.errors) from None
        errors: dict[str, list[str]] = {}
        irrelevant = sorted(
            {p for axis in matrix.axes for p in axis["values"][0]}
            - KIND_AXIS_PARAMETERS[attrs["kind"]]
        )
        if irrelevant:
            errors["axes"] = [
                f"{', '.join(irrelevant)} cannot vary in a {attrs['kind']} experiment; "
                f"allowed: {', '.join(sorted(KIND_AXIS_PARAMETERS[attrs['kind']]))}."
            ]
            raise serializers.ValidationError(errors)
        invalid: list[str] = []
        for cell in matrix.cells:
            cell_errors = design_errors({**attrs, **cell})
            if not matrix.axes:
                errors = cell_errors
            elif cell_errors:
                words = "; ".join(f"{k}: {' '.join(v)}" for k, v in cell_errors.items())
                invalid.append(f"Run “{matrix_label(cell, describe_plain)}”: {words}")
        if invalid:
            errors["axes"] = [
                *invalid[:10],
                *([f"…and {len(invalid) - 10} more."] if len(invalid) > 10 else []),
                "Change the axis values or add these combinations to the exclusions.",
            ]
        runs = len(matrix.cells) * attrs["repeats"]
        if runs > MATRIX_RUNS_MAX:
            errors["repeats"] = [
                f"The design expands to {runs} runs; at most {MATRIX_RUNS_MAX}: fewer values, "
                "more exclusions or fewer repeats."
            ]
        if errors:
            raise serializers.ValidationError(errors)
        attrs["axes"] = matrix.axes
        attrs["exclusions"] = matrix.exclusions
        attrs["matrix"] = matrix
        return attrs

    def _check_axis_value(self, parameter: str, value: Any) -> Any:
        try:
            checked = self.fields[parameter].run_validation(value)
        except serializers.ValidationError as exc:
            raise ValueError(" ".join(_messages(exc.detail))) from None
        return _jsonable(checked)


def _messages(detail: Any) -> list[str]:
    if isinstance(detail, dict):
        return [m for v in detail.values() for m in _messages(v)]
    if isinstance(detail, list):
        return [m for v in detail for m in _messages(v)]
    return [str(detail)]


def _jsonable(value: Any) -> Any:
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value


def _protocol_errors(attrs: Mapping[str, Any]) -> dict[str, list[str]]:
    """What a messaging protocol allows of QoS, transport, security and profiles."""
    protocol = attrs["protocol"]
    if protocol == Protocol.SRUP and attrs["security"] != "none":
        return {"security": [SRUP_SIGNS_ITSELF]}
    if attrs["qos"] == -1 and protocol != Protocol.MQTTSN:
        return {"qos": [QOS_MINUS_ONE_MQTTSN]}
    if protocol == Protocol.MQTTSN and attrs["qos"] == 2:
        return {"qos": [MQTTSN_QOS]}
    if protocol == Protocol.MQTTSN and attrs["qos"] == -1 and attrs["topic_id_type"] == "normal":
        return {"topic_id_type": [MQTTSN_QOS_MINUS_ONE_TOPIC]}
    if attrs["measurement"] == Measurement.ONE_WAY:
        if protocol not in BROKER_PROTOCOLS:
            return {"measurement": [ONE_WAY_PROTOCOLS]}
        if attrs["payload_size"] < ONE_WAY_PAYLOAD_MIN:
            return {"payload_size": [ONE_WAY_PAYLOAD_TOO_SMALL]}
    if protocol not in BROKER_PROTOCOLS and attrs["transport"] != Transport.TCP:
        return {"transport": [TLS_NEEDS_BROKER_PROTOCOL]}
    if protocol not in BROKER_PROTOCOLS and attrs.get("network_profile") is not None:
        return {"network_profile": [PROFILE_NEEDS_BROKER_PROTOCOL]}
    if protocol == Protocol.MQTTSN:
        fits = largest_payload(attrs["security"], MQTTSN_DATA_MAX)
        if attrs["payload_size"] > fits:
            message = MQTTSN_PAYLOAD_TOO_LARGE.format(
                limit=MQTTSN_DATA_MAX, mechanism=attrs["security"], fits=fits
            )
            return {"payload_size": [message]}
    return {}


def _datagram_errors(mechanisms: list[str], sizes: list[int]) -> dict[str, list[str]]:
    """A throughput packet (payload secured by each mechanism) must fit one UDP datagram;
    the first pair that does not, named with the size that would fit."""
    for mechanism in mechanisms:
        fits = largest_payload(mechanism, MAX_UDP_PAYLOAD)
        for size in sizes:
            if size > fits:
                frame = size + agent_registry.describe(mechanism).overhead(size)
                message = THROUGHPUT_PAYLOAD_TOO_LARGE.format(
                    limit=MAX_UDP_PAYLOAD, mechanism=mechanism, size=size, frame=frame, fits=fits
                )
                return {"data_sizes": [message]}
    return {}


def design_errors(attrs: Mapping[str, Any]) -> dict[str, list[str]]:
    """The rules one run's parameters must follow beyond each field's own range; the
    field errors for the first broken rules ({} when the design is valid)."""
    if attrs["kind"] not in SAMPLE_KINDS and (protocol_errors := _protocol_errors(attrs)):
        return protocol_errors
    if attrs.get("network_profile") is not None and attrs["kind"] in SAMPLE_KINDS:
        return {"network_profile": [NETWORK_PROFILE_MESSAGING]}
    errors: dict[str, list[str]] = {}
    if attrs["kind"] in SAMPLE_KINDS:
        if attrs["kind"] == ExperimentKind.CIPHER_BENCH and "none" in attrs["mechanisms"]:
            errors["mechanisms"] = [BENCH_NO_NONE]
        if attrs["kind"] == ExperimentKind.THROUGHPUT:
            errors |= _datagram_errors(attrs["mechanisms"], attrs["data_sizes"])
        if not attrs["mechanisms"]:
            errors["mechanisms"] = [BENCH_NEEDS_MECHANISMS]
        if not attrs["data_sizes"]:
            errors["data_sizes"] = [BENCH_NEEDS_SIZES]
        for field in ("mechanisms", "data_sizes"):
            if len(set(attrs[field])) != len(attrs[field]):
                errors.setdefault(field, []).append(BENCH_DUPLICATES)
    return errors


class ExperimentFiltersSerializer(serializers.Serializer[object]):
    q = serializers.CharField(
        required=False, allow_blank=True, help_text="Words in the name or description."
    )
    protocol = serializers.ChoiceField(choices=Protocol.choices, required=False)
    mechanism = serializers.ChoiceField(
        choices=MECHANISM_CHOICES,
        required=False,
        help_text="Payload security, or a mechanism of a cipher benchmark or throughput test.",
    )
    device = serializers.UUIDField(required=False)
    status = serializers.ChoiceField(
        choices=[*RunStatus.choices, (NEVER_RUN, "Never run")],
        required=False,
        help_text="The status of the experiment's latest run; `never`: no run yet.",
    )
    created_after = serializers.DateField(required=False)
    created_before = serializers.DateField(required=False)


class ExperimentsApi(APIView):
    """List the workspace's experiments (GET) or create one (POST)."""

    @extend_schema(
        operation_id="experiments_list",
        parameters=[ExperimentFiltersSerializer],
        responses=ExperimentOutputSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        params = ExperimentFiltersSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        experiments = experiment_search(
            workspace=workspace_for_user(user=request.user),
            filters=ExperimentFilters(**params.validated_data),
        )
        return Response(ExperimentOutputSerializer(experiments, many=True).data)

    @extend_schema(
        operation_id="experiments_create",
        request=ExperimentInputSerializer,
        responses={201: ExperimentOutputSerializer},
    )
    def post(self, request: Request) -> Response:
        serializer = ExperimentInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        workspace = workspace_for_user(user=request.user)
        data = dict(serializer.validated_data)
        profile = _visible_profiles(workspace, data)
        data.pop("matrix")
        experiment = experiment_create(
            workspace=workspace, user=request.user, network_profile=profile, **data
        )
        data = ExperimentOutputSerializer(experiment).data
        return Response(data, status=status.HTTP_201_CREATED)


@extend_schema_serializer(component_name="DesignPlanInput")
class DesignPlanInputSerializer(ExperimentInputSerializer):
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
    estimated_seconds = serializers.FloatField()
    estimated = serializers.CharField(help_text="The estimate in words, e.g. '2.5 h'.")
    warnings = serializers.ListField(child=serializers.CharField())
    runs = PlannedRunSerializer(many=True, help_text="The first 200 runs, in queue order.")


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
            "estimated_seconds": plan.estimated_seconds,
            "estimated": duration_words(plan.estimated_seconds),
            "warnings": plan.warnings,
            "runs": plan.runs,
        }
        return Response(DesignPlanSerializer(body).data)


def _visible_profiles(workspace: Workspace, data: dict[str, Any]) -> NetworkProfile | None:
    """The design's fixed network profile (popped from ``data``); every profile it names,
    fixed or on an axis, must be a built-in or the workspace's (field error otherwise)."""
    profile_id = data.pop("network_profile", None)
    profile = None
    if profile_id is not None:
        profile = profile_visible(workspace=workspace, profile_id=profile_id)
        if profile is None:
            raise serializers.ValidationError({"network_profile": [NETWORK_PROFILE_UNKNOWN]})
    for axis in data.get("axes", ()):
        for value in axis["values"]:
            axis_profile = value.get("network_profile")
            if axis_profile is not None and (
                profile_visible(workspace=workspace, profile_id=axis_profile) is None
            ):
                raise serializers.ValidationError(
                    {"axes": [f"network_profile {axis_profile}: {NETWORK_PROFILE_UNKNOWN}"]}
                )
    return profile


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


class ExperimentRunStartApi(APIView):
    @extend_schema(
        operation_id="experiments_run_start", request=None, responses={201: RunOutputSerializer}
    )
    def post(self, request: Request, experiment_id: UUID) -> Response:
        workspace = workspace_for_user(user=request.user)
        experiment = experiment_get(workspace=workspace, experiment_id=experiment_id)
        run = run_start(experiment=experiment)
        run = run_get(workspace=workspace, run_id=run.pk)
        return Response(run_output(run), status=status.HTTP_201_CREATED)


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


@extend_schema_serializer(component_name="MechanismInfo")
class MechanismInfoSerializer(serializers.Serializer[object]):
    name = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label
    family = serializers.CharField()
    kind = serializers.ChoiceField(choices=MECHANISM_KINDS)
    key_bits = serializers.IntegerField(allow_null=True)


@extend_schema_serializer(component_name="Choice")
class ChoiceSerializer(serializers.Serializer[object]):
    name = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label


@extend_schema_serializer(component_name="Catalogue")
class CatalogueSerializer(serializers.Serializer[object]):
    mechanisms = MechanismInfoSerializer(many=True)
    experiment_kinds = ChoiceSerializer(many=True)


class CatalogueApi(APIView):
    """What experiments can ask for: security mechanisms and experiment kinds. Public, as a
    shared page (sharing.apis) needs the mechanisms' labels and nothing in it is private."""

    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    @extend_schema(operation_id="catalogue", responses=CatalogueSerializer, auth=[])
    def get(self, request: Request) -> Response:
        kinds = [{"name": value, "label": label} for value, label in ExperimentKind.choices]
        data = {"mechanisms": MECHANISMS, "experiment_kinds": kinds}
        return Response(CatalogueSerializer(data).data)


@extend_schema_serializer(component_name="Preset")
class PresetSerializer(serializers.Serializer[object]):
    slug = serializers.CharField()
    title = serializers.CharField()
    paper = serializers.CharField(help_text="The paper the design reproduces.")
    source_url = serializers.CharField(allow_blank=True)
    tables = serializers.CharField(help_text="The tables and sections the design comes from.")
    devices = serializers.IntegerField(help_text="How many devices the paper used.")
    notes = serializers.ListField(child=serializers.CharField())
    design = serializers.DictField(
        help_text="The experiment input (as POST /api/experiments/ takes it) without "
        "device_ids: pick the devices, then create."
    )


class PresetsApi(APIView):
    """The four papers' designs, each with the paper, its tables and what differs here."""

    @extend_schema(operation_id="presets_list", responses=PresetSerializer(many=True))
    def get(self, request: Request) -> Response:
        workspace = workspace_for_user(user=request.user)
        body = [{**vars(p), "design": preset_design(p, workspace=workspace)} for p in presets()]
        return Response(PresetSerializer(body, many=True).data)


class ExperimentDesignFileApi(APIView):
    """The experiment's design as a YAML file (docs/experiment-design.md)."""

    @extend_schema(
        operation_id="experiments_design_file",
        responses={(200, "application/yaml"): OpenApiTypes.STR},
    )
    def get(self, request: Request, experiment_id: UUID) -> HttpResponse:
        workspace = workspace_for_user(user=request.user)
        experiment = experiment_get(workspace=workspace, experiment_id=experiment_id)
        text = design_file.dump(design_file.from_experiment(experiment))
        response = HttpResponse(text, content_type="application/yaml; charset=utf-8")
        filename = slugify(experiment.name)[:80] or "experiment"
        response["Content-Disposition"] = f'attachment; filename="{filename}.yaml"'
        return response


@extend_schema_serializer(component_name="DesignFileUpload")
class DesignFileUploadSerializer(serializers.Serializer[object]):
    file = serializers.FileField(help_text="A design file (YAML), as exported.")


class ExperimentImportApi(APIView):
    """Create an experiment from a design file: checked against the published schema, then
    by the same rules as the form. Errors name the line or the path of the bad value."""

    parser_classes = [MultiPartParser]

    @extend_schema(
        operation_id="experiments_import",
        request={"multipart/form-data": DesignFileUploadSerializer},
        responses={201: ExperimentOutputSerializer},
    )
    def post(self, request: Request) -> Response:
        upload = DesignFileUploadSerializer(data=request.data)
        upload.is_valid(raise_exception=True)
        raw = upload.validated_data["file"].read(design_file.MAX_FILE_BYTES + 1)
        workspace = workspace_for_user(user=request.user)
        try:
            text = raw.decode("utf-8")
            data = design_file.to_input(design_file.load(text), workspace=workspace)
        except UnicodeDecodeError:
            raise serializers.ValidationError({"file": [DESIGN_FILE_NOT_TEXT]}) from None
        except design_file.DesignFileError as exc:
            raise serializers.ValidationError({"file": exc.messages}) from None
        serializer = ExperimentInputSerializer(data=data)
        serializer.is_valid(raise_exception=True)
        validated = dict(serializer.validated_data)
        profile = _visible_profiles(workspace, validated)
        validated.pop("matrix")
        experiment = experiment_create(
            workspace=workspace, user=request.user, network_profile=profile, **validated
        )
        return Response(ExperimentOutputSerializer(experiment).data, status=status.HTTP_201_CREATED)


class DesignSchemaApi(APIView):
    """The JSON Schema of design files (public: nothing in it is private)."""

    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    @extend_schema(operation_id="experiments_design_schema", responses=OpenApiTypes.OBJECT, auth=[])
    def get(self, request: Request) -> Response:
        return Response(design_file.schema())
