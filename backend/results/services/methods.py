"""A "methods" paragraph for a paper, generated from what the platform stored about a run:
round trips of a messaging run, or the timings of a cipher-benchmark or throughput run."""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from iotsecbench_contract.brokerurl import redact_url
from iotsecbench_contract.jobspec import BROKER_EXTERNAL
from iotsecbench_contract.mechanisms import MECHANISMS

from experiments.addressing import coap_request_uri
from experiments.models import (
    CoapMethod,
    CoapType,
    IntervalDistribution,
    Measurement,
    Protocol,
    Run,
    RunDevice,
    RunStatus,
    SrupSignature,
    TopicIdType,
    Transport,
)
from results.services.methods_ack import (
    MEASURED,
    AckWords,
    coap_ack_method,
    mqtt_ack_method,
    mqttsn_ack_method,
)
from results.services.summaries import RunStatistics
from results.statistics import CI_METHOD, CI_METHOD_T, CONFIDENCE

PLATFORM = "IoTSecBench"
_MECHANISM_LABELS = {m.name: m.label for m in MECHANISMS}
_TRANSPORT_LABELS = dict(Transport.choices)
_SRUP_SIGNATURE_LABELS = dict(SrupSignature.choices)
_UNKNOWN = "unknown"
# RFC 7252 §4.8's transmission parameters, the agent's defaults for a CoAP run whose spec
# does not set them (device-agent runners/coap_roundtrip.py DEFAULT_ACK_TIMEOUT_MS, ...).
COAP_ACK_TIMEOUT_MS = 2000
COAP_MAX_RETRANSMIT = 4
# How a paragraph names an address a run used, from its field (broker_url, coap_url,
# mqttsn_gateway, or a throughput run's target) and value: the owner's pages name the
# address itself; a shared page passes words without it (sharing.addresses), so that its
# paragraph is the same but for the lab's hosts, ports and paths.
AddressWords = Callable[[str, str], str]
_ADDRESS_WORDS = {
    "broker_url": "the external broker at {}",
    "coap_url": "the CoAP server at {}",
    "mqttsn_gateway": "the MQTT-SN gateway at {}",
    "target": "the receiver at {}",
}


def address_as_stored(field: str, value: str) -> str:
    """The owner's words: "the external broker at mqtt://broker.lab:1883"."""
    return _ADDRESS_WORDS[field].format(value)


# How the methods text names each interval of a mean (results.statistics).
_CI_METHOD_WORDS = {
    CI_METHOD: "studentized bootstrap, 2,000 resamples",
    CI_METHOD_T: "t distribution",
}


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


def _completeness(run: Run, devices: list[RunDevice]) -> list[str]:
    """For a run that did not complete: that it is partial, and each unfinished device's
    part with its reason (experiments.services.agent_events.run_device_settle wrote them)."""
    if run.status == RunStatus.DONE:
        return []
    unfinished = [rd for rd in devices if rd.status != RunStatus.DONE]
    parts = "; ".join(
        f"{rd.device.name} {rd.status}, {rd.records_ingested:,} of {rd.total:,} stored"
        + (f" ({rd.error})" if rd.error else "")
        for rd in unfinished
    )
    return [f"This run is {run.status}, not complete: {parts}."]


def _provenance(run: Run, measured: str, devices: list[RunDevice]) -> list[str]:
    """The opening sentences: what was measured with which platform, the run, its dates,
    the devices with their facts, and whether the run is complete."""
    return [
        f"{measured} were measured with {PLATFORM} "
        f"{settings.SPECTACULAR_SETTINGS.get('VERSION', _UNKNOWN)} "
        f"(run {run.pk} of the experiment “{run.experiment.name}”, from "
        f"{_when(run.started_at or run.created_at)} to {_when(run.finished_at)}).",
        f"{len(devices)} device{'s' if len(devices) != 1 else ''} took part: "
        + _devices_sentence(devices)
        + ".",
        *_completeness(run, devices),
    ]


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
    return mqtt


def _schedule(spec: dict[str, Any], *, one_way: bool = False) -> str:
    interval = spec.get("interval_ms", 0)
    distribution = spec.get("interval_distribution", IntervalDistribution.FIXED)
    if not interval:
        if one_way:
            return "back to back (each message sent as soon as the previous one was)"
        return "back to back (each message sent when the previous one returned)"
    seed = spec.get("interval_seed")
    seeded = f" (seed {seed})" if seed is not None else ""
    if distribution == IntervalDistribution.UNIFORM:
        return f"at intervals drawn uniformly between 0 and {2 * interval} ms{seeded}"
    if distribution == IntervalDistribution.EXPONENTIAL:
        return f"at exponentially distributed intervals with a mean of {interval} ms{seeded}"
    return f"at a fixed interval of {interval} ms"


