"""One-way runs (controller to devices, the SRUP paper's method) on loopback: the platform's
``OneWayController`` sends through a real Mosquitto to two receiver runners in threads,
whose clock probes go to a real HTTP clock running 250 ms ahead of this host's (the
platform's clock, which the controller's send times are taken on here too).

Tampering is done by a real MQTT client between controller and receiver (a relay on the
same broker): it forwards each message, or flips a bit, drops it, or sends an earlier
captured message in its place.
"""

from __future__ import annotations

import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from Crypto.PublicKey import ECC, RSA
from iotsecbench_contract.errors import JobSpecError
from iotsecbench_contract.jobspec import LinkSpec
from paho.mqtt.enums import CallbackAPIVersion

from iotsecbench_agent.errors import AgentError
from iotsecbench_agent.jobkinds import runner_for
from iotsecbench_agent.links.mqtt_wire import publish_packet_size
from iotsecbench_agent.oneway import OneWayController, Target, TargetResult, build_payload
from iotsecbench_agent.oneway.clock import ClockOffset
from iotsecbench_agent.runners import RunClock, RunContext
from iotsecbench_agent.runners.mqtt_roundtrip import MqttRoundTripRunner
from iotsecbench_agent.runners.oneway_receiver import (
    MqttOneWayReceiver,
    SrupOneWayReceiver,
    applied_offset,
)
from iotsecbench_agent.security import registry
from iotsecbench_agent.srup import PartyKey
from iotsecbench_agent.storage.recordlog import (
    DECRYPT_ERROR,
    LOST,
    OK,
    REJECTED_REPLAY,
    REJECTED_SIGNATURE,
    Record,
)
from srup_golden import CONTROLLER_ID, KEYS
from test_health import AHEAD_NS, time_url  # noqa: F401 (the platform clock fixture)
from testkit import WAIT_S, Broker

TOKEN = "t0ken"  # what test_health's clock accepts
AES_KEY = bytes(range(16))
PAYLOAD = 32
READY_TIMEOUT_S = 30.0


# -- harness ------------------------------------------------------------------------------


def receiver_spec(broker: Broker, topic: str, url: str, **overrides: Any) -> dict[str, Any]:
    return {
        "protocol": "mqtt",
        "measurement": "one_way",
        "mqtt_version": "3.1.1",
        "qos": 1,
        "security": "none",
        "payload_size": PAYLOAD,
        "message_count": 12,
        "timeout_ms": 300,
        "oneway_deadline_s": 30,
        "broker_url": broker.url,
        "topic": topic,
        "time_url": url,
        **overrides,
    }


@dataclass
class Device:
    """A receiver runner in its own thread, as an agent runs it."""

    spec: dict[str, Any]
    records: list[Record] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    ready: threading.Event = field(default_factory=threading.Event)
    error: AgentError | None = None

    def start(self) -> threading.Thread:
        context = RunContext(
            run_id=str(uuid.uuid4()),
            device_id=str(uuid.uuid4()),
            clock=RunClock(),
            emit=self.records.append,
            stop=threading.Event(),
            publish_event=self._event,
            api_token=TOKEN,
        )
        runner = runner_for("messaging", self.spec)(self.spec, context)
        thread = threading.Thread(target=self._run, args=(runner,), daemon=True)
        thread.start()
        return thread

    def _run(self, runner: Any) -> None:
        try:
            runner.execute()
        except AgentError as exc:  # the test thread asserts there was none
            self.error = exc
            self.ready.set()

    def _event(self, event: dict[str, Any]) -> None:
        self.events.append(event)
        if event["event"] == "receiver_ready":
            self.ready.set()

    def clock(self) -> dict[str, Any]:
        (event,) = [e for e in self.events if e["event"] == "clock_offset"]
        return event

    def delays_plausible(self, records: list[Record]) -> bool:
        """Every delay under 50 ms and not below zero by more than the clock offset's
        stated uncertainty: on one machine the true delay is well under a millisecond, so
        a corrected one may come out slightly negative."""
        clock = self.clock()
        uncertainty = max(clock["before"]["uncertainty_ms"], clock["after"]["uncertainty_ms"])
        return all(-uncertainty <= d < 50 for d in delays_ms(records))


