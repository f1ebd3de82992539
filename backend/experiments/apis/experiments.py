"""Experiments: list (with filters), create, plan, show, and start their runs."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from drf_spectacular.utils import extend_schema, extend_schema_field, extend_schema_serializer
from iotsecbench_contract.interleave import MAX_MECHANISMS as MAX_INTERLEAVED
from iotsecbench_contract.interleave import MIN_MECHANISMS as MIN_INTERLEAVED
from iotsecbench_contract.limits import (
    MAX_BENCH_DATA_BYTES,
    MAX_BENCH_REPETITIONS,
    MAX_DATA_SIZES,
    MAX_MECHANISMS,
    MAX_THROUGHPUT_REPETITIONS,
    MAX_WINDOW_MS,
    MIN_WINDOW_MS,
)
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Workspace
from accounts.selectors import workspace_for_user
from devices.models import Device
from experiments.apis.runs import RUN_LABEL_HELP, RunOutputSerializer, run_output
from experiments.apis.strict import StrictSerializer, bounded_int
from experiments.catalogue import MECHANISM_CHOICES
from experiments.matrix import (
    ADDRESS_PARAMETERS,
    MESSAGING_PARAMETERS,
    ORDER_SEED_MAX,
    MatrixError,
)
from experiments.matrix import build as build_matrix
from experiments.models import (
    INTERVAL_MS_MAX,
    MESSAGE_COUNT_MAX,
    MQTTSN_TOPIC_ID_MAX,
    PAYLOAD_SIZE_MAX,
    REPEATS_MAX,
    TARGET_MAX_CHARS,
    TOPIC_MAX_CHARS,
    CoapMethod,
    CoapType,
    CryptoLibrary,
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
from experiments.selectors import (
    NEVER_RUN,
    ExperimentFilters,
    RunPage,
    experiment_get,
    experiment_search,
    run_get,
    run_waiting_for,
)
from experiments.services.designs import experiment_create
from experiments.services.scheduling import run_start
from experiments.validation import design_check
from netprofiles.models import NetworkProfile
from netprofiles.selectors import profile_visible

NETWORK_PROFILE_UNKNOWN = (
    "No network profile with this id among the built-in ones and your workspace's: pick one "
    "from the Network page."
)


@extend_schema_serializer(component_name="RunBrief")
class RunBriefSerializer(serializers.Serializer[object]):
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=RunStatus.choices)
    cell_label = serializers.CharField()
    label = serializers.CharField(  # type: ignore[assignment]  # a declared field, not Field.label
        help_text=RUN_LABEL_HELP
    )
    repeat = serializers.IntegerField()
    position = serializers.IntegerField()
    order_seed = serializers.IntegerField(
        allow_null=True,
        help_text="The seed that ordered this run's start (the design's, or the one drawn "
        "when it had none): `position` is its place in that order.",
    )
    error = serializers.CharField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    waiting_for = serializers.SerializerMethodField(
        help_text="Why a queued run has not started, in words (e.g. which device is busy "
        "with which run); null unless queued. The run page has the details."
    )

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_waiting_for(self, run: Run) -> str | None:
        # Only queued runs pay for the look-up (a few queries each); a list holds few of them.
        if run.status != RunStatus.QUEUED:
            return None
        waiting = run_waiting_for(run=run)
        return None if waiting is None else str(waiting["message"])


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
            *MESSAGING_PARAMETERS,
            *ADDRESS_PARAMETERS,
            "interleave_mechanisms",
            "mechanisms",
            "data_sizes",
            "repetitions",
            "window_ms",
            "target_url",
            "crypto_library",
            "device_ids",
            "network_profile",
            "network_profile_name",
            "axes",
            "exclusions",
            "repeats",
            "order_seed",
            "description",
            "description_generated",
            "preset",
            "created_at",
            "runs",
        ]
        read_only_fields = fields


@extend_schema_serializer(component_name="ExperimentInput")
class ExperimentInputSerializer(StrictSerializer):
    """An experiment's design. Strict: a field not listed here is a 400 naming it
    (``{"<field>": ["Unknown field. Known fields: ..."]}``), never ignored."""

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
    interleave_mechanisms = serializers.ListField(
        child=serializers.ChoiceField(choices=MECHANISM_CHOICES),
        default=list,
        max_length=MAX_INTERLEAVED,
        help_text=f"Interleaved mode (MQTT and CoAP round trips): {MIN_INTERLEAVED} to "
        f"{MAX_INTERLEAVED} mechanisms that one run alternates message by message on one "
        'connection, e.g. ["none", "null", "aes-128-cbc"]; its results split per '
        "mechanism. Leave security at none. Empty: not interleaved.",
    )
    topic = serializers.CharField(
        allow_blank=True,
        default="",
        max_length=TOPIC_MAX_CHARS,
        trim_whitespace=False,
        help_text="MQTT only. Empty: the platform's per-run data topic. On the platform's "
        "broker it must end in the level {device} (each device's id); a literal topic such "
        "as test/d1 needs broker_url (docs/experiment-design.md).",
    )
    mqttsn_topic_id = serializers.IntegerField(
        min_value=1,
        max_value=MQTTSN_TOPIC_ID_MAX,
        required=False,
        allow_null=True,
        default=None,
        help_text="MQTT-SN predefined topic id (topic_id_type predefined). Empty: drawn "
        "from the run and device.",
    )
    broker_url = serializers.CharField(
        allow_blank=True,
        default="",
        max_length=TARGET_MAX_CHARS,
        help_text="An external MQTT broker (mqtt://host[:port] or mqtts://…, no user or "
        "password) for MQTT and SRUP runs. Empty: the platform's broker.",
    )
    coap_url = serializers.CharField(
        allow_blank=True,
        default="",
        max_length=TARGET_MAX_CHARS,
        help_text="An external CoAP echo resource (coap://host[:port]/path). Empty: the "
        "agent's own echo server.",
    )
    coap_path = serializers.CharField(
        allow_blank=True,
        default="",
        max_length=TARGET_MAX_CHARS,
        trim_whitespace=False,
        help_text="The CoAP resource's path, without a leading / (e.g. echo or sensors/temp; "
        "one Uri-Path option per segment). Empty: coap_url's own path, else echo.",
    )
    mqttsn_gateway = serializers.CharField(
        allow_blank=True,
        default="",
        max_length=TARGET_MAX_CHARS,
        help_text='An external MQTT-SN gateway ("host:port"). Empty: the agent\'s own '
        "gateway to the platform's broker.",
    )
    target_device = serializers.UUIDField(
        required=False,
        allow_null=True,
        default=None,
        help_text="Another device of the workspace that serves the run: the MQTT-SN gateway "
        "(protocol mqttsn) or the CoAP echo server (protocol coap); not one of device_ids. "
        "It must be online when a run starts. Empty: no target device.",
    )
    target_host = serializers.CharField(
        allow_blank=True,
        default="",
        max_length=TARGET_MAX_CHARS,
        help_text="The host the clients reach the target device at, replacing the address "
        "it reports (its address on the route to the platform's broker). Empty: as reported.",
    )
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
        max_length=MAX_MECHANISMS,
    )
    data_sizes = serializers.ListField(
        child=bounded_int(1, MAX_BENCH_DATA_BYTES),
        default=list,
        max_length=MAX_DATA_SIZES,
        help_text=f"Bytes, 1 to {MAX_BENCH_DATA_BYTES} each (throughput: what fits one UDP "
        "datagram once secured).",
    )
    repetitions = bounded_int(
        1,
        max(MAX_BENCH_REPETITIONS, MAX_THROUGHPUT_REPETITIONS),
        default=100,
        help_text=f"Cipher benchmark: 1 to {MAX_BENCH_REPETITIONS}; throughput: 1 to "
        f"{MAX_THROUGHPUT_REPETITIONS}.",
    )
    window_ms = bounded_int(MIN_WINDOW_MS, MAX_WINDOW_MS, default=2000)
    target_url = serializers.CharField(
        allow_blank=True,
        default="",
        max_length=TARGET_MAX_CHARS,
        help_text="Throughput only: the UDP receiver the send windows' packets go to "
        "(udp://host:port; IPv6 as udp://[addr]:port), e.g. a gateway on another device. "
        "Empty: a sink on the device itself (127.0.0.1).",
    )
    crypto_library = serializers.ChoiceField(
        choices=CryptoLibrary.choices,
        default=CryptoLibrary.PYCRYPTODOME,
        help_text="Cipher benchmark and throughput: what implements the mechanisms. "
        "pycryptodome (default); openssl, OpenSSL in-process through the cryptography "
        "binding; openssl-cli (cipher benchmark only), the openssl enc command timed as a "
        "process. A mechanism the library does not provide is refused.",
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
    order_seed = serializers.IntegerField(
        min_value=0,
        max_value=ORDER_SEED_MAX,
        required=False,
        allow_null=True,
        default=None,
        help_text="The seed that shuffles the runs within each repeat block (every "
        "combination of repeat 1 runs before repeat 2). Give one to reproduce an order; "
        "default: a fresh seed at every start, recorded on the runs.",
    )
    description = serializers.CharField(allow_blank=True, default="", max_length=5000)
    description_generated = serializers.BooleanField(
        default=False,
        help_text="True: generate the description from this design (the text given, e.g. a "
        "preset's, is replaced). A blank description is generated too; any other text is "
        "kept verbatim.",
    )
    preset = serializers.CharField(allow_blank=True, default="", max_length=64)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        try:
            matrix = build_matrix(attrs["axes"], attrs["exclusions"], self._check_axis_value)
        except MatrixError as exc:
            raise serializers.ValidationError(exc.errors) from None
        design_check(attrs, matrix)
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


class ExperimentRunStartApi(APIView):
    @extend_schema(
        operation_id="experiments_run_start", request=None, responses={201: RunOutputSerializer}
    )
    def post(self, request: Request, experiment_id: UUID) -> Response:
        workspace = workspace_for_user(user=request.user)
        experiment = experiment_get(workspace=workspace, experiment_id=experiment_id)
        run = run_start(experiment=experiment)
        run = run_get(workspace=workspace, run_id=run.pk)
        # A new run: no summary rows yet.
        return Response(run_output(RunPage(run=run)), status=status.HTTP_201_CREATED)