def _secured(spec: dict[str, Any]) -> str:
    security = spec.get("security", "none")
    if security == "none":
        return "without payload security"
    return f"secured with {_MECHANISM_LABELS.get(security, security)}"


_MONOTONIC = "on the device's monotonic clock (perf_counter_ns)"


def _lost(spec: dict[str, Any], what: str = "a message not back") -> str:
    return f"{what} within {spec.get('timeout_ms', _UNKNOWN)} ms counted as lost"


def _mqtt_method(spec: dict[str, Any], words: AddressWords) -> str:
    """An MQTT round trip: publish to the device's own topic, time until the broker's copy
    of it came back (device-agent runners/mqtt_roundtrip.py)."""
    transport = _TRANSPORT_LABELS.get(spec.get("transport", Transport.TCP), _UNKNOWN)
    return (
        f"Each device published {_count(spec.get('message_count', _UNKNOWN))} messages of "
        f"{_count(spec.get('payload_size', _UNKNOWN))} bytes over {_protocol(spec)} "
        f"(QoS {spec.get('qos', _UNKNOWN)}, {transport}) to {_topic(spec)} on "
        f"{_broker(spec, words)} {_secured(spec)}, {_schedule(spec)}, and timed each "
        "round trip from before securing the message to after the broker's copy was "
        f"received and unsecured, {_MONOTONIC}; {_lost(spec)}."
    )


def _topic(spec: dict[str, Any]) -> str:
    """The design's own topic (experiments.addressing), or the platform's per-run one."""
    topic = spec.get("topic")
    return f"the topic {topic}" if topic else "its own per-run topic"


def _broker(spec: dict[str, Any], words: AddressWords) -> str:
    """Which broker the run used: an external one the design named, or the platform's."""
    if spec.get(BROKER_EXTERNAL) and spec.get("broker_url"):
        return words("broker_url", redact_url(str(spec["broker_url"])))
    return "the platform's broker"


def _srup_method(spec: dict[str, Any], words: AddressWords) -> str:
    """A SRUP round trip: a signed request to the device end, its signed reply (device-agent
    runners/srup_roundtrip.py)."""
    transport = _TRANSPORT_LABELS.get(spec.get("transport", Transport.TCP), _UNKNOWN)
    return (
        f"Each device sent {_count(spec.get('message_count', _UNKNOWN))} SRUP data messages "
        f"of {_count(spec.get('payload_size', _UNKNOWN))} bytes over {_protocol(spec)} "
        f"(QoS {spec.get('qos', _UNKNOWN)}, {transport}) on its SRUP topic through "
        f"{_broker(spec, words)} to a device end "
        "that verified each one and answered with a signed reply carrying its token, "
        f"{_schedule(spec)}, and timed each round trip from before building and signing the "
        "request to after the reply was received, verified and its sequence ID checked, "
        f"{_MONOTONIC}; {_lost(spec, 'a request not answered')}."
    )


def _coap_parts(spec: dict[str, Any], words: AddressWords) -> tuple[str, str, str, str]:
    """A CoAP run's message type, method, server and retransmission sentence."""
    confirmable = spec.get("coap_type", CoapType.CON) == CoapType.CON
    kind = "confirmable (CON)" if confirmable else "non-confirmable (NON)"
    method = str(spec.get("coap_method", CoapMethod.GET)).upper()
    url = spec.get("coap_url")
    uri = coap_request_uri(str(url or ""), str(spec.get("coap_path") or ""))
    resource = f"/{urlsplit(uri).path.lstrip('/')}"
    if url:
        server = words("coap_url", uri)
    else:
        # A target device's agent served it (experiments.services.targets): the address it
        # reported is the run's, not the design's, and is not named here.
        target = spec.get("target_device")
        where = "the experiment's target device (" if target else "the device (127.0.0.1, "
        server = f"the agent's own CoAP echo server on {where}resource {resource})"
    retransmit = ""
    if confirmable:
        ack = spec.get("coap_ack_timeout_ms", COAP_ACK_TIMEOUT_MS)
        tries = spec.get("coap_max_retransmit", COAP_MAX_RETRANSMIT)
        retransmit = (
            "an unacknowledged request was retransmitted after an ACK timeout of "
            f"{_count(ack)} ms (times a random factor up to 1.5), the wait doubling each time, "
            f"up to {_count(tries)} times (RFC 7252 §4.2), and "
        )
    return kind, method, server, retransmit


