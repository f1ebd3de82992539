from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.utils import timezone
from iotsecbench_contract.resources import PEAK_RSS_SCOPES, RunResources

from accounts.models import Workspace
from devices.models import Device
from experiments.catalogue import MECHANISM_CHOICES

PAYLOAD_SIZE_MAX = 65536  # bytes; larger payloads are not IoT messaging any more
MESSAGE_COUNT_MAX = 100_000  # per device and run; keeps one run's upload within minutes
INTERVAL_MS_MAX = 3_600_000
# A cipher benchmark's and a throughput run's limits (data sizes, repetitions, window) are
# the agent's: iotsecbench_contract.limits.


class Protocol(models.TextChoices):
    MQTT = "mqtt", "MQTT"
    # SRUP v5 data messages over MQTT, signed end to end (device-agent/docs/srup.md).
    SRUP = "srup", "SRUP (signed MQTT)"
    # CoAP over UDP to the agent's own CoAP echo server (device-agent/docs/coap.md).
    COAP = "coap", "CoAP"
    # MQTT-SN 1.2 over UDP through a transparent gateway to the broker (docs/mqttsn.md).
    MQTTSN = "mqttsn", "MQTT-SN"


# Protocols that talk to the MQTT broker over TCP (TLS and network profiles apply).
BROKER_PROTOCOLS = (Protocol.MQTT, Protocol.SRUP)
TOPIC_MAX_CHARS = 200
TARGET_MAX_CHARS = 300
MQTTSN_TOPIC_ID_MAX = 65534  # 0x0000 and 0xFFFF are reserved (MQTT-SN 1.2)


class CoapType(models.TextChoices):
    CON = "con", "Confirmable (CON)"
    NON = "non", "Non-confirmable (NON)"


class CoapMethod(models.TextChoices):
    GET = "get", "GET"
    PUT = "put", "PUT"
    POST = "post", "POST"


class TopicIdType(models.TextChoices):
    NORMAL = "normal", "Normal (registered)"
    SHORT = "short", "Short (2 characters)"
    PREDEFINED = "predefined", "Predefined"


class SrupSignature(models.TextChoices):
    RSA_2048 = "rsa-2048", "RSA-2048 (PKCS#1 v1.5, SHA-256)"
    RSA_4096 = "rsa-4096", "RSA-4096 (PKCS#1 v1.5, SHA-256)"
    ED25519 = "ed25519", "Ed25519"


class MqttVersion(models.TextChoices):
    V311 = "3.1.1", "MQTT 3.1.1"
    V5 = "5", "MQTT 5"


class Transport(models.TextChoices):
    TCP = "tcp", "MQTT over TCP"
    TLS12 = "tls1.2", "MQTT over TLS 1.2"
    TLS13 = "tls1.3", "MQTT over TLS 1.3"


class IntervalDistribution(models.TextChoices):
    FIXED = "fixed", "Fixed"
    UNIFORM = "uniform", "Uniform random (0 to 2 x interval)"
    EXPONENTIAL = "exponential", "Exponential (Poisson arrivals)"


class ExperimentKind(models.TextChoices):
    MESSAGING = "messaging", "Messaging round trip"
    CIPHER_BENCH = "cipher_bench", "Cipher benchmark"
    THROUGHPUT = "throughput", "Throughput (secured packets per window)"


# The operations a sample kind's samples time (measurements.models.BenchSample).
class BenchOperation(models.TextChoices):
    ENCRYPT = "encrypt"
    DECRYPT = "decrypt"
    SIGN = "sign"
    VERIFY = "verify"
    SECURE = "secure"  # throughput, loopback: securing only
    SEND = "send"  # throughput, network: securing and sending over UDP


