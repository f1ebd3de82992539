"""A run's page: its devices and summaries as the API answers them (the views that read
them are in results.apis.runs, above measurements; the run start answers a new run here)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from iotsecbench_contract.resources import PEAK_RSS_SCOPES
from rest_framework import serializers

from devices.models import Device
from experiments.models import BenchOperation, ExperimentKind, Run, RunStatus
from experiments.selectors import RunPage
from experiments.services.targets import FAILED, RELEASED, SERVING, STARTING

RUN_LABEL_HELP = (
    "What tells the run from the other runs of its experiment: its cell's parameters and, "
    "when the experiment repeats, its repeat."
)


RESOURCES_HELP = (
    "What the run cost the agent on this device over its measured window (after connecting, "
    "before disconnecting): the agent process's CPU time (every thread), its peak resident "
    "memory, and the bytes its client socket(s) sent and received, acknowledgements, "
    "protocol headers and TLS records included (docs/control-plane.md §6). Null: not "
    "recorded (benchmark runs, agents before it, a device that uploaded nothing)."
)


@extend_schema_serializer(component_name="RunDeviceResources")
class RunDeviceResourcesSerializer(serializers.Serializer[object]):
    window_ns = serializers.IntegerField(help_text="The measured window's length.")
    cpu_user_ns = serializers.IntegerField()
    cpu_system_ns = serializers.IntegerField()
    peak_rss_kb = serializers.IntegerField()
    peak_rss_scope = serializers.ChoiceField(
        choices=list(PEAK_RSS_SCOPES),
        help_text="run: the peak within the window; process: the agent's peak since it "
        "started (where the mark cannot be reset).",
    )
    bytes_sent = serializers.IntegerField()
    bytes_received = serializers.IntegerField()


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
    resources = RunDeviceResourcesSerializer(allow_null=True, help_text=RESOURCES_HELP)


@extend_schema_serializer(component_name="RunSummaryRow")
class RunSummaryRowSerializer(serializers.Serializer[object]):
    device_id = serializers.UUIDField(allow_null=True)
    device_name = serializers.CharField()
    mechanism = serializers.CharField(
        allow_null=True,
        help_text="An interleaved run's mechanism (its rows are per mechanism); null in any "
        "other run.",
    )
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


@extend_schema_serializer(component_name="RunBlocker")
class RunBlockerSerializer(serializers.Serializer[object]):
    device = serializers.CharField(
        allow_null=True, help_text="The busy device; null: the run's own experiment is busy."
    )
    run_id = serializers.UUIDField()
    run_position = serializers.IntegerField(help_text="1-based, in its experiment's queue.")
    experiment_id = serializers.UUIDField()
    experiment_name = serializers.CharField()


@extend_schema_serializer(component_name="RunWaitingFor")
class RunWaitingForSerializer(serializers.Serializer[object]):
    reason = serializers.ChoiceField(choices=["experiment", "devices", "worker"])
    message = serializers.CharField()
    blockers = RunBlockerSerializer(many=True)


@extend_schema_serializer(component_name="RunTarget")
class RunTargetSerializer(serializers.Serializer[object]):
    device_id = serializers.UUIDField(allow_null=True, help_text="null on a shared link.")
    name = serializers.CharField(help_text="The target device's name; empty if it was deleted.")
    # A CharField: a ChoiceField would take the RoleEnum name of the workspace roles.
    role = serializers.CharField(
        help_text="gateway: the MQTT-SN gateway (protocol mqttsn); server: the CoAP server."
    )
    address = serializers.CharField(
        allow_null=True,
        help_text="host:port the target serves at (as it reported, or the design's "
        "target_host); null until it serves, and on a shared link.",
    )
    status = serializers.ChoiceField(
        choices=[STARTING, SERVING, FAILED, RELEASED],
        help_text="starting: its serve job is out; serving; failed: it could not serve or went "
        "offline (the run failed); released: the run ended and it was told to stop.",
    )


def run_target(run: Run) -> dict[str, object] | None:
    """The run's target device as the API answers it (experiments.services.targets); None
    for a run without one, or whose target was not sent its serve job yet."""
    target = run.target
    if not target.get("device_id"):
        return None
    name = Device.objects.filter(pk=target["device_id"]).values_list("name", flat=True).first()
    return {
        "device_id": target["device_id"],
        "name": name or "",
        "role": target.get("role"),
        "address": target.get("address"),
        "status": target.get("status"),
    }


# Reads a RunPage (experiments.selectors): the run's fields, then its summary rows.
@extend_schema_serializer(component_name="Run")
class RunOutputSerializer(serializers.Serializer[RunPage]):
    id = serializers.UUIDField(source="run.id")
    experiment = ExperimentBriefSerializer(source="run.experiment")
    kind = serializers.ChoiceField(choices=ExperimentKind.choices, source="run.experiment.kind")
    status = serializers.ChoiceField(choices=RunStatus.choices, source="run.status")
    error = serializers.CharField(source="run.error")
    spec = serializers.DictField(source="run.spec")
    cell = serializers.DictField(
        source="run.cell", help_text="The axis values this run of the matrix uses."
    )
    cell_label = serializers.CharField(source="run.cell_label")
    label = serializers.CharField(  # type: ignore[assignment]  # a declared field, not Field.label
        source="run.label", help_text=RUN_LABEL_HELP
    )
    repeat = serializers.IntegerField(source="run.repeat")
    position = serializers.IntegerField(source="run.position")
    order_seed = serializers.IntegerField(
        source="run.order_seed",
        allow_null=True,
        help_text="The seed that shuffled its start's runs within each repeat block.",
    )
    retry_of = serializers.UUIDField(source="run.retry_of_id", allow_null=True)
    transitions = RunTransitionSerializer(
        source="run.transitions",
        many=True,
        help_text="Every status change with its time, oldest first.",
    )
    queued_at = serializers.DateTimeField(source="run.queued_at")
    created_at = serializers.DateTimeField(source="run.created_at")
    started_at = serializers.DateTimeField(source="run.started_at", allow_null=True)
    finished_at = serializers.DateTimeField(source="run.finished_at", allow_null=True)
    devices = RunDeviceOutputSerializer(source="run.run_devices", many=True)
    summary = RunSummaryRowSerializer(many=True)
    bench_summary = BenchSummaryRowSerializer(many=True)
    waiting_for = RunWaitingForSerializer(
        allow_null=True,
        help_text="Why a queued run has not started; null when it is not queued.",
    )
    target = serializers.SerializerMethodField(
        help_text="The device serving the run as its MQTT-SN gateway or CoAP server "
        '(docs/experiment-design.md "Topics and targets"); null for a run without a target '
        "device (or before its serve job is sent)."
    )

    @extend_schema_field(RunTargetSerializer(allow_null=True))
    def get_target(self, page: RunPage) -> dict[str, object] | None:
        return run_target(page.run)


def run_output(page: RunPage) -> dict[str, object]:
    """The run page's answer (also the run start's, and what a shared run shows)."""
    return RunOutputSerializer(page).data
