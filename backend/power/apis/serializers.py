"""Output shapes of the power-trace endpoints."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers

from power import energy
from power.models import BatteryReading, PowerTrace
from power.selectors import trace_alignment_warnings, trace_run_window

# --- serializers ---------------------------------------------------------------------------


@extend_schema_serializer(component_name="PowerTimeSpec")
class TimeSpecSerializer(serializers.Serializer[object]):
    column = serializers.IntegerField()
    unit = serializers.ChoiceField(choices=["s", "ms", "us", "ns", "datetime"])
    datetime_format = serializers.CharField(allow_null=True, required=False)
    timezone = serializers.CharField(default="UTC")


@extend_schema_serializer(component_name="PowerChannelSpec")
class ChannelSpecSerializer(serializers.Serializer[object]):
    column = serializers.IntegerField()
    unit = serializers.ChoiceField(choices=["V", "mV", "A", "mA", "uA", "nA", "W", "mW", "uW"])


@extend_schema_serializer(component_name="PowerParseSpec")
class ParseSpecSerializer(serializers.Serializer[object]):
    """The column mapping; its rules are checked by power.parsing.spec_from_json."""

    format = serializers.CharField()
    delimiter = serializers.CharField(trim_whitespace=False, default=",")
    decimal_comma = serializers.BooleanField(default=False)
    skip_lines = serializers.IntegerField(default=0)
    time = TimeSpecSerializer(allow_null=True, required=False)
    sample_rate_hz = serializers.FloatField(allow_null=True, required=False)
    voltage = ChannelSpecSerializer(allow_null=True, required=False)
    current = ChannelSpecSerializer(allow_null=True, required=False)
    power = ChannelSpecSerializer(allow_null=True, required=False)
    supply_voltage_v = serializers.FloatField(allow_null=True, required=False)


@extend_schema_serializer(component_name="PowerFormatChoice")
class FormatChoiceSerializer(serializers.Serializer[object]):
    format = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label


@extend_schema_serializer(component_name="PowerNeededValue")
class NeededValueSerializer(serializers.Serializer[object]):
    """A value the file cannot carry and the parse needs: the UI asks the user for it."""

    field = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label
    message = serializers.CharField()


@extend_schema_serializer(component_name="PowerWarning")
class WarningSerializer(serializers.Serializer[object]):
    code = serializers.ChoiceField(
        choices=["few_samples", "sample_period_exceeds_window", "alignment_far"]
    )
    message = serializers.CharField()


@extend_schema_serializer(component_name="PowerDetection")
class DetectionSerializer(serializers.Serializer[object]):
    format = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label
    confidence = serializers.ChoiceField(choices=["high", "medium", "low"])
    spec = ParseSpecSerializer()
    header = serializers.ListField(child=serializers.CharField(allow_blank=True))
    preview = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField(allow_blank=True))
    )
    notes = serializers.ListField(child=serializers.CharField())
    alternatives = FormatChoiceSerializer(many=True)
    # Detections stored before `needs` existed have none: read as an empty list.
    needs = NeededValueSerializer(many=True, default=list)


@extend_schema_serializer(component_name="PowerTraceError")
class TraceErrorSerializer(serializers.Serializer[object]):
    message = serializers.CharField()
    line = serializers.IntegerField(allow_null=True)
    column = serializers.IntegerField(allow_null=True)


@extend_schema_serializer(component_name="PowerWindow")
class WindowSerializer(serializers.Serializer[object]):
    start_s = serializers.FloatField()
    end_s = serializers.FloatField()


@extend_schema_serializer(component_name="PowerTrace")
class TraceOutputSerializer(serializers.ModelSerializer[PowerTrace]):
    detection = DetectionSerializer(allow_null=True)
    spec = ParseSpecSerializer(allow_null=True)
    error = TraceErrorSerializer(allow_null=True)
    notes = serializers.ListField(child=serializers.CharField())
    device_name = serializers.CharField(source="device.name", allow_null=True, default=None)
    alignment = serializers.SerializerMethodField()
    run_window = serializers.SerializerMethodField()
    warnings = serializers.SerializerMethodField()

    class Meta:
        model = PowerTrace
        fields = [
            "id",
            "name",
            "kind",
            "device",
            "device_name",
            "run",
            "baseline_name",
            "original_filename",
            "size_bytes",
            "sha256",
            "status",
            "progress",
            "detection",
            "spec",
            "error",
            "sample_count",
            "duration_s",
            "absolute_start",
            "has_voltage",
            "has_current",
            "supply_voltage_v",
            "offset_s",
            "alignment",
            "run_window",
            "warnings",
            "notes",
            "created_at",
            "parsed_at",
        ]
        read_only_fields = fields

    def _window(self, trace: PowerTrace) -> Any:
        if not self.context.get("detail"):
            return None  # lists leave the run window out: one query per trace is too many
        if not hasattr(self, "_windows"):
            self._windows: dict[Any, Any] = {}
        if trace.pk not in self._windows:
            self._windows[trace.pk] = trace_run_window(trace=trace)
        return self._windows[trace.pk]

    @extend_schema_field(
        serializers.ChoiceField(choices=["absolute", "manual", "none"], allow_null=True)
    )
    def get_alignment(self, trace: PowerTrace) -> str | None:
        window = self._window(trace)
        return None if window is None else str(window.alignment)

    @extend_schema_field(WindowSerializer(allow_null=True))
    def get_run_window(self, trace: PowerTrace) -> dict[str, float] | None:
        window = self._window(trace)
        return None if window is None else {"start_s": window.start_s, "end_s": window.end_s}

    @extend_schema_field(WarningSerializer(many=True))
    def get_warnings(self, trace: PowerTrace) -> list[Any]:
        """Alignment warnings (detail only; lists leave them out, as the run window)."""
        return list(trace_alignment_warnings(trace=trace, run_window=self._window(trace)))


def trace_detail(trace: PowerTrace) -> dict[str, Any]:
    return dict(TraceOutputSerializer(trace, context={"detail": True}).data)


@extend_schema_serializer(component_name="PowerPlot")
class PlotOutputSerializer(serializers.Serializer[object]):
    start_s = serializers.FloatField()
    end_s = serializers.FloatField()
    duration_s = serializers.FloatField()
    samples = serializers.IntegerField()
    exact = serializers.BooleanField()
    t = serializers.ListField(child=serializers.FloatField())
    min_w = serializers.ListField(child=serializers.FloatField())
    max_w = serializers.ListField(child=serializers.FloatField())
    mean_w = serializers.ListField(child=serializers.FloatField())
    run_window = WindowSerializer(allow_null=True)


@extend_schema_serializer(component_name="PowerFiguresWindow")
class FiguresWindowSerializer(serializers.Serializer[object]):
    start_s = serializers.FloatField()
    end_s = serializers.FloatField()
    duration_s = serializers.FloatField()
    samples = serializers.IntegerField()


@extend_schema_serializer(component_name="PowerBaseline")
class BaselineSerializer(serializers.Serializer[object]):
    source = serializers.ChoiceField(choices=["trace", "constant", "none"])  # type: ignore[assignment]  # a declared field
    power_w = serializers.FloatField()


@extend_schema_serializer(component_name="PowerReference")
class ReferenceSerializer(serializers.Serializer[object]):
    trace = serializers.UUIDField()
    name = serializers.CharField()
    mean_w = serializers.FloatField()
    overhead_w = serializers.FloatField()
    overhead_pct = serializers.FloatField()


@extend_schema_serializer(component_name="PowerBatteryFigures")
class BatteryFiguresSerializer(serializers.Serializer[object]):
    """Energy from the run's battery-gauge reading: mAh x 3.6 x V."""

    source = serializers.ChoiceField(choices=["battery gauge"])  # type: ignore[assignment]  # a declared field
    reading = serializers.UUIDField()
    charge_mah = serializers.FloatField()
    voltage_v = serializers.FloatField()
    energy_j = serializers.FloatField()
    duration_s = serializers.FloatField()
    mean_w = serializers.FloatField(allow_null=True)
    energy_per_message_j = serializers.FloatField(allow_null=True)
    net_energy_per_message_j = serializers.FloatField(allow_null=True)


