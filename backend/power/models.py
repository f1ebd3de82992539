"""Power-meter traces: the raw upload, its parse, and its samples in blocks."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

from accounts.models import Workspace
from devices.models import Device
from experiments.models import Run


class TraceStatus(models.TextChoices):
    UPLOADED = "uploaded"  # raw file stored, format detected, waiting for the user's spec
    PARSING = "parsing"
    PARSED = "parsed"
    FAILED = "failed"  # not parseable as uploaded or with the last spec; the raw file stays


class TraceKind(models.TextChoices):
    RUN = "run"  # measured during a run (and on one of its devices when device is set)
    DEVICE = "device"  # a device's trace not tied to a run
    BASELINE = "baseline"  # a named reference, e.g. "idle"


class PowerTrace(models.Model):
    """One uploaded power-meter file and, once parsed, what it holds.

    The raw file is never changed. Samples live in PowerSampleBlock rows, never one row per
    sample (a 200 MB file holds ~10 million).
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=16, choices=TraceKind.choices)
    device = models.ForeignKey(
        Device, on_delete=models.SET_NULL, null=True, blank=True, related_name="power_traces"
    )
    run = models.ForeignKey(
        Run, on_delete=models.SET_NULL, null=True, blank=True, related_name="power_traces"
    )
    baseline_name = models.CharField(max_length=100, blank=True, default="")

    raw = models.FileField(upload_to="power-traces/%Y/%m/", max_length=300)
    original_filename = models.CharField(max_length=255)
    size_bytes = models.BigIntegerField()
    sha256 = models.CharField(max_length=64)

    status = models.CharField(
        max_length=16, choices=TraceStatus.choices, default=TraceStatus.UPLOADED
    )
    # Fraction of the raw file read by the running parse (0-1).
    progress = models.FloatField(default=0.0)
    # The parse attempt a worker may finish: a newer request replaces it, so a stale task
    # cannot overwrite a newer result.
    parse_token = models.UUIDField(null=True, blank=True)
    # {"message", "line", "column"} of the last failure, else NULL.
    error = models.JSONField(null=True, blank=True)
    detection = models.JSONField(null=True, blank=True)
    spec = models.JSONField(null=True, blank=True)
    notes = models.JSONField(default=list, blank=True)

    sample_count = models.BigIntegerField(default=0)
    duration_s = models.FloatField(null=True, blank=True)
    # Wall-clock time of the first sample, when the meter wrote absolute timestamps.
    absolute_start = models.DateTimeField(null=True, blank=True)
    has_voltage = models.BooleanField(default=False)
    has_current = models.BooleanField(default=False)
    # Supply voltage stated for a current-only log (used for power and mAh <-> J).
    supply_voltage_v = models.FloatField(null=True, blank=True)
    # Trace time (s) at which the attached run's first message was sent, set by the user;
    # NULL: aligned by absolute timestamps when there are some.
    offset_s = models.FloatField(null=True, blank=True)

    created_at = models.DateTimeField(auto_now_add=True)
    parsed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=TraceStatus.values), name="power_trace_status_known"
            ),
            models.CheckConstraint(
                condition=~Q(kind=TraceKind.BASELINE) | ~Q(baseline_name=""),
                name="power_baseline_has_name",
            ),
        ]
        indexes = [models.Index(fields=["workspace", "-created_at"])]


class PowerSampleBlock(models.Model):
    """A run of consecutive samples of one trace, as little-endian arrays.

    `t` is float64 seconds from the trace's first sample; `power`, `voltage` and `current`
    are float32 (W, V, A). `envelope` summarises every ENVELOPE_STRIDE samples as float64
    rows (t_mean, min_w, max_w, sum_w, count) so plots of long windows never read the
    samples (power.plot.trace_plot).
    """

    pk = models.CompositePrimaryKey("trace_id", "index")
    trace = models.ForeignKey(PowerTrace, on_delete=models.CASCADE, related_name="blocks")
    index = models.IntegerField()
    t_start = models.FloatField()
    t_end = models.FloatField()
    n = models.IntegerField()
    t = models.BinaryField()
    power = models.BinaryField()
    voltage = models.BinaryField(null=True)
    current = models.BinaryField(null=True)
    envelope = models.BinaryField()


class BatteryReading(models.Model):
    """The charge a device's battery gauge reports as consumed during a run.

    Energy = charge_mah x 3.6 x voltage_v (J): the MQTT vs CoAP paper's J = mAh x 3.6 x
    3.82. A second measurement beside the traces' integral, from the device itself. One
    per run and device; `device` NULL is the run as a whole (one device, or not said).
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="battery_readings")
    device = models.ForeignKey(
        Device, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    charge_mah = models.FloatField()
    voltage_v = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["run", "device"],
                nulls_distinct=False,
                name="power_battery_one_per_run_device",
            ),
            models.CheckConstraint(
                condition=Q(charge_mah__gt=0) & Q(voltage_v__gt=0),
                name="power_battery_positive",
            ),
        ]
