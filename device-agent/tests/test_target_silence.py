"""A run's named target that stops answering while it stays up (runners/target_watch.py):
the client counts unanswered messages in a row, and past both limits the run ends with a
message naming the target, the records logged until then kept. The integration test
freezes a real gateway process with SIGSTOP (it keeps its socket and its broker
connection: nothing is closed, nothing goes offline)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from iotsecbench_agent.jobkinds import runner_for
from iotsecbench_agent.runners import RunClock, RunContext
from iotsecbench_agent.runners.target_watch import (
    TARGET_SILENT_MESSAGES,
    TARGET_SILENT_S,
    TargetSilent,
    TargetWatch,
)
from iotsecbench_agent.storage.recordlog import LOST, OK, Record
from mqttsn_kit import run_sn_broker
from test_mqttsn_gateway import free_udp_port, wait_for_gwinfo
from test_serving import measure
from testkit import Broker

WAIT_S = 10.0


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_watch_fails_only_after_both_the_count_and_the_time_without_an_answer() -> None:
    clock = Clock()
    watch = TargetWatch("MQTT-SN gateway", "[::1]:10000", messages=3, seconds=5.0, now=clock)
    for _ in range(10):  # many in a row, but within 5 s: a lossy link, not a dead target
        watch.unanswered()
    watch.answered()
    clock.now = 100.0
    watch.unanswered()
    watch.unanswered()  # 95 s since the answer, but only 2 in a row
    with pytest.raises(TargetSilent) as failed:
        watch.unanswered()
    assert str(failed.value).startswith(
        "the run's MQTT-SN gateway at [::1]:10000 stopped answering: no answer to the last 3 "
        "messages in a row, for 100.0 s"
    )


def test_a_watch_without_a_named_target_never_fails() -> None:
    clock = Clock()
    watch = TargetWatch("CoAP server", None, messages=1, seconds=0.0, now=clock)
    clock.now = 1000.0
    for _ in range(100):
        watch.record(lost=True)


@pytest.fixture(scope="module")
def sn_broker() -> Iterator[Broker]:
    yield from run_sn_broker()


def gateway_process(broker: Broker, host: str, port: int) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "iotsecbench_agent", "mqttsn-gateway"]
    command += ["--broker", broker.url, "--host", host, "--port", str(port)]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def sn_spec(gateway: str, count: int) -> dict[str, Any]:
    return {
        "protocol": "mqttsn",
        "measurement": "round_trip",
        "qos": 1,
        "topic_id_type": "normal",
        "topic": f"iotsecbench/sn/{uuid.uuid4()}",
        "security": "none",
        "payload_size": 16,
        "message_count": count,
        "interval_ms": 50,
        "timeout_ms": 300,
        "mqttsn_gateway": gateway,
    }


def measure_until_frozen(
    spec: dict[str, Any], process: subprocess.Popen[bytes]
) -> tuple[list[Record], list[BaseException]]:
    """Run ``spec``; after 5 records freeze ``process`` (SIGSTOP) and wait for the run to
    end. The records and what the run raised."""
    records: list[Record] = []
    answered = threading.Event()

    def emit(record: Record) -> None:
        records.append(record)
        if len(records) == 5:
            answered.set()

    context = RunContext(
        run_id=str(uuid.uuid4()),
        device_id=str(uuid.uuid4()),
        clock=RunClock(),
        emit=emit,
        stop=threading.Event(),
    )
    failure: list[BaseException] = []

    def measure() -> None:
        try:
            runner_for("messaging", spec)(spec, context).execute()
        except BaseException as exc:  # noqa: BLE001 (the test asserts what it was)
            failure.append(exc)

    thread = threading.Thread(target=measure, daemon=True)
    thread.start()
    try:
        assert answered.wait(WAIT_S), "no round trip through the target"
        os.kill(process.pid, signal.SIGSTOP)
        thread.join(TARGET_SILENT_S + 30)
        assert not thread.is_alive(), "the run went on against a frozen target"
    finally:
        context.stop.set()
        os.kill(process.pid, signal.SIGCONT)
    return records, failure


def assert_silent_end(
    records: list[Record], failure: list[BaseException], words: str, count: int
) -> None:
    assert len(failure) == 1, failure
    assert isinstance(failure[0], TargetSilent), failure
    assert words in str(failure[0])
    outcomes = [r.outcome for r in records]
    assert outcomes[:5] == [OK] * 5  # what was measured before the freeze is kept
    silent = len(outcomes) - max(i for i, o in enumerate(outcomes) if o == OK) - 1
    assert silent >= TARGET_SILENT_MESSAGES
    assert set(outcomes[-silent:]) == {LOST}
    assert len(records) < count


@pytest.mark.integration
def test_a_client_ends_the_run_naming_its_gateway_when_the_gateway_process_is_frozen(
    sn_broker: Broker,
) -> None:
    port = free_udp_port()
    process = gateway_process(sn_broker, "127.0.0.1", port)
    try:
        wait_for_gwinfo(("127.0.0.1", port), process)
        records, failure = measure_until_frozen(sn_spec(f"127.0.0.1:{port}", 1000), process)
    finally:
        process.terminate()
        process.communicate(timeout=WAIT_S)
    assert_silent_end(records, failure, f"MQTT-SN gateway at 127.0.0.1:{port} stopped", 1000)


ECHO_SERVER = (
    "import sys, time\n"
    "from iotsecbench_agent.runners.coap_server import CoapEchoServer\n"
    "with CoapEchoServer('127.0.0.1', 0) as server:\n"
    "    print(server.url, flush=True)\n"
    "    time.sleep(600)\n"
)


@pytest.mark.integration
def test_a_client_ends_the_run_naming_its_coap_server_when_the_server_is_frozen() -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", ECHO_SERVER], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().decode().strip()
        assert url.startswith("coap://127.0.0.1:"), url
        spec = {
            "protocol": "coap",
            "measurement": "round_trip",
            "security": "none",
            "payload_size": 16,
            "message_count": 1000,
            "interval_ms": 50,
            "timeout_ms": 300,
            "coap_url": url,
        }
        records, failure = measure_until_frozen(spec, process)
    finally:
        process.terminate()
        process.communicate(timeout=WAIT_S)
    assert_silent_end(records, failure, f"CoAP server at {url} stopped answering", 1000)


@pytest.mark.integration
def test_a_client_measures_round_trips_through_a_gateway_on_ipv6_loopback(
    sn_broker: Broker,
) -> None:
    port = free_udp_port()
    process = gateway_process(sn_broker, "::1", port)
    try:
        wait_for_gwinfo(("::1", port), process)
        records = measure(sn_spec(f"[::1]:{port}", count=5))
    finally:
        process.terminate()
        process.communicate(timeout=WAIT_S)
    assert [r.outcome for r in records] == [OK] * 5