def _coap_method(spec: dict[str, Any], words: AddressWords) -> str:
    """A CoAP round trip: one request to an echo resource, its response carrying the body
    back (device-agent runners/coap_roundtrip.py, docs/coap.md)."""
    kind, method, server, retransmit = _coap_parts(spec, words)
    return (
        f"Each device sent {_count(spec.get('message_count', _UNKNOWN))} CoAP {kind} "
        f"{method} requests carrying {_count(spec.get('payload_size', _UNKNOWN))} bytes over "
        f"UDP to {server} {_secured(spec)}, {_schedule(spec)}, and timed each round trip from "
        "before securing the request to after the response carrying the body back was "
        f"received and unsecured, {_MONOTONIC}; {retransmit}"
        f"{_lost(spec, 'a request not answered')}."
    )


def _ack_method(spec: dict[str, Any], words: AddressWords) -> str:
    """Measurement ``ack`` (device-agent runners/mqtt_ack.py, coap_roundtrip.py)."""
    common = AckWords(
        messages=_count(spec.get("message_count", _UNKNOWN)),
        size=_count(spec.get("payload_size", _UNKNOWN)),
        secured=_secured(spec),
        schedule=_schedule(spec),
        clock=_MONOTONIC,
        lost=_lost(spec, "a message not acknowledged"),
    )
    if spec.get("protocol") == Protocol.COAP:
        return coap_ack_method(common, *_coap_parts(spec, words))
    if spec.get("protocol") == Protocol.MQTTSN:
        return mqttsn_ack_method(common, *_mqttsn_parts(spec, words))
    transport = _TRANSPORT_LABELS.get(spec.get("transport", Transport.TCP), _UNKNOWN)
    return mqtt_ack_method(common, _protocol(spec), spec.get("qos", _UNKNOWN), transport)


_TOPIC_ID_TYPES = {
    TopicIdType.NORMAL: "a topic registered by name",
    TopicIdType.SHORT: "a two-character short topic name",
    TopicIdType.PREDEFINED: "a predefined topic id",
}


def _mqttsn_parts(spec: dict[str, Any], words: AddressWords) -> tuple[str, str]:
    """How an MQTT-SN run's topic and gateway are named: (topic, through)."""
    gateway = spec.get("mqttsn_gateway")
    if gateway:
        through = words("mqttsn_gateway", str(gateway))
    else:
        where = (
            "the experiment's target device"
            if spec.get("target_device")
            else "the device (127.0.0.1)"
        )
        through = (
            f"the agent's own transparent MQTT-SN gateway on {where}, which bridged to the "
            "broker over MQTT 3.1.1"
        )
    topic = _TOPIC_ID_TYPES.get(spec.get("topic_id_type", TopicIdType.NORMAL), "its topic")
    return topic, through


def _mqttsn_method(spec: dict[str, Any], words: AddressWords) -> str:
    """An MQTT-SN round trip: publish over UDP through a gateway to the broker, time until
    the copy from the device's own subscription came back (runners/mqttsn_roundtrip.py)."""
    topic, through = _mqttsn_parts(spec, words)
    qos = spec.get("qos", _UNKNOWN)
    qos_text = "QoS -1, published without a connection" if qos == -1 else f"QoS {qos}"
    return (
        f"Each device published {_count(spec.get('message_count', _UNKNOWN))} messages of "
        f"{_count(spec.get('payload_size', _UNKNOWN))} bytes over MQTT-SN 1.2 ({qos_text}, "
        f"UDP) to {topic} through {through}, {_secured(spec)}, "
        f"{_schedule(spec)}, and timed each round trip from before securing the message to "
        "after the broker's copy had come back through the gateway and was unsecured, "
        f"{_MONOTONIC}; {_lost(spec)}."
    )


def _one_way_method(spec: dict[str, Any]) -> str:
    """One way (the SRUP paper's method): the platform's controller sends, each device
    times the arrival (device-agent runners/oneway_receiver.py, docs/one-way.md)."""
    transport = _TRANSPORT_LABELS.get(spec.get("transport", Transport.TCP), _UNKNOWN)
    srup = spec.get("protocol") == Protocol.SRUP
    what = "SRUP data messages" if srup else "messages"
    secured = "" if srup else f" {_secured(spec)}"
    opened = "verified and its sequence ID checked" if srup else "unsecured"
    return (
        f"The platform, as controller, published {_count(spec.get('message_count', _UNKNOWN))} "
        f"{what} of {_count(spec.get('payload_size', _UNKNOWN))} bytes to each device over "
        f"{_protocol(spec)} (QoS {spec.get('qos', _UNKNOWN)}, {transport}){secured}, "
        f"{_schedule(spec, one_way=True)}; each device took each message's one-way delay "
        f"from the controller's send time (its wall clock, taken before "
        f"{'signing' if srup else 'securing'}) to after the message was received and "
        f"{opened}, its receive time corrected by its clock offset to the platform (the mean "
        "of NTP-style probes before and after the run); a message not received within "
        f"{spec.get('timeout_ms', _UNKNOWN)} ms after the controller's last counted as lost."
    )


