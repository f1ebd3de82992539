"""Broker restarts mid-run (issue #17): the data plane rides them out within the job's
``reconnect_budget_s`` (links/mqtt_link.ride_out), the message in flight at the cut is
recorded lost, the run goes on; past the budget the run fails saying so, and every record
logged until then is intact. Against a real Mosquitto killed and started again."""

from __future__ import annotations

import logging
import re
import signal
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from iotsecbench_contract.errors import JobSpecError
from iotsecbench_contract.jobspec import DEFAULT_RECONNECT_BUDGET_S, LinkSpec
from paho.mqtt.enums import CallbackAPIVersion

from iotsecbench_agent.brokerurl import parse_mqtt_url
from iotsecbench_agent.errors import AgentError, DataPlaneError
from iotsecbench_agent.jobkinds import runner_for
from iotsecbench_agent.oneway.wire import END_SEQ, build_payload
from iotsecbench_agent.platform.controlplane import (
    ControlPlaneOptions,
    PahoControlPlane,
    Topics,
    status_message,
)
from iotsecbench_agent.runners import RunClock, RunContext
from iotsecbench_agent.storage.recordlog import LOST, OK, Record
from restartkit import RestartableBroker, restartable_broker
from test_health import AHEAD_NS, time_url  # noqa: F401 (the platform clock fixture)
from testkit import Broker, Observer

pytestmark = pytest.mark.integration

DEVICE = "6f1c1a52-3c1e-4a8e-9a57-1d0c2b7e9f10"
OUTAGE = re.compile(r"agent\.data_plane_reconnected .*outage_ms=([0-9.]+)")


@pytest.fixture
def rbroker() -> Iterator[RestartableBroker]:
    yield from restartable_broker()


def mqtt_spec(broker: RestartableBroker, **overrides: Any) -> dict[str, Any]:
    return {
        "protocol": "mqtt",
        "mqtt_version": "3.1.1",
        "qos": 1,
        "security": "none",
        "payload_size": 66,
        "message_count": 300,
        "interval_ms": 10,
        "measurement": "round_trip",
        "timeout_ms": 2000,
        "broker_url": broker.url,
        "topic": f"iotsecbench/data/{uuid.uuid4()}/{DEVICE}",
        **overrides,
    }


def srup_spec(broker: RestartableBroker, **overrides: Any) -> dict[str, Any]:
    spec = mqtt_spec(broker, protocol="srup", payload_size=16, **overrides)
    del spec["topic"]
    return spec


