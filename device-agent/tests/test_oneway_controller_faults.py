"""A broker restart in the middle of a one-way run: the platform's ``OneWayController``
rides it out within ``reconnect_budget_s`` (links/mqtt_link.ride_out), skips the messages
whose send time passed while it was cut off (never sent late in a burst), sends nothing
twice, and still sends every END marker; past the budget it fails naming it. Against a
real Mosquitto killed and started again (tests/restartkit.py), with two plain paho
subscribers standing in for the devices."""

from __future__ import annotations

import logging
import re
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from iotsecbench_contract.jobspec import LinkSpec
from paho.mqtt.enums import CallbackAPIVersion

from iotsecbench_agent.errors import DataPlaneError
from iotsecbench_agent.oneway import OneWayController, Target, TargetResult
from iotsecbench_agent.oneway.wire import parse_payload
from restartkit import RestartableBroker, restartable_broker

pytestmark = pytest.mark.integration

COUNT = 200  # messages per target
INTERVAL_MS = 10.0
PAYLOAD = 32
RECONNECTED = re.compile(r"controller\.data_plane_reconnected .*outage_ms=([0-9.]+) skipped=(\d+)")


@pytest.fixture
def rbroker() -> Iterator[RestartableBroker]:
    yield from restartable_broker()


class Subscriber:
    """A device's receiver, reduced to what the test looks at: every seq that arrived with
    its arrival time (``time.time_ns``, the controller's clock here), and the END markers.
    It reconnects every 50 ms and subscribes again on each connect, so it is back before
    the controller (whose backoff reaches 250 ms) sends again."""

    def __init__(self, broker: RestartableBroker, topic: str, qos: int) -> None:
        self.arrivals: list[tuple[int, int, int]] = []  # (seq, t_send_ns, t_recv_ns)
        self.ends = 0
        self.subscribed = threading.Event()
        self.lock = threading.Lock()
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"sub-{uuid.uuid4().hex[:8]}")
        # paho types the delays as int; floats work (it only compares and sleeps).
        client.reconnect_delay_set(0.05, 0.05)  # type: ignore[arg-type]
        client.on_connect = lambda c, u, f, rc, p: c.subscribe(topic, qos)
        client.on_subscribe = lambda *_args: self.subscribed.set()
        client.on_message = self._on_message
        client.connect("127.0.0.1", broker.port)
        client.loop_start()
        self.client = client
        assert self.subscribed.wait(5)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        t_recv = time.time_ns()
        parsed = parse_payload(bytes(message.payload))
        assert parsed is not None
        with self.lock:
            if parsed.is_end:
                self.ends += 1
            else:
                self.arrivals.append((parsed.seq, parsed.t_send_ns, t_recv))

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def controller(
    broker: RestartableBroker, topics: list[str], qos: int, **link: Any
) -> OneWayController:
    return OneWayController(
        LinkSpec(broker_url=broker.url, qos=qos, **link),
        [Target(topic=t) for t in topics],
        message_count=COUNT,
        payload_size=PAYLOAD,
        interval_ms=INTERVAL_MS,
        order_seed=7,
        run_id="faults-test",
    )


def timeline(ctl: OneWayController, results: list[TargetResult]) -> list[tuple[int, int, int]]:
    """Every message of the run in send order: (target index, seq, t_send_ns; 0 if it was
    skipped)."""
    seqs = [0] * len(results)
    out = []
    for target_index in ctl.order():
        seq = seqs[target_index]
        seqs[target_index] += 1
        out.append((target_index, seq, results[target_index].t_send_ns[seq]))
    return out


