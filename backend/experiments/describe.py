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


# The fixed parameters a generated description names, per kind, in reading order. The rest
# (addressing, transport details) is on the experiment's page; a description stays short.
_DESCRIBED: dict[str, tuple[str, ...]] = {
    models.ExperimentKind.MESSAGING: (
        "protocol",
        "qos",
        "security",
        "payload_size",
        "message_count",
        "interval_ms",
        "measurement",
    ),
    models.ExperimentKind.CIPHER_BENCH: ("mechanisms", "data_sizes", "repetitions"),
    models.ExperimentKind.THROUGHPUT: ("mechanisms", "data_sizes", "repetitions", "window_ms"),
}
_KIND_LABELS = dict(models.ExperimentKind.choices)
# Every field describe_design reads from a design's fixed parameters.
DESCRIBED_FIELDS = ("kind", *dict.fromkeys(p for ps in _DESCRIBED.values() for p in ps))


def describe_design(design: Mapping[str, Any], names: Mapping[str, str] | None = None) -> str:
    """A description generated from a design (its kind, fixed parameters, axes and repeats),
    regenerated whenever the design changes so that it never tells another design's story
    (issue #21: a preset's "100 repetitions … 1 GiB" on a 3-repetition 1 MiB design).

    A parameter that an axis varies is named with the axis, not among the fixed values."""
    kind = str(design.get("kind", models.ExperimentKind.MESSAGING))
    axes: list[Mapping[str, Any]] = list(design.get("axes") or [])
    varied = {p for axis in axes for value in axis.get("values", []) for p in value}
    fixed = [
        describe(p, design[p], names)
        for p in _DESCRIBED.get(kind, ())
        if p in design and p not in varied and not (p == "qos" and _no_qos(design))
    ]
    sentences = [f"{_KIND_LABELS.get(kind, kind)}: {', '.join(fixed)}." if fixed else ""]
    for axis in axes:
        cells = [
            "; ".join(describe(p, v, names) for p, v in value.items()) for value in axis["values"]
        ]
        sentences.append(f"Varies {axis.get('name', '')}: {' / '.join(cells)}.")
    repeats = int(design.get("repeats") or 1)
    if repeats > 1:
        sentences.append(f"Every combination {repeats} times.")
    return " ".join(s for s in sentences if s)


def _no_qos(design: Mapping[str, Any]) -> bool:
    # CoAP has no QoS; naming one would describe a setting the run ignores.
    return design.get("protocol") == models.Protocol.COAP