class Run:
    """One runner in a thread of its own, its records as they are emitted."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.records: list[Record] = []
        self.error: AgentError | None = None
        self.context = RunContext(
            run_id=str(uuid.uuid4()),
            device_id=DEVICE,
            clock=RunClock(),
            emit=self.records.append,
            stop=threading.Event(),
        )
        self.runner = runner_for("messaging", spec)(spec, self.context)

    def execute(self) -> None:
        try:
            self.runner.execute()
        except AgentError as exc:
            self.error = exc


def outages_ms(caplog: pytest.LogCaptureFixture) -> list[float]:
    return [float(m.group(1)) for r in caplog.records if (m := OUTAGE.search(r.getMessage()))]


def assert_one_record_per_seq(records: list[Record], count: int) -> None:
    assert [r.seq for r in records] == list(range(count))


def assert_lost_only_at_the_cut(records: list[Record], cut_ns: int, back_ns: int) -> list[Record]:
    """The lost records were sent before the cut (in flight then: at most one per cut,
    two if the restart is seen as two cuts); every other record is ok; nothing was sent
    while the broker was down, and the run went on after it came back."""
    lost = [r for r in records if r.outcome == LOST]
    assert len(lost) <= 2, [(r.seq, r.outcome) for r in lost]
    assert all(r.t_send_ns < cut_ns for r in lost)
    assert all(r.outcome == OK for r in records if r.outcome != LOST)
    assert not [r.seq for r in records if cut_ns < r.t_send_ns < back_ns]
    # The run went on after the broker came back.
    assert records[-1].t_send_ns > back_ns
    return lost


# A message is surely in flight at the cut: the broker is frozen 100 ms (the runner is
# then waiting for its copy), then killed.
IN_FLIGHT = "in-flight"
# SIGTERM at any moment: the cut usually falls between two messages (the 10 ms interval),
# when no round trip is open and nothing is lost.
ANY_MOMENT = "any-moment"


@pytest.mark.parametrize(
    ("qos", "cut"), [(0, IN_FLIGHT), (1, IN_FLIGHT), (2, IN_FLIGHT), (1, ANY_MOMENT)]
)
def test_mqtt_roundtrip_rides_out_a_broker_restart_and_records_the_cut_message_lost(
    rbroker: RestartableBroker, caplog: pytest.LogCaptureFixture, qos: int, cut: str
) -> None:
    caplog.set_level(logging.INFO, logger="iotsecbench_agent.links.mqtt_link")
    run = Run(mqtt_spec(rbroker, qos=qos))
    if cut == IN_FLIGHT:
        restart = rbroker.restart_later(after_s=1.0, down_s=1.0, frozen_s=0.1)
    else:
        restart = rbroker.restart_later(after_s=1.0, down_s=1.0, sig=signal.SIGTERM)
    run.execute()
    restart.join()
    assert run.error is None, run.error
    assert_one_record_per_seq(run.records, 300)
    lost = assert_lost_only_at_the_cut(run.records, restart.cut_wall_ns, restart.back_wall_ns)
    assert len(lost) == (1 if cut == IN_FLIGHT else len(lost))
    [outage] = outages_ms(caplog)
    # The broker was down ~1 s; the reconnect comes within one backoff step (0.25 s) of it.
    assert 900 <= outage <= 2500, outage
    print(f"qos {qos} {cut}: lost seq {[r.seq for r in lost]}, outage {outage:.0f} ms")


def test_mqtt_roundtrip_fails_naming_the_budget_when_the_broker_stays_down(
    rbroker: RestartableBroker, caplog: pytest.LogCaptureFixture
) -> None:
    run = Run(mqtt_spec(rbroker, reconnect_budget_s=0.5))
    restart = rbroker.restart_later(after_s=0.5, down_s=None, frozen_s=0.1)
    t0 = time.monotonic()
    run.execute()
    elapsed = time.monotonic() - t0
    restart.join()
    assert isinstance(run.error, DataPlaneError)
    message = str(run.error)
    assert "lost for longer than the reconnect budget of 0.5 s" in message, message
    assert "reconnect_budget_s" in message
    assert elapsed < 0.5 + 0.5 + 2, elapsed  # gave up at the budget, not at a timeout
    # What was measured until the cut is intact: one record per seq, in order, the last
    # one (in flight at the cut) lost, every one before it ok.
    assert len(run.records) >= 5
    assert_one_record_per_seq(run.records, len(run.records))
    assert run.records[-1].outcome == LOST
    assert all(r.outcome == OK for r in run.records[:-1])


def test_mqtt_roundtrip_with_a_zero_budget_fails_at_the_cut_as_before(
    rbroker: RestartableBroker,
) -> None:
    run = Run(mqtt_spec(rbroker, reconnect_budget_s=0))
    restart = rbroker.restart_later(after_s=0.5, down_s=0.2, frozen_s=0.1)
    run.execute()
    restart.join()
    assert isinstance(run.error, DataPlaneError)
    assert "data-plane connection failed during read" in str(run.error)
    assert_one_record_per_seq(run.records, len(run.records))
    assert run.records[-1].outcome == LOST


def test_reconnect_budget_defaults_to_30_s_and_is_checked_like_the_other_fields() -> None:
    base = {"broker_url": "mqtt://127.0.0.1:1883", "qos": 1}
    assert LinkSpec.parse(base).reconnect_budget_s == DEFAULT_RECONNECT_BUDGET_S == 30.0
    assert LinkSpec.parse({**base, "reconnect_budget_s": 0}).reconnect_budget_s == 0.0
    assert LinkSpec.parse({**base, "reconnect_budget_s": 2.5}).reconnect_budget_s == 2.5
    for bad in (-1, "30", True, 3601, float("nan")):
        with pytest.raises(JobSpecError, match=r"spec\.reconnect_budget_s must be a number"):
            LinkSpec.parse({**base, "reconnect_budget_s": bad})


# -- SRUP: two links (controller and the local echo peer) over one broker ------------------


def test_srup_roundtrip_rides_out_a_broker_restart_with_both_ends_reconnected(
    rbroker: RestartableBroker, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="iotsecbench_agent.links.mqtt_link")
    run = Run(srup_spec(rbroker, srup_signature="ed25519"))
    restart = rbroker.restart_later(after_s=1.0, down_s=1.0, frozen_s=0.1)
    run.execute()
    restart.join()
    assert run.error is None, run.error
    assert_one_record_per_seq(run.records, 300)
    lost = assert_lost_only_at_the_cut(run.records, restart.cut_wall_ns, restart.back_wall_ns)
    assert len(lost) == 1
    [outage] = outages_ms(caplog)
    assert 900 <= outage <= 2500, outage
    # The peer's replay check was not disturbed: no request after the restart refused.
    assert run.runner.peer_rejections == {}  # type: ignore[attr-defined]
    print(f"srup: lost seq {[r.seq for r in lost]}, outage {outage:.0f} ms")


def test_srup_roundtrip_fails_naming_the_budget_when_the_broker_stays_down(
    rbroker: RestartableBroker,
) -> None:
    run = Run(srup_spec(rbroker, srup_signature="ed25519", reconnect_budget_s=0.3))
    restart = rbroker.restart_later(after_s=0.5, down_s=None, frozen_s=0.1)
    run.execute()
    restart.join()
    assert isinstance(run.error, DataPlaneError)
    assert "longer than the reconnect budget of 0.3 s" in str(run.error)
    assert len(run.records) >= 5
    assert_one_record_per_seq(run.records, len(run.records))
    assert run.records[-1].outcome == LOST
    assert all(r.outcome == OK for r in run.records[:-1])


# -- one-way receiver: the controller keeps sending while the broker is down ----------------


class Sender:
    """The controller's side of a one-way run, as a plain paho client that reconnects by
    itself: one message every ``interval_s`` on the platform's clock, skipped (so lost)
    while it is not connected, then the END marker."""

    def __init__(self, broker: RestartableBroker, topic: str, payload_size: int) -> None:
        self.topic = topic
        self.payload_size = payload_size
        self.skipped: list[int] = []
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"ctl-{uuid.uuid4()}")
        client.reconnect_delay_set(1, 1)
        client.connect("127.0.0.1", broker.port)
        client.loop_start()
        # Connected (CONNACK handled) before the first send: else seq 0 counts as skipped
        # and the lost seqs are not one run around the outage (seen once on a loaded host).
        deadline = time.monotonic() + 10
        while not client.is_connected() and time.monotonic() < deadline:
            time.sleep(0.01)
        self.client = client

    def send(self, count: int, interval_s: float) -> None:
        for seq in range(count):
            t_send = time.time_ns() + AHEAD_NS
            if not self.client.is_connected():
                self.skipped.append(seq)
            else:
                payload = build_payload(seq, t_send, self.payload_size)
                self.client.publish(self.topic, payload, qos=1)
            time.sleep(interval_s)
        deadline = time.monotonic() + 10
        while not self.client.is_connected() and time.monotonic() < deadline:
            time.sleep(0.05)
        end = build_payload(END_SEQ, time.time_ns() + AHEAD_NS, self.payload_size)
        self.client.publish(self.topic, end, qos=1).wait_for_publish(5)
        self.client.disconnect()
        self.client.loop_stop()


def test_oneway_receiver_resubscribes_after_a_broker_restart_and_counts_the_gap_lost(
    rbroker: RestartableBroker,
    time_url: str,  # noqa: F811
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="iotsecbench_agent.links.mqtt_link")
    topic = f"iotsecbench/test/oneway/{uuid.uuid4().hex[:8]}"
    spec = {
        "protocol": "mqtt",
        "measurement": "one_way",
        "mqtt_version": "3.1.1",
        "qos": 1,
        "security": "none",
        "payload_size": 32,
        "message_count": 300,
        "timeout_ms": 300,
        "oneway_deadline_s": 30,
        "broker_url": rbroker.url,
        "topic": topic,
        "time_url": time_url,
    }
    run = Run(spec)
    ready = threading.Event()
    run.context.publish_event = lambda event: ready.set()
    run.context.api_token = "t0ken"  # what test_health's clock accepts
    thread = threading.Thread(target=run.execute, daemon=True)
    thread.start()
    assert ready.wait(10), run.error
    sender = Sender(rbroker, topic, 32)
    restart = rbroker.restart_later(after_s=0.5, down_s=0.5)
    sender.send(300, 0.01)
    restart.join()
    thread.join(20)
    assert not thread.is_alive()
    assert run.error is None, run.error
    assert_one_record_per_seq(run.records, 300)
    lost = [r.seq for r in run.records if r.outcome == LOST]
    assert all(r.outcome == OK for r in run.records if r.outcome != LOST)
    # Everything the sender skipped while it was cut off is lost, and at most a few more
    # (in flight at the cut, or sent before the receiver had subscribed again; the
    # receiver retries every 250 ms at most, the sender's paho every second): one run of
    # consecutive seqs.
    [outage] = outages_ms(caplog)
    assert sender.skipped
    assert set(sender.skipped) <= set(lost)
    assert lost == list(range(lost[0], lost[-1] + 1)), lost
    assert len(lost) <= len(sender.skipped) + 5, (len(lost), len(sender.skipped))
    assert run.records[-1].outcome == OK, (lost, sender.skipped)  # it went on after the restart
    print(
        f"one-way: lost {len(lost)} (seq {lost[0]}..{lost[-1]}; the sender skipped "
        f"{len(sender.skipped)}), receiver outage {outage:.0f} ms"
    )


def test_oneway_receiver_past_the_budget_records_what_arrived_then_fails_saying_why(
    rbroker: RestartableBroker,
    time_url: str,  # noqa: F811
) -> None:
    topic = f"iotsecbench/test/oneway/{uuid.uuid4().hex[:8]}"
    spec = {
        "protocol": "mqtt",
        "measurement": "one_way",
        "qos": 1,
        "payload_size": 32,
        "message_count": 100,
        "timeout_ms": 300,
        "oneway_deadline_s": 30,
        "reconnect_budget_s": 0.3,
        "broker_url": rbroker.url,
        "topic": topic,
        "time_url": time_url,
    }
    run = Run(spec)
    ready = threading.Event()
    events: list[dict[str, Any]] = []

    def event(e: dict[str, Any]) -> None:
        events.append(e)
        ready.set()

    run.context.publish_event = event
    run.context.api_token = "t0ken"
    thread = threading.Thread(target=run.execute, daemon=True)
    thread.start()
    assert ready.wait(10), run.error
    sender = Sender(rbroker, topic, 32)
    for seq in range(10):
        sender.client.publish(topic, build_payload(seq, time.time_ns() + AHEAD_NS, 32), qos=1)
    time.sleep(0.3)
    rbroker.stop()
    thread.join(10)
    sender.client.loop_stop()
    assert not thread.is_alive()
    assert isinstance(run.error, DataPlaneError)
    assert "longer than the reconnect budget of 0.3 s" in str(run.error)
    assert [(r.seq, r.outcome) for r in run.records] == [(seq, OK) for seq in range(10)]
    assert [e["event"] for e in events] == ["receiver_ready", "clock_offset"]


# -- the control plane: reconnects, subscribes again, announces itself again -----------------


def test_control_plane_reconnects_resubscribes_and_reannounces_after_a_broker_restart(
    rbroker: RestartableBroker, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="iotsecbench_agent.platform.controlplane")
    device = str(uuid.uuid4())
    topics = Topics(f"iotsecbench/agents/{device}")
    plane = PahoControlPlane(
        ControlPlaneOptions(
            broker=parse_mqtt_url(rbroker.url),
            client_id=f"iotsecbench-agent-{device}",
            will=status_message(topics, "offline"),
            birth=lambda: status_message(topics, "online"),
        )
    )
    jobs: list[bytes] = []
    got_job = threading.Condition()

    def on_job(payload: bytes) -> None:
        with got_job:
            jobs.append(payload)
            got_job.notify_all()

    plane.connect()
    try:
        plane.subscribe(topics.jobs, qos=1, handler=on_job)
        first = Observer(Broker(port=rbroker.port, process=rbroker.process), topics.status)  # type: ignore[arg-type]
        first.wait_for(lambda o: bool(o.json_on("/status")), what="the first birth")
        first.close()

        rbroker.stop()
        t_cut = time.monotonic()
        time.sleep(0.5)
        rbroker.start()  # persistence false: no retained status, no subscription survives

        # The birth again: the retained `online` status on the restarted broker is the
        # agent's own, published after the reconnect.
        observer = Observer(Broker(port=rbroker.port, process=rbroker.process), topics.status)  # type: ignore[arg-type]
        observer.wait_for(
            lambda o: any(s["state"] == "online" for s in o.json_on("/status")),
            timeout=15,
            what="the birth after the restart",
        )
        t_back = time.monotonic()
        # Subscribed again: a job published after the restart reaches the handler.
        deadline = time.monotonic() + 10
        with got_job:
            while not jobs and time.monotonic() < deadline:
                observer.publish(topics.jobs, b'{"job": "after the restart"}')
                got_job.wait(0.2)
        assert jobs[-1:] == [b'{"job": "after the restart"}']
        observer.close()
        messages = [r.getMessage() for r in caplog.records]
        assert messages.count("agent.control_plane_connected") == 2
        assert any(m.startswith("agent.control_plane_lost") for m in messages)
        print(f"control plane: announced again {1000 * (t_back - t_cut):.0f} ms after the cut")
        # Subscribing while the broker is down is kept for the next connect, not an error.
        rbroker.stop()
        time.sleep(0.2)
        plane.subscribe(f"{topics.prefix}/extra", qos=1, handler=on_job)
    finally:
        plane.disconnect()
