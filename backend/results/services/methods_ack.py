"""The methods text of an acknowledgement-time run (measurement ``ack``, issue #19 point 4):
what was timed, in the run's own protocol. The shared phrases (counts, security, schedule,
clock, loss) are methods.py's, passed in as ``AckWords``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from experiments.models import Measurement, Protocol

# Per measurement: the figure's name in a sentence, and the opening's "<these> were measured".
MEASURED: dict[str, tuple[str, str]] = {
    Measurement.ROUND_TRIP: ("round-trip time", "Round-trip times"),
    Measurement.ONE_WAY: ("one-way delay", "One-way delays"),
    Measurement.ACK: ("acknowledgement time", "Acknowledgement times"),
}
# The acknowledgement that ends an MQTT ack measurement, by QoS (QoS 0 is refused), and the
# exchange it closes in the papers' arrow notation.
_MQTT_ARROWS: dict[object, str] = {1: "publish → PUBACK", 2: "publish → PUBCOMP"}
_MQTT_ACKS: dict[object, str] = {
    1: "the broker's PUBACK (QoS 1)",
    2: "the broker's PUBCOMP, which completes the QoS 2 exchange (PUBLISH, PUBREC, PUBREL, "
    "PUBCOMP)",
}


def ack_exchange(spec: Mapping[str, Any]) -> str:
    """The exchange an ack run timed, in the papers' arrow notation: "publish → PUBACK"
    (MQTT QoS 1, MQTT-SN), "publish → PUBCOMP" (MQTT QoS 2), "CON → ACK" (CoAP)."""
    protocol = spec.get("protocol")
    if protocol == Protocol.COAP:
        return "CON → ACK"
    if protocol == Protocol.MQTTSN:
        return "publish → PUBACK"
    return _MQTT_ARROWS.get(spec.get("qos"), "publish → acknowledgement")


def measured_quantity(spec: Mapping[str, Any]) -> str:
    """What a messaging run's figures are, for labels and columns: "round-trip time",
    "one-way delay", or "acknowledgement time (publish → PUBACK)"."""
    measurement = spec.get("measurement", Measurement.ROUND_TRIP)
    figure = MEASURED.get(measurement, MEASURED[Measurement.ROUND_TRIP])[0]
    if measurement == Measurement.ACK:
        return f"{figure} ({ack_exchange(spec)})"
    return figure


_NO_COPY = "nothing was subscribed, so no copy came back"


@dataclass(frozen=True)
class AckWords:
    messages: str
    size: str
    secured: str
    schedule: str
    clock: str
    lost: str


def mqtt_ack_method(words: AckWords, protocol: str, qos: object, transport: str) -> str:
    """Publish → PUBACK / PUBCOMP (device-agent runners/mqtt_ack.py)."""
    ack = _MQTT_ACKS.get(qos, f"the broker's acknowledgement (QoS {qos})")
    arrow = _MQTT_ARROWS.get(qos, "publish → acknowledgement")
    return (
        f"Each device published {words.messages} messages of {words.size} bytes over "
        f"{protocol} (QoS {qos}, {transport}) {words.secured}, {words.schedule}, and timed "
        f"each from before securing the message to the arrival of {ack}, read as the MQTT "
        f"client reported the acknowledgement ({arrow}), {words.clock}; nothing was "
        f"subscribed, so no copy came back; {words.lost}."
    )


def coap_ack_method(words: AckWords, kind: str, method: str, server: str, retransmit: str) -> str:
    """CON → ACK (device-agent runners/coap_roundtrip.py, measurement ``ack``)."""
    return (
        f"Each device sent {words.messages} CoAP {kind} {method} requests carrying "
        f"{words.size} bytes over UDP to {server} {words.secured}, {words.schedule}, and "
        "timed each from before securing the request to when its socket read the ACK "
        "carrying the request's Message ID (a piggybacked response or an empty ACK), before "
        f"the message was parsed (CON → ACK), {words.clock}; the response was awaited "
        f"before the next request; {retransmit}{words.lost}."
    )


def mqttsn_ack_method(words: AckWords, topic: str, through: str) -> str:
    """PUBLISH (QoS 1) → PUBACK over MQTT-SN (device-agent runners/mqttsn_ack.py)."""
    sent = (
        f"Each device published {words.messages} messages of {words.size} bytes over MQTT-SN "
        f"1.2 (QoS 1, UDP) to {topic} through {through}, {words.secured}, {words.schedule}"
    )
    timed = (
        "timed each from before securing the message to when the client had received the "
        "gateway's PUBACK carrying the PUBLISH's MsgId (publish → PUBACK; the agent's "
        "transparent gateway sends it once the broker has acknowledged the forwarded MQTT "
        "publish)"
    )
    return f"{sent}, and {timed}, {words.clock}; {_NO_COPY}; {words.lost}."