class Measurement(models.TextChoices):
    ROUND_TRIP = "round_trip", "Round trip"
    # The SRUP paper's method: the platform (controller) sends, each device receives; the
    # device's clock is corrected by its offset to the platform's (device-agent one-way.md).
    ONE_WAY = "one_way", "One way (controller to device)"
    # The MQTT/CoAP paper's quantity: publish → PUBACK (QoS 1) / PUBCOMP (QoS 2), MQTT-SN
    # PUBLISH → PUBACK, CoAP CON → ACK (device-agent runners/mqtt_ack.py, mqttsn,
    # coap_roundtrip.py). The label names all three, as rules.ACK_PROTOCOLS does.
    ACK = (
        "ack",
        "Acknowledgement (MQTT publish to PUBACK/PUBCOMP, MQTT-SN PUBLISH to PUBACK, "
        "CoAP CON to ACK)",
    )


class CryptoLibrary(models.TextChoices):
    """What implements a cipher bench's or throughput run's mechanisms
    (iotsecbench_contract.cryptolibs; throughput has no ``openssl-cli``)."""

    PYCRYPTODOME = "pycryptodome", "pycryptodome"
    OPENSSL = "openssl", "OpenSSL (cryptography binding)"
    OPENSSL_CLI = "openssl-cli", "OpenSSL command (openssl enc)"


# An experiment's matrix: how many runs one start may queue (cells x repeats).
MATRIX_RUNS_MAX = 1000
REPEATS_MAX = 100