@extend_schema_serializer(component_name="PowerFigures")
class FiguresOutputSerializer(serializers.Serializer[object]):
    window = FiguresWindowSerializer()
    # Energy / duration; sample_mean_w is the plain average of the samples.
    mean_w = serializers.FloatField()
    sample_mean_w = serializers.FloatField()
    median_w = serializers.FloatField()
    min_w = serializers.FloatField()
    max_w = serializers.FloatField()
    energy_j = serializers.FloatField()
    baseline = BaselineSerializer()
    net_mean_w = serializers.FloatField()
    net_energy_j = serializers.FloatField()
    messages = serializers.IntegerField()
    energy_per_message_j = serializers.FloatField(allow_null=True)
    net_energy_per_message_j = serializers.FloatField(allow_null=True)
    charge_mah = serializers.FloatField(allow_null=True)
    supply_voltage_v = serializers.FloatField(allow_null=True)
    reference = ReferenceSerializer(allow_null=True)
    battery = BatteryFiguresSerializer(allow_null=True)
    warnings = WarningSerializer(many=True)


@extend_schema_serializer(component_name="PowerProjectionSeries")
class ProjectionSeriesSerializer(serializers.Serializer[object]):
    trace = serializers.UUIDField()
    name = serializers.CharField()
    source = serializers.ChoiceField(choices=["trace", "battery gauge"])  # type: ignore[assignment]  # a declared field
    mean_w = serializers.FloatField()
    idle_w = serializers.FloatField(allow_null=True)
    energy_per_message_j = serializers.FloatField(allow_null=True)
    continuous_hours = serializers.FloatField(allow_null=True)
    hours = serializers.ListField(child=serializers.FloatField(allow_null=True), allow_null=True)
    reason = serializers.CharField(allow_blank=True)
    warnings = WarningSerializer(many=True)


@extend_schema_serializer(component_name="PowerProjection")
class ProjectionOutputSerializer(serializers.Serializer[object]):
    capacity_wh = serializers.FloatField()
    rates_per_min = serializers.ListField(child=serializers.FloatField())
    series = ProjectionSeriesSerializer(many=True)


@extend_schema_serializer(component_name="PowerBatteryReading")
class BatteryReadingOutputSerializer(serializers.ModelSerializer[BatteryReading]):
    device_name = serializers.CharField(source="device.name", allow_null=True, default=None)
    energy_j = serializers.SerializerMethodField()

    class Meta:
        model = BatteryReading
        fields = [
            "id",
            "run",
            "device",
            "device_name",
            "charge_mah",
            "voltage_v",
            "energy_j",
            "created_at",
        ]
        read_only_fields = fields

    def get_energy_j(self, reading: BatteryReading) -> float:
        """mAh x 3.6 x V."""
        return energy.mah_to_joules(reading.charge_mah, reading.voltage_v)
