"""A device serving a run as its target (job kind ``serve``, runtime/serving.py): its MQTT-SN
gateway or CoAP echo server starts on the address it reaches the broker from, is reported
``target_serving`` with that address, carries another device's real round trips, and stops
at cancel; what cannot start is reported ``target_failed``."""

from __future__ import annotations

import socket
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from iotsecbench_contract.jobspec import SERVE, TARGET_FAILED, TARGET_SERVING

from iotsecbench_agent.jobkinds import runner_for
from iotsecbench_agent.platform.jobs import Job
from iotsecbench_agent.runners import RunClock, RunContext
from iotsecbench_agent.runtime.serving import Serving
from iotsecbench_agent.storage.recordlog import OK, Record
from mqttsn_kit import run_sn_broker
from testkit import Broker, free_port, mosquitto_binary, run_mosquitto, wait_for_listener

pytestmark = pytest.mark.integration

WAIT_S = 10.0


@pytest.fixture(scope="module")
def sn_broker() -> Iterator[Broker]:
    yield from run_sn_broker()


class Events:
    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []
        self._cond = threading.Condition()

    def report(self, fields: dict[str, Any], job: Job) -> None:
        with self._cond:
            self.seen.append({**fields, "job_id": job.job_id})
            self._cond.notify_all()

    def wait(self, event: str) -> dict[str, Any]:
        with self._cond:
            assert self._cond.wait_for(
                lambda: any(e["event"] == event for e in self.seen), timeout=WAIT_S
            ), self.seen
            return next(e for e in self.seen if e["event"] == event)


def serve_job(**spec: Any) -> Job:
    return Job(
        device_id=str(uuid.uuid4()),
        seq=1,
        issued_at=time.time(),
        expires_at=time.time() + 60,
        job_id=str(uuid.uuid4()),
        run_id=str(uuid.uuid4()),
        kind=SERVE,
        spec=spec,
        upload=None,
    )


def measure(spec: dict[str, Any]) -> list[Record]:
    records: list[Record] = []
    context = RunContext(
        run_id=str(uuid.uuid4()),
        device_id=str(uuid.uuid4()),
        clock=RunClock(),
        emit=records.append,
        stop=threading.Event(),
    )
    runner_for("messaging", spec)(spec, context).execute()
    return records


def _udp_port_free(address: str) -> bool:
    host, port = address.rsplit(":", 1)
    host = host.strip("[]")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_DGRAM) as probe:
        try:
            probe.bind((host, int(port)))
        except OSError:
            return False
        return True


def test_a_gateway_device_serves_another_devices_mqttsn_round_trips_until_cancelled(
    sn_broker: Broker,
) -> None:
    events, stop = Events(), threading.Event()
    serving = Serving(events.report, stop)
    job = serve_job(role="gateway", broker_url=sn_broker.url)
    serving.start(job)
    address = events.wait(TARGET_SERVING)["address"]
    assert address.startswith("127.0.0.1:")  # the route to a broker on 127.0.0.1

    records = measure(
        {
            "protocol": "mqttsn",
            "measurement": "round_trip",
            "qos": 1,
            "topic_id_type": "normal",
            "topic": f"iotsecbench/sn/{uuid.uuid4()}",
            "security": "none",
            "payload_size": 66,
            "message_count": 10,
            "interval_ms": 0,
            "timeout_ms": 2000,
            "mqttsn_gateway": address,
        }
    )
    assert [r.outcome for r in records] == [OK] * 10

    assert serving.cancel(job.job_id)
    serving.join(job.job_id, WAIT_S)
    assert _udp_port_free(address)
    assert not serving.cancel(job.job_id)  # gone
    assert [e["event"] for e in events.seen] == [TARGET_SERVING]


