"""Broker restarts mid-run through the MQTT-SN gateway (issue #17): the gateway reconnects a
client's broker connection within the run's ``reconnect_budget_s`` and restores its
subscriptions and topic ids without the client knowing; the round trip open at the cut is
recorded lost, the run goes on; past the budget the gateway ends the session and the run
fails naming the budget, with every record logged until then intact. Against a real
Mosquitto killed and started again on the same port (``restartkit``)."""

from __future__ import annotations

import logging
import signal
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from iotsecbench_contract.errors import JobSpecError

from iotsecbench_agent.brokerurl import parse_mqtt_url
from iotsecbench_agent.errors import DataPlaneError
from iotsecbench_agent.links import mqtt_link
from iotsecbench_agent.mqttsn import codec, gateway
from iotsecbench_agent.mqttsn.client import SnClient
from iotsecbench_agent.mqttsn.gateway import Gateway
from iotsecbench_agent.runners.mqttsn_roundtrip import MqttSnSpec
from iotsecbench_agent.storage.recordlog import LOST, OK
from restartkit import RestartableBroker, restartable_broker
from test_data_plane_faults import (
    Run,
    assert_lost_only_at_the_cut,
    assert_one_record_per_seq,
    outages_ms,
)

pytestmark = pytest.mark.integration

GATEWAY_LOGGER = "iotsecbench_agent.mqttsn.gateway"


@pytest.fixture
def rbroker() -> Iterator[RestartableBroker]:
    """A restartable Mosquitto whose ACL also allows one-level topics (MQTT-SN short
    topic names such as ``ab``; see mqttsn_kit)."""
    for broker in restartable_broker():
        acl = broker.conf.parent / "acl"
        acl.write_text("topic readwrite +\n" + acl.read_text())
        broker.stop(signal.SIGTERM)
        broker.start()
        yield broker


def sn_spec(broker: RestartableBroker, **overrides: Any) -> dict[str, Any]:
    return {
        "protocol": "mqttsn",
        "measurement": "round_trip",
        "qos": 1,
        "topic_id_type": "normal",
        "topic": f"iotsecbench/sn/{uuid.uuid4()}",
        "security": "none",
        "payload_size": 66,
        "message_count": 300,
        "interval_ms": 10,
        "timeout_ms": 2000,
        "broker_url": broker.url,
        **overrides,
    }


def test_the_gateway_rides_out_with_the_mqtt_links_policy() -> None:
    assert gateway.RECONNECT_FIRST_DELAY_S == mqtt_link.RECONNECT_FIRST_DELAY_S
    assert gateway.RECONNECT_MAX_DELAY_S == mqtt_link.RECONNECT_MAX_DELAY_S


def test_reconnect_budget_is_parsed_and_checked_like_the_mqtt_runners() -> None:
    base = {
        "protocol": "mqttsn",
        "topic": "iotsecbench/sn/x",
        "broker_url": "mqtt://127.0.0.1:1883",
        "payload_size": 66,
        "message_count": 1,
        "interval_ms": 0,
        "timeout_ms": 2000,
    }
    assert MqttSnSpec.parse(base).reconnect_budget_s == 30.0
    assert MqttSnSpec.parse({**base, "reconnect_budget_s": 2.5}).reconnect_budget_s == 2.5
    for bad in (-1, "30", True, 3601):
        with pytest.raises(JobSpecError, match=r"spec\.reconnect_budget_s must be a number"):
            MqttSnSpec.parse({**base, "reconnect_budget_s": bad})


@pytest.mark.parametrize(
    ("qos", "kind"), [(0, "normal"), (1, "normal"), (1, "short"), (-1, "short")]
)
def test_mqttsn_roundtrip_rides_out_a_broker_restart_behind_the_gateway(
    rbroker: RestartableBroker, caplog: pytest.LogCaptureFixture, qos: int, kind: str
) -> None:
    caplog.set_level(logging.INFO, logger=GATEWAY_LOGGER)
    topic = "sq" if kind == "short" else f"iotsecbench/sn/{uuid.uuid4()}"
    run = Run(sn_spec(rbroker, qos=qos, topic_id_type=kind, topic=topic))
    # Frozen 100 ms first: a round trip is surely open when the connection is cut.
    restart = rbroker.restart_later(after_s=1.0, down_s=1.0, frozen_s=0.1)
    run.execute()
    restart.join()

    assert run.error is None, run.error
    assert_one_record_per_seq(run.records, 300)
    lost = assert_lost_only_at_the_cut(run.records, restart.cut_wall_ns, restart.back_wall_ns)
    assert len(lost) >= 1  # the one in flight at the cut
    # One recovery per broker connection of the gateway: the client's, and at QoS -1 the
    # one carrying the unconnected PUBLISHes too.
    outages = outages_ms(caplog)
    assert len(outages) == (2 if qos == -1 else 1), outages
    for outage in outages:
        # The broker was down ~1 s; the reconnect comes within one backoff step of it.
        assert 900 <= outage <= 2500, outage
    print(
        f"mqttsn qos {qos} {kind}: lost seq {[r.seq for r in lost]}, "
        f"outage {', '.join(f'{o:.0f}' for o in outages)} ms"
    )


