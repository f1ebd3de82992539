"""A messaging run's resources (runners/resources.py): CPU time, peak memory and the bytes
its client socket(s) sent and received over the measured window, for every protocol runner
against the real broker, gateway and CoAP server. Each byte total is checked against a count
made apart from the totals' meters: the protocol's packet sizes added to the records'
per-message ``wire_bytes``, or a UDP relay in the path that counts both directions."""

from __future__ import annotations

import os
import select
import socket
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from iotsecbench_contract.resources import HEADER, PEAK_RSS_RUN, RunResources

from iotsecbench_agent.jobkinds import runner_for
from iotsecbench_agent.links.mqtt_wire import CountingSocket, OutboundMeter
from iotsecbench_agent.runners import RunClock, RunContext
from iotsecbench_agent.runners.base import _RUNNERS, Runner
from iotsecbench_agent.runners.coap_server import CoapEchoServer
from iotsecbench_agent.runners.srup_roundtrip import SrupRoundTripRunner
from iotsecbench_agent.storage.recordlog import OK, Record, RunFiles
from mqttsn_kit import run_sn_broker
from test_executor import Setup
from test_mqtt_roundtrip import spec as mqtt_spec
from test_mqttsn_roundtrip import spec as mqttsn_spec
from test_srup_keys import Keys
from test_srup_roundtrip import srup_spec
from testkit import Broker, TlsBroker

pytestmark = pytest.mark.integration

DEVICE = "6f1c1a52-3c1e-4a8e-9a57-1d0c2b7e9f10"
COUNT = 40
# MQTT 3.1.1 §3.4–3.7: PUBACK, PUBREC, PUBREL and PUBCOMP are 4 bytes (fixed header 2,
# packet id 2). Per message and direction, a round trip of QoS 1 has one of them (our
# publish's PUBACK in, our PUBACK of the echo out), QoS 2 three.
MQTT_ACK_BYTES = 4
MQTT_ACKS_PER_DIRECTION = {0: 0, 1: 1, 2: 3}
# The TLS record each 4-byte ack travels in, with OpenSSL's AES-GCM suites (header 5,
# explicit nonce 8 and tag 16 in TLS 1.2; header 5, content type 1 and tag 16 in TLS 1.3).
TLS_RECORD_OVERHEAD = {"1.2": 5 + 8 + 16, "1.3": 5 + 1 + 16}
# MQTT-SN 1.2 §5.4.13: PUBACK = Length 1, MsgType 1, TopicId 2, MsgId 2, ReturnCode 1.
MQTTSN_PUBACK_BYTES = 7


def context(
    records: list[Record], reported: list[RunResources], run_id: str | None = None
) -> RunContext:
    return RunContext(
        run_id=run_id or str(uuid.uuid4()),
        device_id=DEVICE,
        clock=RunClock(),
        emit=records.append,
        stop=threading.Event(),
        report_resources=reported.append,
    )


def run(job_spec: dict[str, Any]) -> tuple[list[Record], RunResources]:
    records: list[Record] = []
    reported: list[RunResources] = []
    runner_for("messaging", job_spec)(job_spec, context(records, reported)).execute()
    assert len(reported) == 1, "the window closes once"
    assert {r.outcome for r in records} == {OK}
    return records, reported[0]


def wire(records: list[Record]) -> int:
    return sum(r.wire_bytes for r in records)


def assert_plausible_cost(resources: RunResources) -> None:
    """CPU time spent, no more than every core over the window; a Python process's memory,
    peaked within the run (Linux resets the mark)."""
    assert resources.cpu_ns > 0
    assert resources.cpu_ns <= resources.window_ns * (os.cpu_count() or 1)
    assert resources.peak_rss_kb > 10 * 1024
    assert resources.peak_rss_scope == PEAK_RSS_RUN


# -- MQTT ---------------------------------------------------------------------------------