def run_oneway(
    broker: Broker, devices: list[Device], targets: list[Target], **options: Any
) -> list[TargetResult]:
    """Start the receivers, then (as the platform does, once all are ready) run the
    controller on the platform's clock: QoS 1, 12 messages of PAYLOAD bytes unless
    ``options`` say otherwise. Wait for the receivers to finish."""
    options = {"message_count": 12, "payload_size": PAYLOAD, "clock": platform_now, **options}
    controller = OneWayController(LinkSpec(broker_url=broker.url, qos=1), targets, **options)
    threads = [device.start() for device in devices]
    for device in devices:
        assert device.ready.wait(READY_TIMEOUT_S), "a receiver never got ready"
        assert device.error is None, device.error
    results = controller.run()
    for thread in threads:
        thread.join(READY_TIMEOUT_S)
        assert not thread.is_alive(), "a receiver did not finish"
    for device in devices:
        assert device.error is None, device.error
    return results


def platform_now() -> int:
    """The controller's clock: the platform's, 250 ms ahead of this host's."""
    return time.time_ns() + AHEAD_NS


def delays_ms(records: list[Record]) -> list[float]:
    return [(r.t_recv_ns - r.t_send_ns) / 1e6 for r in records if r.t_recv_ns is not None]


class Relay:
    """A man in the middle on the broker: forwards the i-th message from ``source`` to
    ``dest`` as ``tamper(i, wire)`` says (a list of payloads to publish instead)."""

    def __init__(
        self, broker: Broker, source: str, dest: str, tamper: Callable[[int, bytes], list[bytes]]
    ) -> None:
        self.dest = dest
        self.tamper = tamper
        self.seen: list[bytes] = []
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"relay-{uuid.uuid4().hex[:8]}")
        # Nagle on the relay would add its own ~40 ms steps to the delays under test.
        client.on_socket_open = _nodelay
        subscribed = threading.Event()
        client.on_subscribe = lambda *args: subscribed.set()
        client.on_message = self._forward
        client.connect("127.0.0.1", broker.port)
        client.loop_start()
        client.subscribe(source, qos=1)
        assert subscribed.wait(WAIT_S)
        self.client = client

    def _forward(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        wire = bytes(message.payload)
        index = len(self.seen)
        self.seen.append(wire)
        for payload in self.tamper(index, wire):
            client.publish(self.dest, payload, qos=1)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def run_through_relay(
    broker: Broker,
    topics: Callable[[str], str],
    spec: dict[str, Any],
    tamper: Relay | Callable[[int, bytes], list[bytes]],
    target: Target,
    **options: Any,
) -> Device:
    """One receiver on ``topics("device")``, the controller sending to ``topics("relay")``
    and a Relay (given, or made from ``tamper``) between them; the relay is closed after."""
    relay = (
        tamper
        if isinstance(tamper, Relay)
        else Relay(broker, topics("relay"), topics("device"), tamper)
    )
    device = Device(spec)
    try:
        run_oneway(broker, [device], [target], **options)
    finally:
        relay.close()
    return device


def _nodelay(client: mqtt.Client, userdata: Any, sock: Any) -> None:
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


@pytest.fixture
def topics() -> Callable[[str], str]:
    prefix = f"iotsecbench/test/oneway/{uuid.uuid4().hex[:8]}"  # the ACL allows iotsecbench/#
    return lambda name: f"{prefix}/{name}"


# -- with a real broker and clock ------------------------------------------------------------


@pytest.mark.integration
def test_two_receivers_get_every_message_with_delays_on_the_controllers_clock(
    broker: Broker,
    time_url: str,  # noqa: F811
    topics: Callable[[str], str],
) -> None:
    devices = [Device(receiver_spec(broker, topics(name), time_url)) for name in ("a", "b")]
    results = run_oneway(
        broker,
        devices,
        [Target(topics("a")), Target(topics("b"))],
        interval_ms=2,
        interval_distribution="exponential",
        interval_seed=7,
    )

    assert [(r.sent, r.end_sent) for r in results] == [(12, True), (12, True)]
    for device, result in zip(devices, results):
        records = device.records
        assert [r.seq for r in records] == list(range(12))
        assert {r.outcome for r in records} == {OK}
        # t_send_ns is the controller's, carried in the payload.
        assert [r.t_send_ns for r in records] == result.t_send_ns
        delays = delays_ms(records)
        clock = device.clock()
        assert clock["applied_ms"] == pytest.approx(AHEAD_NS / 1e6, abs=5)
        assert clock["before"]["uncertainty_ms"] < 5
        assert clock["after"]["uncertainty_ms"] < 5
        assert device.delays_plausible(records), (delays, clock)
        # Without the correction the device's clock would put every receipt ~250 ms
        # before its send.
        uncorrected = [d - clock["applied_ms"] for d in delays]
        assert all(u == pytest.approx(-250, abs=10) for u in uncorrected), uncorrected
        assert [e["event"] for e in device.events] == ["receiver_ready", "clock_offset"]
        assert all(r.secure_ns is None and r.unsecure_ns is not None for r in records)
        # security none: no mechanism, so no floor under it
        assert {(r.floor_secure_ns, r.floor_unsecure_ns) for r in records} == {(None, None)}
        size = publish_packet_size(topic=device.spec["topic"], payload_size=PAYLOAD, qos=1)
        assert {r.wire_bytes for r in records} == {size}
        assert set(result.wire_bytes) == {size}  # the same PUBLISH, at the controller


@pytest.mark.integration
def test_aes_128_cbc_payloads_secured_by_the_controller_decrypt_at_the_receiver(
    broker: Broker,
    time_url: str,  # noqa: F811
    topics: Callable[[str], str],
) -> None:
    spec = receiver_spec(
        broker, topics("a"), time_url, security="aes-128-cbc", security_key=AES_KEY.hex()
    )
    (device,) = devices = [Device(spec)]
    run_oneway(broker, devices, [Target(topics("a"), security="aes-128-cbc", key=AES_KEY)])

    assert [(r.seq, r.outcome, r.app_bytes) for r in device.records] == [
        (seq, OK, PAYLOAD) for seq in range(12)
    ]
    assert device.delays_plausible(device.records), delays_ms(device.records)
    secured = PAYLOAD + registry.describe("aes-128-cbc").overhead(PAYLOAD)
    size = publish_packet_size(topic=topics("a"), payload_size=secured, qos=1)
    assert {r.wire_bytes for r in device.records} == {size}
    # The receiver only unsecures: its floor is the null mechanism's unsecure alone.
    for r in device.records:
        assert r.floor_secure_ns is None
        assert r.floor_unsecure_ns is not None
        assert r.floor_unsecure_ns > 0


@pytest.mark.integration
def test_messages_under_another_key_are_recorded_as_decrypt_errors_in_their_places(
    broker: Broker,
    time_url: str,  # noqa: F811
    topics: Callable[[str], str],
) -> None:
    spec = receiver_spec(
        broker,
        topics("a"),
        time_url,
        security="aes-128-cbc",
        security_key=bytes(16).hex(),
        message_count=4,
        oneway_deadline_s=1,  # the END marker does not decrypt either: the deadline ends it
    )
    (device,) = devices = [Device(spec)]
    run_oneway(
        broker,
        devices,
        [Target(topics("a"), security="aes-128-cbc", key=AES_KEY)],
        message_count=4,
    )

    assert [(r.seq, r.outcome) for r in device.records] == [(s, DECRYPT_ERROR) for s in range(4)]
    assert all(r.t_recv_ns is not None and r.unsecure_ns is not None for r in device.records)


@pytest.mark.parametrize("mechanism", ["ed25519", "ecdsa-p256", "rsa-2048-pss"])
@pytest.mark.integration
def test_payloads_signed_by_the_controller_verify_with_its_public_key_and_a_flip_is_refused(
    broker: Broker,
    time_url: str,  # noqa: F811
    topics: Callable[[str], str],
    mechanism: str,
) -> None:
    private: RSA.RsaKey | ECC.EccKey = (
        RSA.generate(2048)
        if mechanism.startswith("rsa")
        else ECC.generate(curve="ed25519" if mechanism == "ed25519" else "P-256")
    )
    public_der = private.public_key().export_key(format="DER")
    spec = receiver_spec(
        broker, topics("device"), time_url, security=mechanism, security_key=public_der.hex()
    )

    def tamper(index: int, wire: bytes) -> list[bytes]:
        if index == 5:  # one bit of the signed payload flipped
            return [bytes([wire[0] ^ 0x01]) + wire[1:]]
        return [wire]

    device = run_through_relay(
        broker,
        topics,
        spec,
        tamper,
        Target(topics("relay"), security=mechanism, key=private.export_key(format="DER")),
    )

    assert [(r.seq, r.outcome) for r in device.records] == [
        (seq, REJECTED_SIGNATURE if seq == 5 else OK) for seq in range(12)
    ]
    ok = [r for r in device.records if r.outcome == OK]
    assert device.delays_plausible(ok), delays_ms(ok)
    # The receiver timed each verification, and the null floor beside it.
    assert all(r.unsecure_ns is not None and r.unsecure_ns > 0 for r in device.records)
    assert all(r.floor_unsecure_ns is not None for r in device.records)
    signed = PAYLOAD + registry.describe(mechanism).overhead(PAYLOAD)
    size = publish_packet_size(topic=topics("device"), payload_size=signed, qos=1)
    assert {r.wire_bytes for r in device.records} == {size}


@pytest.mark.integration
def test_srup_receiver_verifies_ed25519_and_refuses_a_flipped_bit_and_a_replay(
    broker: Broker,
    time_url: str,  # noqa: F811
    topics: Callable[[str], str],
    srup_keys: dict[tuple[str, str], PartyKey],
) -> None:
    public_pem = (
        ECC.import_key((KEYS / "controller-ed25519.pem").read_bytes())
        .public_key()
        .export_key(format="PEM")
    )
    spec = receiver_spec(
        broker,
        topics("device"),
        time_url,
        protocol="srup",
        srup_signature="ed25519",
        srup_controller_public_key=public_pem,
        srup_controller_id=f"{CONTROLLER_ID:016x}",
    )

    def tamper(index: int, wire: bytes) -> list[bytes]:
        if index == 3:  # one bit of the signed data flipped
            return [wire[:-1] + bytes([wire[-1] ^ 0x01])]
        if index == 6:  # message 2, captured earlier, sent again in 6's place
            return [relay.seen[2]]
        if index == 8:  # dropped
            return []
        return [wire]

    relay = Relay(broker, topics("relay"), topics("device"), tamper)
    device = run_through_relay(
        broker,
        topics,
        spec,
        relay,
        Target(topics("relay"), srup_signer=srup_keys[("controller", "ed25519")].signer),
        srup_sender_id=CONTROLLER_ID,
    )

    outcomes = {r.seq: r.outcome for r in device.records}
    assert [r.seq for r in device.records] == list(range(12))
    assert outcomes == {
        **{seq: OK for seq in range(12)},
        3: REJECTED_SIGNATURE,
        6: REJECTED_REPLAY,
        8: LOST,
    }
    lost = device.records[8]
    assert (lost.t_recv_ns, lost.wire_bytes, lost.unsecure_ns) == (None, 0, None)
    assert lost.floor_unsecure_ns is None  # nothing arrived to unsecure
    # SRUP always verifies: every message that arrived, refused or not, has its floor.
    arrived = [r for r in device.records if r.outcome != LOST]
    assert all(r.floor_unsecure_ns is not None and r.floor_unsecure_ns > 0 for r in arrived)
    assert all(r.floor_secure_ns is None for r in device.records)
    ok = [r for r in device.records if r.outcome == OK]
    assert device.delays_plausible(ok), delays_ms(ok)
    # A SRUP data message: header 18, token 2 + 36, signature 2 + 64, data ID 2 + 4, data 2 + L.
    srup_size = 18 + 2 + 36 + 2 + 64 + 2 + 4 + 2 + PAYLOAD
    size = publish_packet_size(topic=topics("device"), payload_size=srup_size, qos=1)
    assert {r.wire_bytes for r in ok} == {size}


# -- without a broker ----------------------------------------------------------------------


def test_runner_for_picks_the_receiver_for_one_way_and_the_round_trip_runner_otherwise() -> None:
    assert runner_for("messaging", {"protocol": "mqtt", "measurement": "one_way"}) is (
        MqttOneWayReceiver
    )
    assert runner_for("messaging", {"protocol": "srup", "measurement": "one_way"}) is (
        SrupOneWayReceiver
    )
    assert runner_for("messaging", {"protocol": "mqtt", "measurement": "round_trip"}) is (
        MqttRoundTripRunner
    )
    with pytest.raises(JobSpecError, match="measurement 'both' is not supported for mqtt"):
        runner_for("messaging", {"protocol": "mqtt", "measurement": "both"})


BASE = {
    "protocol": "mqtt",
    "measurement": "one_way",
    "qos": 1,
    "payload_size": PAYLOAD,
    "message_count": 10,
    "timeout_ms": 100,
    "oneway_deadline_s": 10,
    "broker_url": "mqtt://127.0.0.1:1883",
    "topic": "isb/t",
    "time_url": "http://127.0.0.1:8000/api/agent/time/",
}


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"security": "aes-128-cbc"}, "security_key"),
        # a raw Ed25519 private key: the device must get the controller's public key only
        ({"security": "ed25519", "security_key": "00" * 32}, "public key, not a private key"),
        ({"security": "ecdsa-p256", "security_key": "abcd"}, "security_key: ecdsa-p256"),
        ({"payload_size": 15}, "payload_size"),
        ({"oneway_deadline_s": None}, "oneway_deadline_s"),
        ({"time_url": None}, "time_url"),
        ({"topic": "isb/#"}, "topic"),
        ({"protocol": "srup"}, "srup_controller_public_key"),
        ({"protocol": "srup", "security": "aes-128-cbc"}, "srup signs"),
    ],
)
def test_receiver_refuses_a_spec_it_cannot_run_saying_which_field(
    overrides: dict[str, Any], message: str
) -> None:
    spec = {**BASE, **overrides}
    with pytest.raises(JobSpecError, match=message):
        runner_for("messaging", spec).validate_spec(spec)