@pytest.mark.parametrize("qos", [0, 1])
def test_controller_rides_out_a_broker_restart_skipping_what_fell_due_while_cut_off(
    rbroker: RestartableBroker, caplog: pytest.LogCaptureFixture, qos: int
) -> None:
    caplog.set_level(logging.INFO, logger="iotsecbench_agent")
    topics = [f"iotsecbench/test/oneway/{uuid.uuid4().hex[:8]}" for _ in range(2)]
    subscribers = [Subscriber(rbroker, topic, qos) for topic in topics]
    ctl = controller(rbroker, topics, qos)
    restart = rbroker.restart_later(after_s=1.5, down_s=0.5)
    try:
        results = ctl.run()  # does not raise
        restart.join()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not all(s.ends for s in subscribers):
            time.sleep(0.02)
    finally:
        for subscriber in subscribers:
            subscriber.close()

    # The END markers went to every receiver.
    assert [r.end_sent for r in results] == [True, True]
    assert [s.ends >= 1 for s in subscribers] == [True, True]
    [(outage_ms, logged_skipped)] = [
        (float(m.group(1)), int(m.group(2)))
        for r in caplog.records
        if (m := RECONNECTED.search(r.getMessage()))
    ]
    assert len(ctl.outages_ns) == 1
    # The broker was down 0.5 s; the controller is back within a backoff step (250 ms).
    assert 400 <= outage_ms <= 1500, outage_ms

    # Every seq is used once: sent or skipped, never both, never twice.
    for result in results:
        assert result.next_seq == COUNT
        assert result.sent + len(result.skipped) == COUNT
        assert all(result.t_send_ns[seq] == 0 for seq in result.skipped)
    assert sum(len(r.skipped) for r in results) == logged_skipped > 0

    # The skipped messages are one run in the send order, around the outage, and their
    # number is what fell due while cut off (one per interval).
    line = timeline(ctl, results)
    gap = [i for i, (_t, _s, t_send) in enumerate(line) if t_send == 0]
    assert gap == list(range(gap[0], gap[-1] + 1)), gap
    assert abs(len(gap) - outage_ms / INTERVAL_MS) <= 0.2 * len(gap) + 3, (len(gap), outage_ms)
    before, after = line[gap[0] - 1][2], line[gap[-1] + 1][2]
    assert before < restart.cut_wall_ns + 50_000_000  # sent before the cut (or at it)
    assert after > restart.back_wall_ns  # sent after the broker was back
    # No late burst: the first send after the gap is where the schedule puts it (one
    # interval per message skipped), and no two sends of the run are closer than one
    # interval.
    intervals = (after - before) / (INTERVAL_MS * 1e6)
    assert abs(intervals - (len(gap) + 1)) <= 1.5, (intervals, len(gap))
    sends = sorted(t for _t, _s, t in line if t)
    assert min(b - a for a, b in zip(sends, sends[1:])) >= INTERVAL_MS * 1e6

    for index, (result, subscriber) in enumerate(zip(results, subscribers)):
        seqs = [seq for seq, _t_send, _t_recv in subscriber.arrivals]
        # At most once each, in order.
        assert seqs == sorted(set(seqs)), seqs
        missing = sorted(set(range(COUNT)) - set(seqs))
        # What was skipped never arrived; what is missing is one window around the cut:
        # the skipped seqs, and at most the one in flight at the cut and one or two sent
        # before this receiver had subscribed again.
        assert set(result.skipped) <= set(missing)
        assert missing == list(range(missing[0], missing[-1] + 1)), missing
        assert len(missing) <= len(result.skipped) + 3, (missing, result.skipped)
        # What arrived was sent when the controller says it was, and arrived promptly:
        # nothing was held back and delivered later.
        assert all(t_send == result.t_send_ns[seq] for seq, t_send, _ in subscriber.arrivals)
        delays_ms = [(t_recv - t_send) / 1e6 for _seq, t_send, t_recv in subscriber.arrivals]
        assert max(delays_ms) < 200, max(delays_ms)
        # The arrivals after the gap follow the schedule: never more than a few within
        # five intervals (a burst would put dozens there).
        after_gap = sorted(t_recv for seq, _t, t_recv in subscriber.arrivals if seq > missing[-1])
        window_ns = 5 * INTERVAL_MS * 1e6
        crowd = max(
            sum(1 for t in after_gap[i:] if t - start < window_ns)
            for i, start in enumerate(after_gap)
        )
        assert crowd <= 6, crowd
        print(
            f"qos {qos} target {index}: skipped {len(result.skipped)} "
            f"(seq {result.skipped[0]}..{result.skipped[-1]}), missing {len(missing)} "
            f"(seq {missing[0]}..{missing[-1]})"
        )
    print(
        f"qos {qos}: controller outage {outage_ms:.0f} ms, skipped {logged_skipped} "
        f"(broker down {(restart.back_wall_ns - restart.cut_wall_ns) / 1e6:.0f} ms)"
    )


def test_controller_past_the_budget_fails_naming_it(rbroker: RestartableBroker) -> None:
    topic = f"iotsecbench/test/oneway/{uuid.uuid4().hex[:8]}"
    ctl = controller(rbroker, [topic], 1, reconnect_budget_s=1.0)
    restart = rbroker.restart_later(after_s=0.5, down_s=None)
    with pytest.raises(DataPlaneError) as failed:
        ctl.run()
    gave_up_ns = time.time_ns()
    restart.join()
    assert "longer than the reconnect budget of 1 s" in str(failed.value)
    assert 0.9 <= (gave_up_ns - restart.cut_wall_ns) / 1e9 <= 2.0


def test_controller_stopped_while_cut_off_returns_what_it_sent(rbroker: RestartableBroker) -> None:
    topic = f"iotsecbench/test/oneway/{uuid.uuid4().hex[:8]}"
    ctl = controller(rbroker, [topic], 1)
    restart = rbroker.restart_later(after_s=0.5, down_s=None)
    threading.Timer(1.0, ctl.stop.set).start()
    started = time.monotonic()
    [result] = ctl.run()
    restart.join()
    assert time.monotonic() - started < 3  # not the 30 s budget
    assert 0 < result.sent < COUNT
    assert not result.end_sent