class Experiment(models.Model):
    """A design: the parameters every run of it uses, and the devices it runs on."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="experiments")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    name = models.CharField(max_length=200)
    kind = models.CharField(
        max_length=16, choices=ExperimentKind.choices, default=ExperimentKind.MESSAGING
    )
    # --- messaging -----------------------------------------------------------------------
    protocol = models.CharField(max_length=16, choices=Protocol.choices, default=Protocol.MQTT)
    mqtt_version = models.CharField(
        max_length=8, choices=MqttVersion.choices, default=MqttVersion.V311
    )
    transport = models.CharField(max_length=8, choices=Transport.choices, default=Transport.TCP)
    # The signature of every SRUP message (protocol srup only).
    srup_signature = models.CharField(
        max_length=8, choices=SrupSignature.choices, default=SrupSignature.RSA_2048
    )
    # MQTT QoS 0-2; MQTT-SN also -1 (publish without a connection).
    qos = models.SmallIntegerField(default=1)
    coap_type = models.CharField(max_length=4, choices=CoapType.choices, default=CoapType.CON)
    coap_method = models.CharField(max_length=4, choices=CoapMethod.choices, default=CoapMethod.GET)
    topic_id_type = models.CharField(
        max_length=12, choices=TopicIdType.choices, default=TopicIdType.NORMAL
    )
    security = models.CharField(max_length=40, choices=MECHANISM_CHOICES, default="none")
    # An interleaved run's mechanisms (iotsecbench_contract.interleave): message seq is
    # secured with interleave_mechanisms[seq % k] on one connection; empty: `security` alone.
    interleave_mechanisms = ArrayField(
        models.CharField(max_length=40, choices=MECHANISM_CHOICES), default=list, blank=True
    )
    # --- addressing and targets (docs/experiment-design.md "Topics and targets") ----------
    # Blank/None: the platform's defaults (its broker, the per-run data topic, the agent's
    # own CoAP echo server and MQTT-SN gateway, a predefined id drawn from run and device).
    topic = models.CharField(max_length=TOPIC_MAX_CHARS, blank=True, default="")
    mqttsn_topic_id = models.PositiveIntegerField(null=True, blank=True)
    broker_url = models.CharField(max_length=TARGET_MAX_CHARS, blank=True, default="")
    coap_url = models.CharField(max_length=TARGET_MAX_CHARS, blank=True, default="")
    # Blank: coap_url's own path, else the echo resource "echo" (experiments.addressing).
    coap_path = models.CharField(max_length=TARGET_MAX_CHARS, blank=True, default="")
    # Another device of the workspace serving the run: MQTT-SN gateway or CoAP server
    # (experiments.services.targets); target_host replaces the address it reports.
    target_device = models.ForeignKey(
        "devices.Device", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    target_host = models.CharField(max_length=TARGET_MAX_CHARS, blank=True, default="")
    mqttsn_gateway = models.CharField(max_length=TARGET_MAX_CHARS, blank=True, default="")
    # The network conditions its runs are measured under (netprofiles; docs/network-profiles.md):
    # the agent enforces the profile on the device's link or fails the run. Messaging only.
    network_profile = models.ForeignKey(
        "netprofiles.NetworkProfile",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    payload_size = models.PositiveIntegerField(default=66)
    message_count = models.PositiveIntegerField(default=100)
    interval_ms = models.PositiveIntegerField(default=0)
    interval_distribution = models.CharField(
        max_length=16, choices=IntervalDistribution.choices, default=IntervalDistribution.FIXED
    )
    measurement = models.CharField(
        max_length=16, choices=Measurement.choices, default=Measurement.ROUND_TRIP
    )
    # --- cipher benchmark and throughput ------------------------------------------------
    mechanisms = ArrayField(
        models.CharField(max_length=40, choices=MECHANISM_CHOICES), default=list, blank=True
    )
    # Data sizes (cipher benchmark) or payload sizes (throughput), bytes.
    data_sizes = ArrayField(models.BigIntegerField(), default=list, blank=True)
    repetitions = models.PositiveIntegerField(default=100)
    window_ms = models.PositiveIntegerField(default=2000)
    # Throughput only: the UDP receiver the send windows' packets go to (udp://host:port,
    # the job spec's ``target``); blank: a sink on the device itself (127.0.0.1).
    target_url = models.CharField(max_length=TARGET_MAX_CHARS, blank=True, default="")
    crypto_library = models.CharField(
        max_length=16, choices=CryptoLibrary.choices, default=CryptoLibrary.PYCRYPTODOME
    )
    devices = models.ManyToManyField(Device, related_name="experiments")
    # --- the matrix (experiments/matrix.py; docs/experiment-design.md) -------------------
    # The fields above are the fixed parameters; each axis gives a parameter (or several
    # together) a list of values: [{"name": str, "values": [{parameter: value, ...}, ...]}].
    # A run is made for every combination of one value per axis, less the combinations
    # that match an exclusion ({parameter: value, ...}), each `repeats` times.
    axes = models.JSONField(default=list, blank=True)
    exclusions = models.JSONField(default=list, blank=True)
    repeats = models.PositiveIntegerField(default=1)
    # The seed of the run order (matrix.run_order: cells shuffled within each repeat block).
    # Given by the user to reproduce an order; null: a fresh seed at every start, recorded
    # on the runs it ordered (Run.order_seed).
    order_seed = models.PositiveIntegerField(null=True, blank=True)
    description = models.TextField(blank=True, default="")
    # True: ``description`` was generated from the design (experiments.describe.describe_design)
    # and is regenerated with it; False: the user typed it, and it is kept verbatim.
    description_generated = models.BooleanField(default=False)
    # The preset (fixtures/presets/<slug>.yaml) the design started from, if any.
    preset = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(qos__gte=-1, qos__lte=2), name="experiment_qos_range"
            ),
            models.CheckConstraint(
                condition=models.Q(payload_size__gte=1, payload_size__lte=PAYLOAD_SIZE_MAX),
                name="experiment_payload_size_range",
            ),
            models.CheckConstraint(
                condition=models.Q(message_count__gte=1, message_count__lte=MESSAGE_COUNT_MAX),
                name="experiment_message_count_range",
            ),
            models.CheckConstraint(
                condition=models.Q(interval_ms__lte=INTERVAL_MS_MAX),
                name="experiment_interval_ms_range",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class RunStatus(models.TextChoices):
    """queued -> preparing -> running -> ingesting -> done | partial | failed, or cancelled.
    Every change is timestamped in RunTransition (a database trigger writes it).

    A device's part ends `done` (every planned message measured and stored), `partial` (n of
    N measured, and why) or `failed` (nothing measured, and why); the run's final state
    derives from its parts (experiments.services.agent_events.run_settle): done when every
    part is done, failed when every part failed, partial otherwise. Records that arrive later
    (an agent that restarts and uploads its log) are still stored, and the states follow
    them."""

    QUEUED = "queued", "Queued"
    PREPARING = "preparing", "Preparing"
    RUNNING = "running", "Running"
    INGESTING = "ingesting", "Ingesting"
    DONE = "done", "Done"
    PARTIAL = "partial", "Partial"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


FINISHED_STATUSES = (RunStatus.DONE, RunStatus.PARTIAL, RunStatus.FAILED, RunStatus.CANCELLED)
# Finished runs whose records can be analysed: complete, or partial (and saying so).
MEASURED_STATUSES = (RunStatus.DONE, RunStatus.PARTIAL)
# A run in one of these holds its devices: no other run may use them meanwhile.
ACTIVE_STATUSES = (RunStatus.PREPARING, RunStatus.RUNNING, RunStatus.INGESTING)


class Run(models.Model):
    """One execution of an experiment. `spec` is the frozen copy of the parameters it ran with,
    so editing the experiment later never changes what a finished run means."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    experiment = models.ForeignKey(Experiment, on_delete=models.CASCADE, related_name="runs")
    status = models.CharField(max_length=16, choices=RunStatus.choices, default=RunStatus.QUEUED)
    error = models.TextField(blank=True, default="")
    spec = models.JSONField(default=dict)
    # Its place in the experiment's matrix: the axis values it runs with ({parameter:
    # value}), a label for them, which repeat of that cell it is, and its order in the queue.
    cell = models.JSONField(default=dict, blank=True)
    cell_label = models.CharField(max_length=500, blank=True, default="")
    repeat = models.PositiveIntegerField(default=1)
    position = models.PositiveIntegerField(default=0)
    # The seed that shuffled the start that queued it (matrix.run_order): with the matrix
    # and the repeats it reproduces the order; null for runs queued before orders were shuffled.
    order_seed = models.PositiveIntegerField(null=True, blank=True)
    # Runs start in (queued_at, position) order; a retry is queued anew.
    queued_at = models.DateTimeField(default=timezone.now)
    # Secrets the run's controller needs and the API never shows (one-way runs: the
    # payload key, the SRUP controller's private key); jobs carry what a device needs.
    controller = models.JSONField(default=dict, blank=True)
    # The run's target device serving it (experiments.services.targets): device_id, role,
    # the serve job's job_id, status (starting, serving, failed, released), address.
    target = models.JSONField(default=dict, blank=True)
    controller_started_at = models.DateTimeField(null=True, blank=True)
    # A retry's original run.
    retry_of = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="retries"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The records (or samples) its stored summary was computed from: records that arrive
    # after the run ended (an agent uploading after a restart) make run_settle recompute it.
    summarized_records = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "queued_at", "position"])]

    @property
    def label(self) -> str:
        """What tells it from the other runs of its experiment: its cell's parameters and,
        when the experiment repeats, its repeat ("aes-128-cbc · 1 KiB · repeat 2"); a run of
        a one-cell, unrepeated design by when it was created (a later start's runs)."""
        parts = [self.cell_label] if self.cell_label else []
        if self.repeat > 1 or self.experiment.repeats > 1:
            parts.append(f"repeat {self.repeat}")
        if not parts:
            created = self.created_at or timezone.now()
            parts.append(f"run of {created:%Y-%m-%d %H:%M}")
        return " · ".join(parts)