def test_mqttsn_roundtrip_fails_naming_the_budget_when_the_broker_stays_down(
    rbroker: RestartableBroker,
) -> None:
    run = Run(sn_spec(rbroker, reconnect_budget_s=2, timeout_ms=1000))
    restart = rbroker.restart_later(after_s=0.5, down_s=None, frozen_s=0.1)
    t0 = time.monotonic()
    run.execute()
    elapsed = time.monotonic() - t0
    restart.join()

    assert isinstance(run.error, DataPlaneError)
    message = str(run.error)
    assert "lost for longer than the reconnect budget of 2 s" in message, message
    assert "spec.reconnect_budget_s" in message
    # Gave up at the budget (the gateway's DISCONNECT), not at a later timeout.
    assert elapsed < 0.5 + 0.1 + 2 + 1.5, elapsed
    # What was measured is intact: one record per seq, ok until the cut, then lost from
    # the round trip open at the cut to the one open at the DISCONNECT (a timeout of 1 s in
    # a budget of 2 s: at most 4).
    records = run.records
    assert len(records) >= 5
    assert_one_record_per_seq(records, len(records))
    ok = [r for r in records if r.outcome == OK]
    lost = [r for r in records if r.outcome == LOST]
    assert records == ok + lost, [(r.seq, r.outcome) for r in records[-6:]]
    assert all(r.t_send_ns < restart.cut_wall_ns for r in ok)
    assert 1 <= len(lost) <= 4, [r.seq for r in lost]
    failed_after_cut_s = (time.time_ns() - restart.cut_wall_ns) / 1e9
    print(f"mqttsn budget 2 s: failed {failed_after_cut_s:.2f} s after the cut, lost {len(lost)}")


def test_gateway_restores_a_clients_subscriptions_and_topic_ids_and_defers_what_it_asks(
    rbroker: RestartableBroker, caplog: pytest.LogCaptureFixture
) -> None:
    """One client, driven by hand: after the restart its registered topic id still
    publishes and its subscription still delivers; meanwhile a QoS 1 PUBLISH is refused
    "congestion" and a SUBSCRIBE waits for the reconnect to be SUBACKed."""
    caplog.set_level(logging.INFO, logger=GATEWAY_LOGGER)
    gw = Gateway(parse_mqtt_url(rbroker.url), port=0, reconnect_budget_s=10)
    gw.start()
    client = SnClient(gw.address)
    try:
        client.connect("isb-restore", duration_s=60)
        first = f"iotsecbench/sn/{uuid.uuid4()}"
        topic_id = client.register(first)
        client.subscribe(codec.Subscribe(msg_id=client.next_msg_id(), topic_name=first, qos=1))

        rbroker.stop(signal.SIGKILL)
        deadline = time.monotonic() + 2
        while "agent.data_plane_lost" not in caplog.text and time.monotonic() < deadline:
            time.sleep(0.01)
        assert "agent.data_plane_lost client_id=isb-restore" in caplog.text
        msg_id = client.next_msg_id()
        client.send(codec.Publish(topic_id, msg_id, b"while away", qos=1))
        answer = client.receive(time.perf_counter_ns() + 1_000_000_000)
        assert answer == codec.Puback(topic_id, msg_id, codec.REJECTED_CONGESTION)
        second = "ab"  # a short topic name, subscribed while the broker is away
        sub_id = client.next_msg_id()
        client.send(
            codec.Subscribe(
                msg_id=sub_id, topic_id_type=codec.TOPIC_SHORT, topic_name=second, qos=0
            )
        )
        assert client.receive(time.perf_counter_ns() + 300_000_000) is None  # deferred

        rbroker.start()
        suback = client.receive(time.perf_counter_ns() + 3_000_000_000)
        assert isinstance(suback, codec.Suback), suback
        assert (suback.msg_id, suback.return_code) == (sub_id, codec.ACCEPTED)
        assert "agent.data_plane_reconnected client_id=isb-restore" in caplog.text

        # The old topic id and the old subscription work as before the restart.
        msg_id = client.next_msg_id()
        client.send(codec.Publish(topic_id, msg_id, b"after", qos=1))
        got = [client.receive(time.perf_counter_ns() + 2_000_000_000) for _ in range(2)]
        assert codec.Puback(topic_id, msg_id, codec.ACCEPTED) in got
        echo = next(m for m in got if isinstance(m, codec.Publish))
        assert (echo.topic_id, echo.data) == (topic_id, b"after")
        client.acknowledge(echo)
        # And the deferred subscription delivers.
        client.send(
            codec.Publish(
                codec.short_topic_id(second), 0, b"short", qos=0, topic_id_type=codec.TOPIC_SHORT
            )
        )
        short_echo = client.receive(time.perf_counter_ns() + 2_000_000_000)
        assert isinstance(short_echo, codec.Publish), short_echo
        assert short_echo.data == b"short"
    finally:
        client.close()
        gw.close()