@pytest.mark.parametrize("qos", [0, 1, 2])
def test_mqtt_round_trip_totals_are_the_publishes_and_their_acks_when_qos_is(
    broker: Broker, qos: int
) -> None:
    records, resources = run(
        mqtt_spec(broker, qos=qos, security="aes-128-cbc", message_count=COUNT)
    )

    acks = COUNT * MQTT_ACKS_PER_DIRECTION[qos] * MQTT_ACK_BYTES
    # Out: our PUBLISHes and the acks of the echoes; in: the echoes (the same size: same
    # topic and payload) and the acks of our PUBLISHes.
    assert resources.bytes_sent == wire(records) + acks
    assert resources.bytes_received == wire(records) + acks
    assert_plausible_cost(resources)


@pytest.mark.parametrize("version", ["1.2", "1.3"])
def test_mqtt_over_tls_totals_are_tls_records_of_publishes_and_acks(
    tls_broker: TlsBroker, version: str
) -> None:
    spec = mqtt_spec(
        tls_broker.broker,
        broker_url=tls_broker.url(version),
        tls_version=version,
        ca_cert=tls_broker.pki.pem("ca.crt"),
        message_count=COUNT,
    )
    records, resources = run(spec)

    ack_records = COUNT * (MQTT_ACK_BYTES + TLS_RECORD_OVERHEAD[version])
    assert resources.bytes_sent == wire(records) + ack_records
    assert resources.bytes_received == wire(records) + ack_records
    assert_plausible_cost(resources)


def test_mqtt_ack_run_receives_only_the_pubacks(broker: Broker) -> None:
    records, resources = run(mqtt_spec(broker, measurement="ack", message_count=COUNT))

    assert resources.bytes_sent == wire(records)
    assert resources.bytes_received == COUNT * MQTT_ACK_BYTES
    assert_plausible_cost(resources)


def test_srup_totals_are_the_controllers_connection_alone(
    tls_broker: TlsBroker, srup_keys: Keys
) -> None:
    count = 10
    spec = srup_spec(tls_broker, "ed25519", message_count=count)
    records: list[Record] = []
    reported: list[RunResources] = []
    runner = SrupRoundTripRunner(spec, context(records, reported))
    runner.execute()
    (resources,) = reported

    ack_record = MQTT_ACK_BYTES + TLS_RECORD_OVERHEAD["1.3"]
    # Out: the requests, and PUBACKs for the two messages the controller gets per round
    # trip (its own request back, the peer's reply). In: those two and the request's PUBACK.
    assert resources.bytes_sent == wire(records) + 2 * count * ack_record
    assert resources.bytes_received == (wire(records) + runner.peer_wire_bytes + count * ack_record)
    assert_plausible_cost(resources)


# -- MQTT-SN -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sn_broker() -> Iterator[Broker]:
    yield from run_sn_broker()


@pytest.mark.parametrize(
    ("qos", "kind", "topic"), [(-1, "short", "rr"), (0, "normal", None), (1, "normal", None)]
)
def test_mqttsn_round_trip_totals_are_the_publishes_and_their_pubacks_when_qos_is(
    sn_broker: Broker, qos: int, kind: str, topic: str | None
) -> None:
    spec = mqttsn_spec(sn_broker, qos=qos, topic_id_type=kind, message_count=COUNT)
    if topic is not None:
        spec["topic"] = topic
    records, resources = run(spec)

    acks = COUNT * MQTTSN_PUBACK_BYTES if qos == 1 else 0
    # The gateway's PUBLISH to us has our PUBLISH's layout: the echo is as long as ours.
    assert resources.bytes_sent == wire(records) + acks
    assert resources.bytes_received == wire(records) + acks
    assert_plausible_cost(resources)


def test_mqttsn_ack_run_receives_only_the_pubacks(sn_broker: Broker) -> None:
    records, resources = run(mqttsn_spec(sn_broker, qos=1, measurement="ack", message_count=COUNT))

    assert resources.bytes_sent == wire(records)
    assert resources.bytes_received == COUNT * MQTTSN_PUBACK_BYTES
    assert_plausible_cost(resources)