class RunTransition(models.Model):
    """One status change of a run, with its time. Written by a PostgreSQL trigger on
    experiments_run (migration 0009), so no code path can change a status unrecorded."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="transitions")
    status = models.CharField(max_length=16, choices=RunStatus.choices)
    at = models.DateTimeField()

    class Meta:
        ordering = ["at", "id"]


class RunDevice(models.Model):
    """One device's part in a run: its job, live progress and upload state."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="run_devices")
    device = models.ForeignKey(Device, on_delete=models.PROTECT, related_name="run_devices")
    job_id = models.UUIDField(default=uuid.uuid4, unique=True)
    job_seq = models.BigIntegerField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=RunStatus.choices, default=RunStatus.QUEUED)
    error = models.TextField(blank=True, default="")
    sent = models.PositiveIntegerField(default=0)
    received = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    # Declared by the agent on its final upload chunk; ingestion completes when this many
    # records are stored.
    record_total = models.PositiveIntegerField(null=True, blank=True)
    records_ingested = models.PositiveIntegerField(default=0)
    # The part ended before its upload completed: its agent reported why (`error`), it went
    # silent, or its records were refused. Its state then follows what is stored
    # (experiments.services.agent_events.run_device_settle).
    ended = models.BooleanField(default=False)
    last_heartbeat_at = models.DateTimeField(null=True, blank=True)
    # The device's facts at dispatch time (hardware, OS, library versions): reproducibility.
    facts = models.JSONField(default=dict, blank=True)
    # The agent's proof that the run's network profile was enforced (its network_enforced
    # event: backend, verification figures, forwarder and relay counters); NULL without one.
    network = models.JSONField(null=True, blank=True)
    # One-way runs: when the device's receiver subscribed (receiver_ready event), and its
    # clock offset to the platform before and after the run (clock_offset event).
    ready_at = models.DateTimeField(null=True, blank=True)
    clock = models.JSONField(null=True, blank=True)
    # What a messaging run cost the agent over its measured window, from its final upload
    # chunk (X-Run-Resources, iotsecbench_contract.resources): all NULL when not recorded
    # (benchmark kinds, agents before them, a part that uploaded nothing).
    resources_window_ns = models.PositiveBigIntegerField(null=True, blank=True)
    cpu_user_ns = models.PositiveBigIntegerField(null=True, blank=True)
    cpu_system_ns = models.PositiveBigIntegerField(null=True, blank=True)
    peak_rss_kb = models.PositiveBigIntegerField(null=True, blank=True)
    peak_rss_scope = models.CharField(
        max_length=8, null=True, blank=True, choices=[(s, s) for s in PEAK_RSS_SCOPES]
    )
    bytes_sent = models.PositiveBigIntegerField(null=True, blank=True)
    bytes_received = models.PositiveBigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["device__name"]
        constraints = [
            models.UniqueConstraint(fields=["run", "device"], name="uniq_run_device"),
            # The figures come together from one header: all of them or none.
            models.CheckConstraint(
                condition=(
                    models.Q(
                        resources_window_ns__isnull=True,
                        cpu_user_ns__isnull=True,
                        cpu_system_ns__isnull=True,
                        peak_rss_kb__isnull=True,
                        peak_rss_scope__isnull=True,
                        bytes_sent__isnull=True,
                        bytes_received__isnull=True,
                    )
                    | models.Q(
                        resources_window_ns__isnull=False,
                        cpu_user_ns__isnull=False,
                        cpu_system_ns__isnull=False,
                        peak_rss_kb__isnull=False,
                        peak_rss_scope__isnull=False,
                        bytes_sent__isnull=False,
                        bytes_received__isnull=False,
                    )
                ),
                name="run_device_resources_all_or_none",
            ),
        ]

    @property
    def resources(self) -> RunResources | None:
        """The run's resources on this device; None when not recorded."""
        if self.resources_window_ns is None:
            return None
        return RunResources(
            window_ns=self.resources_window_ns,
            cpu_user_ns=self.cpu_user_ns or 0,
            cpu_system_ns=self.cpu_system_ns or 0,
            peak_rss_kb=self.peak_rss_kb or 0,
            peak_rss_scope=self.peak_rss_scope or "",
            bytes_sent=self.bytes_sent or 0,
            bytes_received=self.bytes_received or 0,
        )

    @staticmethod
    def resource_fields(resources: RunResources) -> dict[str, object]:
        """The model's fields for ``resources`` (for an update)."""
        return {
            "resources_window_ns": resources.window_ns,
            "cpu_user_ns": resources.cpu_user_ns,
            "cpu_system_ns": resources.cpu_system_ns,
            "peak_rss_kb": resources.peak_rss_kb,
            "peak_rss_scope": resources.peak_rss_scope,
            "bytes_sent": resources.bytes_sent,
            "bytes_received": resources.bytes_received,
        }
