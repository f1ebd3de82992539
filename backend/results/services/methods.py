"""A "methods" paragraph for a paper, generated from what the platform stored about a run."""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from django.conf import settings

from experiments.catalogue import MECHANISMS
from experiments.models import (
    IntervalDistribution,
    Protocol,
    Run,
    RunDevice,
    SrupSignature,
    Transport,
)
from results.services.summaries import RunStatistics
from results.statistics import CONFIDENCE

PLATFORM = "IoTSecBench"
_MECHANISM_LABELS = {m.name: m.label for m in MECHANISMS}
_TRANSPORT_LABELS = dict(Transport.choices)
_SRUP_SIGNATURE_LABELS = dict(SrupSignature.choices)
_UNKNOWN = "unknown"


def _ms(value: float | None) -> str:
    """Three significant figures, never an exponent: 0.0717, 56.1, 148, 1,234."""
    if value is None:
        return "n/a"
    if value == 0:
        return "0"
    decimals = max(0, 2 - math.floor(math.log10(abs(value))))
    return f"{value:,.{decimals}f}"


def _count(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)


def _when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M UTC") if value else "an unrecorded time"


def _device_facts(facts: dict[str, Any]) -> str:
    """`model, CPU, cores, RAM, OS, kernel, Python, agent, libraries`, skipping what the
    device did not report."""
    parts = [facts.get("hardware_model"), facts.get("cpu_model")]
    if facts.get("cpu_cores"):
        parts.append(f"{facts['cpu_cores']} cores")
    if facts.get("ram_bytes"):
        parts.append(f"{facts['ram_bytes'] / 2**30:.1f} GiB RAM")
    parts.append(facts.get("os"))
    if facts.get("kernel"):
        parts.append(f"Linux {facts['kernel']}")
    if facts.get("python_version"):
        parts.append(f"Python {facts['python_version']}")
    if facts.get("agent_version"):
        parts.append(f"iotsecbench-agent {facts['agent_version']}")
    libraries = facts.get("libraries") or {}
    parts.extend(f"{lib} {version}" for lib, version in sorted(libraries.items()) if version)
    known = [str(p) for p in parts if p]
    return ", ".join(known) if known else "no facts reported"


def _devices_sentence(devices: list[RunDevice]) -> str:
    """Devices with the same facts are named together: `pi-1, pi-2 (facts); pi-3 (...)`."""
    groups: dict[str, list[str]] = {}
    for rd in devices:
        groups.setdefault(_device_facts(rd.facts), []).append(rd.device.name)
    return "; ".join(f"{', '.join(names)} ({facts})" for facts, names in groups.items())


def _protocol(spec: dict[str, Any]) -> str:
    """`MQTT 3.1.1`, or `SRUP (signed MQTT) with Ed25519 signatures over MQTT 5`."""
    mqtt = f"MQTT {spec.get('mqtt_version', _UNKNOWN)}"
    if spec.get("protocol") == Protocol.SRUP:
        signature = spec.get("srup_signature", _UNKNOWN)
        label = _SRUP_SIGNATURE_LABELS.get(signature, signature)
        return f"{Protocol.SRUP.label} with {label} signatures over {mqtt}"
    if spec.get("protocol", Protocol.MQTT) == Protocol.MQTT:
        return mqtt
    return str(spec["protocol"])


def _schedule(spec: dict[str, Any]) -> str:
    interval = spec.get("interval_ms", 0)
    distribution = spec.get("interval_distribution", IntervalDistribution.FIXED)
    if not interval:
        return "back to back (each message sent when the previous one returned)"
    seed = spec.get("interval_seed")
    seeded = f" (seed {seed})" if seed is not None else ""
    if distribution == IntervalDistribution.UNIFORM:
        return f"at intervals drawn uniformly between 0 and {2 * interval} ms{seeded}"
    if distribution == IntervalDistribution.EXPONENTIAL:
        return f"at exponentially distributed intervals with a mean of {interval} ms{seeded}"
    return f"at a fixed interval of {interval} ms"


def run_methods_paragraph(*, run: Run, statistics: RunStatistics) -> str:
    """A paragraph ready to paste into a paper's methods section: platform and agent
    versions, devices and their facts, the conditions of the spec, counts and dates, and
    the headline figures with their definitions."""
    spec = run.spec
    devices = list(run.run_devices.all())
    security = spec.get("security", "none")
    secured = (
        "without payload security"
        if security == "none"
        else f"secured with {_MECHANISM_LABELS.get(security, security)}"
    )
    transport = _TRANSPORT_LABELS.get(spec.get("transport", Transport.TCP), _UNKNOWN)
    total = statistics.all_devices
    s = total.summary
    sentences = [
        f"Round-trip times were measured with {PLATFORM} "
        f"{settings.SPECTACULAR_SETTINGS.get('VERSION', _UNKNOWN)} "
        f"(run {run.pk} of the experiment “{run.experiment.name}”, from "
        f"{_when(run.started_at or run.created_at)} to {_when(run.finished_at)}).",
        f"{len(devices)} device{'s' if len(devices) != 1 else ''} took part: "
        + _devices_sentence(devices)
        + ".",
        f"Each device published {_count(spec.get('message_count', _UNKNOWN))} messages of "
        f"{_count(spec.get('payload_size', _UNKNOWN))} bytes over {_protocol(spec)} "
        f"(QoS {spec.get('qos', _UNKNOWN)}, {transport}) to its own topic {secured}, "
        f"{_schedule(spec)}, and timed each "
        "round trip from before securing the message to after the broker's copy was "
        "received and unsecured, on the device's monotonic clock (perf_counter_ns); a "
        f"message not back within {spec.get('timeout_ms', _UNKNOWN)} ms counted as lost.",
        f"Of {total.records:,} messages, {s.n:,} were delivered, {total.lost:,} lost and "
        f"{total.rejected:,} rejected.",
    ]
    if s.n:
        ci = (
            f" ({CONFIDENCE:.0%} CI {_ms(s.ci_low)} to {_ms(s.ci_high)} ms, t distribution)"
            if s.ci_low is not None
            else ""
        )
        sentences.append(
            f"The mean round-trip time was {_ms(s.mean)} ms{ci}, the median "
            f"{_ms(s.median)} ms and the 95th percentile {_ms(s.p95)} ms "
            f"(sample standard deviation {_ms(s.std)} ms); the combined mean of the "
            f"per-device means was {_ms(statistics.mean_of_device_means_ms)} ms."
        )
    repeats = statistics.repeats.interval
    if repeats.n >= 2:
        sentences.append(
            f"Over {repeats.n} repeated runs of the same specification the mean was "
            f"{_ms(repeats.mean)} ms ({CONFIDENCE:.0%} CI {_ms(repeats.ci_low)} to "
            f"{_ms(repeats.ci_high)} ms)."
        )
    return " ".join(sentences)