def test_controller_order_gives_each_device_its_count_in_a_seeded_random_order() -> None:
    def controller(seed: int) -> OneWayController:
        return OneWayController(
            LinkSpec(broker_url="mqtt://127.0.0.1:1883"),
            [Target("a"), Target("b"), Target("c")],
            message_count=50,
            payload_size=16,
            order_seed=seed,
        )

    order = controller(1).order()
    assert [order.count(i) for i in range(3)] == [50, 50, 50]
    assert order == controller(1).order()
    assert order != controller(2).order()
    assert order != sorted(order)


def test_payload_carries_seq_and_send_time_big_endian_then_filler() -> None:
    payload = build_payload(3, 0x0102030405060708, 20)
    assert payload == bytes(7) + b"\x03" + bytes(range(1, 9)) + b"\xa5" * 4


def test_applied_offset_is_the_mean_and_its_uncertainty_covers_the_drift() -> None:
    before = ClockOffset(offset_ns=250_000_000, uncertainty_ns=200_000, round_trip_ns=0, probes=8)
    after = ClockOffset(offset_ns=250_400_000, uncertainty_ns=100_000, round_trip_ns=0, probes=8)
    assert applied_offset(before, after) == (250_200_000, 400_000)
    assert applied_offset(before, None) == (250_000_000, 200_000)