def _messaging_method(spec: dict[str, Any], words: AddressWords) -> str:
    """What each device did and what was timed, in the run's own protocol and measurement."""
    if spec.get("measurement") == Measurement.ONE_WAY:
        return _one_way_method(spec)
    if spec.get("measurement") == Measurement.ACK:
        return _ack_method(spec, words)
    protocol = spec.get("protocol", Protocol.MQTT)
    if protocol == Protocol.COAP:
        return _coap_method(spec, words)
    if protocol == Protocol.MQTTSN:
        return _mqttsn_method(spec, words)
    if protocol == Protocol.SRUP:
        return _srup_method(spec, words)
    return _mqtt_method(spec, words)


def _interleaved_sentences(statistics: RunStatistics, figure: str) -> list[str]:
    """An interleaved run's figures, per mechanism (its messages together mix them)."""
    names = [_MECHANISM_LABELS.get(m.mechanism, m.mechanism) for m in statistics.mechanisms]
    sentences = [
        f"The run was interleaved: it alternated {len(names)} mechanisms ({', '.join(names)}) "
        "message by message on one connection (message seq secured with the rotation's "
        "mechanism seq mod k, a one-byte clear mechanism index before every payload, none "
        f"included), and its figures are per mechanism, each over its own messages."
    ]
    for name, part in zip(names, statistics.mechanisms, strict=True):
        s = part.all_devices.summary
        text = (
            f"{name}: {s.n:,} delivered, {part.all_devices.lost:,} lost, mean {figure} "
            f"{_ms(s.mean)} ms"
        )
        if s.ci_low is not None:
            text += f" ({CONFIDENCE:.0%} CI {_ms(s.ci_low)} to {_ms(s.ci_high)} ms)"
        text += f", median {_ms(s.median)} ms"
        if part.overhead is not None:
            o = part.overhead
            text += (
                f"; against {o.baseline} in the same rotation cycles (paired, {o.pairs:,} "
                f"cycles) {_ms(o.overhead_ms)} ms more ({CONFIDENCE:.0%} bootstrap CI "
                f"{_ms(o.ci_low_ms)} to {_ms(o.ci_high_ms)} ms)"
            )
        sentences.append(text + ".")
    return sentences


def run_methods_paragraph(
    *, run: Run, statistics: RunStatistics, addresses: AddressWords = address_as_stored
) -> str:
    """A paragraph ready to paste into a paper's methods section: platform and agent
    versions, devices and their facts, the run's protocol, transport and what was timed,
    counts and dates, and the headline figures with their definitions; the addresses the
    run used named by `addresses`."""
    spec = run.spec
    devices = list(run.run_devices.all())
    figure, measured = MEASURED.get(spec.get("measurement", ""), MEASURED[Measurement.ROUND_TRIP])
    total = statistics.all_devices
    s = total.summary
    sentences = [
        *_provenance(run, measured, devices),
        _messaging_method(spec, addresses),
        f"Of {total.records:,} messages, {s.n:,} were delivered, {total.lost:,} lost and "
        f"{total.rejected:,} rejected.",
    ]
    if statistics.mechanisms:
        sentences.extend(_interleaved_sentences(statistics, figure))
    elif s.n:
        ci = (
            f" ({CONFIDENCE:.0%} CI {_ms(s.ci_low)} to {_ms(s.ci_high)} ms, "
            f"{_CI_METHOD_WORDS.get(s.ci_method or '', s.ci_method)})"
            if s.ci_low is not None
            else ""
        )
        sentences.append(
            f"The mean {figure} was {_ms(s.mean)} ms{ci}, the median "
            f"{_ms(s.median)} ms and the 95th percentile {_ms(s.p95)} ms "
            f"(sample standard deviation {_ms(s.std)} ms); the combined mean of the "
            f"per-device means was {_ms(statistics.mean_of_device_means_ms)} ms."
        )
    repeats = statistics.repeats.interval
    if repeats.n >= 2:
        sentences.append(
            f"Over {repeats.n} repeated runs of the same specification the mean was "
            f"{_ms(repeats.mean)} ms ({CONFIDENCE:.0%} CI {_ms(repeats.ci_low)} to "
            f"{_ms(repeats.ci_high)} ms, t distribution over the runs' means)."
        )
    return " ".join(sentences)