# -- CoAP ----------------------------------------------------------------------------------


class CountingUdpRelay:
    """A UDP relay between one client and ``upstream`` that counts the bytes of every
    datagram in each direction before forwarding it."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.front = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.front.bind(("127.0.0.1", 0))
        self.back = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.back.connect(upstream)
        self.from_client = 0
        self.to_client = 0
        self._client: tuple[str, int] | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._relay, daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return int(self.front.getsockname()[1])

    def _relay(self) -> None:
        while not self._stop.is_set():
            readable, _, _ = select.select([self.front, self.back], [], [], 0.05)
            if self.front in readable:
                data, self._client = self.front.recvfrom(65535)
                self.from_client += len(data)
                self.back.send(data)
            if self.back in readable:
                data = self.back.recv(65535)
                if self._client is not None:
                    self.to_client += len(data)
                    self.front.sendto(data, self._client)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.front.close()
        self.back.close()


@pytest.mark.parametrize("measurement", ["round_trip", "ack"])
def test_coap_totals_are_every_datagram_a_relay_passed_each_way(measurement: str) -> None:
    server = CoapEchoServer().start()
    relay = CountingUdpRelay(("127.0.0.1", server.port))
    try:
        url = f"coap://127.0.0.1:{relay.port}/{server.path}"
        records, resources = run(
            {
                "protocol": "coap",
                "measurement": measurement,
                "security": "aes-128-cbc",
                "payload_size": 66,
                "message_count": COUNT,
                "interval_ms": 0,
                "timeout_ms": 2000,
                "coap_url": url,
            }
        )
        # CoAP's setup sends nothing: everything the relay saw is the window's. The client
        # reads the last response before the window closes, so the relay has counted it.
        sent, received = relay.from_client, relay.to_client
    finally:
        relay.close()
        server.stop()

    assert resources.bytes_sent == sent == wire(records)
    assert resources.bytes_received == received
    assert received > 0
    assert_plausible_cost(resources)


# -- the executor: the resources go up with the final chunk ----------------------------------


def test_executor_sends_the_resources_on_the_final_chunk_only(
    platform: Any, tmp_path: Path, key: Any, broker: Broker
) -> None:
    setup = Setup(platform, tmp_path, key)
    job = setup.job(broker_url=broker.url, message_count=12, qos=1, chunk_records=5)

    setup.executor.execute(job)

    chunks = platform.to(f"/api/agent/runs/{job.run_id}/records/")
    assert [c.headers.get(HEADER.lower()) is None for c in chunks] == [True, True, False]
    resources = RunResources.from_header(chunks[-1].headers[HEADER.lower()])
    saved = RunFiles.of(tmp_path, job.run_id).resources.read_text().strip()
    assert RunResources.from_header(saved) == resources
    # 12 QoS 1 round trips of 66-byte payloads on a 90-character topic (163-byte PUBLISH)
    # and a PUBACK each way per message.
    assert resources.bytes_sent == resources.bytes_received == 12 * (163 + MQTT_ACK_BYTES)
    assert_plausible_cost(resources)


# -- every runner, and the seam ------------------------------------------------------------


def test_every_messaging_runner_counts_its_sockets() -> None:
    runners = {cls for by_measurement in _RUNNERS.values() for cls in by_measurement.values()}
    assert runners
    for cls in runners:
        assert cls.traffic is not Runner.traffic, f"{cls.__name__} reports no bytes"


def test_received_bytes_are_counted_by_recv_where_the_kernel_keeps_no_count() -> None:
    ours, peer = socket.socketpair()  # AF_UNIX: no TCP_INFO
    counting = CountingSocket(ours, OutboundMeter(mqtt5=False))
    assert not counting.received.by_kernel
    peer.sendall(b"x" * 300)
    assert counting.recv(1000) == b"x" * 300
    counting.close()
    peer.close()

    assert counting.total_received() == 300  # kept after the socket closed