def test_a_server_device_serves_coap_at_the_runs_path_and_advertises_the_designs_host(
    sn_broker: Broker,
) -> None:
    events, stop = Events(), threading.Event()
    serving = Serving(events.report, stop)
    job = serve_job(role="server", broker_url=sn_broker.url, coap_path="bench/srv")
    serving.start(job)
    address = events.wait(TARGET_SERVING)["address"]

    records = measure(
        {
            "protocol": "coap",
            "measurement": "round_trip",
            "security": "none",
            "payload_size": 66,
            "message_count": 5,
            "interval_ms": 0,
            "timeout_ms": 2000,
            "coap_url": f"coap://{address}",
            "coap_path": "bench/srv",
        }
    )
    assert [r.outcome for r in records] == [OK] * 5
    stop.set()  # the agent stops: so does every serve job
    serving.join(job.job_id, WAIT_S)
    assert _udp_port_free(address)

    other = Events()
    advertised = Serving(other.report, threading.Event())
    named = serve_job(role="server", broker_url=sn_broker.url, advertise_host="pi-2.lab")
    advertised.start(named)
    assert other.wait(TARGET_SERVING)["address"].startswith("pi-2.lab:")
    advertised.cancel(named.job_id)
    advertised.join(named.job_id, WAIT_S)


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ({"role": "broker", "broker_url": "mqtt://127.0.0.1:1883"}, "spec.role must be one of"),
        ({"role": "gateway"}, "spec.broker_url is missing"),
        (
            {"role": "gateway", "broker_url": "mqtts://127.0.0.1:8883"},
            "mqtt:// brokers only",
        ),
        (
            {"role": "server", "broker_url": "mqtt://127.0.0.1:1883", "coap_path": "/x"},
            "spec.coap_path must be a resource path",
        ),
    ],
)
def test_a_serve_job_that_cannot_start_is_reported_failed_with_the_reason(
    spec: dict[str, Any], words: str
) -> None:
    events = Events()
    Serving(events.report, threading.Event()).start(serve_job(**spec))
    failed = events.wait(TARGET_FAILED)
    assert words in failed["message"]
    assert [e["event"] for e in events.seen] == [TARGET_FAILED]


@pytest.fixture(scope="module")
def v6_broker_url() -> Iterator[str]:
    """A Mosquitto listening on the IPv6 loopback too; its URL there, bracketed."""
    binary = mosquitto_binary()
    assert binary is not None, "mosquitto not found"
    port = free_port()
    for broker in run_mosquitto(binary, lambda _tmp: f"listener {port} ::1\n"):
        wait_for_listener(broker.process, "::1", port)
        yield f"mqtt://[::1]:{port}"


@pytest.mark.parametrize(
    ("role", "client"),
    [
        ("gateway", {"protocol": "mqttsn", "qos": 1, "topic_id_type": "normal"}),
        ("server", {"protocol": "coap", "coap_path": "bench/v6"}),
    ],
)
def test_a_target_device_on_ipv6_binds_the_v6_route_and_reports_a_bracketed_address(
    v6_broker_url: str, role: str, client: dict[str, Any]
) -> None:
    events, stop = Events(), threading.Event()
    serving = Serving(events.report, stop)
    job = serve_job(role=role, broker_url=v6_broker_url, coap_path="bench/v6")
    serving.start(job)
    address = events.wait(TARGET_SERVING)["address"]
    assert address.startswith("[::1]:")  # the route to a broker on ::1, bracketed
    target = (
        {"mqttsn_gateway": address, "topic": f"iotsecbench/sn/{uuid.uuid4()}"}
        if role == "gateway"
        else {"coap_url": f"coap://{address}"}
    )
    records = measure(
        {
            "measurement": "round_trip",
            "security": "none",
            "payload_size": 66,
            "message_count": 5,
            "interval_ms": 0,
            "timeout_ms": 2000,
            **client,
            **target,
        }
    )
    assert [r.outcome for r in records] == [OK] * 5
    assert serving.cancel(job.job_id)
    serving.join(job.job_id, WAIT_S)
    assert _udp_port_free(address)
