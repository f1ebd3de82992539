"""Words for one parameter value in a run's label ("QoS 1", "AES-128-CBC", "1,700 B")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from iotsecbench_contract.mechanisms import MECHANISMS

from experiments import models

_MECHANISM_LABELS = {m.name: m.label for m in MECHANISMS}
_CHOICES: dict[str, dict[str, str]] = {
    "protocol": dict(models.Protocol.choices),
    "mqtt_version": dict(models.MqttVersion.choices),
    "transport": dict(models.Transport.choices),
    "srup_signature": {k: f"SRUP {v}" for k, v in models.SrupSignature.choices},
    "interval_distribution": {k: f"{v} intervals" for k, v in models.IntervalDistribution.choices},
    "measurement": dict(models.Measurement.choices),
    "coap_type": {k: f"CoAP {k.upper()}" for k, _ in models.CoapType.choices},
    "coap_method": {k: f"CoAP {k.upper()}" for k, _ in models.CoapMethod.choices},
    "topic_id_type": {k: f"{k} topic ids" for k, _ in models.TopicIdType.choices},
}


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    if n >= 1_000_000 and n % 1_000_000 == 0:
        return f"{n // 1_000_000} MB"
    return f"{n:,} B"


def describe(parameter: str, value: Any, names: Mapping[str, str] | None = None) -> str:
    """The value as a label shows it; ids of network profiles and devices by their names
    when ``names`` has them."""
    names = names or {}
    if parameter in _CHOICES:
        return _CHOICES[parameter].get(str(value), str(value))
    if parameter == "security":
        return _MECHANISM_LABELS.get(str(value), str(value))
    if parameter == "mechanisms":
        return ", ".join(_MECHANISM_LABELS.get(m, m) for m in value)
    if parameter == "qos":
        return f"QoS {value}"
    if parameter in ("payload_size",):
        return _size(int(value))
    if parameter == "data_sizes":
        return ", ".join(_size(int(v)) for v in value)
    if parameter == "message_count":
        return f"{value} messages"
    if parameter == "interval_ms":
        return f"{value} ms apart"
    if parameter == "window_ms":
        return f"{value} ms windows"
    if parameter == "repetitions":
        return f"{value} repetitions"
    if parameter == "network_profile":
        return "no network profile" if value is None else names.get(str(value), str(value))
    if parameter == "device_ids":
        return ", ".join(names.get(str(v), str(v)) for v in value)
    return f"{parameter} {value}"


def describe_plain(parameter: str, value: Any) -> str:
    return describe(parameter, value)
