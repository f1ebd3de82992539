"""The throughput engine (§8): packets counted per window of the planned length, both
modes, every packet sent reaching the sink (or counted as dropped), fresh payloads, send
errors, frames too large for UDP, stop, and the paper's relative cost."""

from __future__ import annotations

import errno
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from iotsecbench_contract.limits import MAX_UDP_PAYLOAD
from iotsecbench_contract.mechanisms import NONE, MechanismInfo

from iotsecbench_agent.errors import RunAborted, UnsupportedJob
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import Mechanism
from iotsecbench_agent.storage.samplelog import Sample
from iotsecbench_agent.throughput.engine import (
    ThroughputFailed,
    Window,
    run_plan,
    secure_window,
    send_window,
    summarize,
)
from iotsecbench_agent.throughput.plan import Target, ThroughputPlan
from iotsecbench_agent.throughput.sink import UdpSink

WINDOW_MS = 100  # -20 % / +100 %: room for scheduler slices on a busy host
MS = 1_000_000
OPERATIONS = ("secure", "send")


def packets(sample: Sample) -> int:
    assert sample.packets is not None
    return sample.packets


def sent_to_sink(windows: list[Window]) -> list[Window]:
    return [w for w in windows if w.sample.operation == "send"]


def test_engine_counts_packets_in_both_modes_in_windows_of_the_planned_length() -> None:
    plan = ThroughputPlan.of(["none", "aes-128-cbc"], [1, 1280], 1, window_ms=WINDOW_MS)
    windows: list[Window] = []

    run_plan(plan, emit=windows.append)

    samples = [w.sample for w in windows]
    assert len(samples) == plan.total_windows == 8
    order = [(m, size, op) for m in plan.mechanisms for size in (1, 1280) for op in OPERATIONS]
    assert [(s.mechanism, s.data_bytes, s.operation) for s in samples] == order
    for s in samples:
        assert s.packets is not None
        assert s.packets > 0
        # Ends at its deadline; the upper bound leaves room for a preempted last packet.
        assert 0.8 * WINDOW_MS * MS <= s.wall_ns <= 2 * WINDOW_MS * MS
        assert s.cpu_ns > 0
        assert s.peak_rss_kb > 0
        assert s.repetition == 0
    for w in windows:
        if w.sample.operation == "secure":
            assert (w.sink_received, w.sink_dropped, w.send_errors) == (None, None, 0)
    for w in sent_to_sink(windows):
        assert w.sink_dropped is not None  # /proc/net/udp tells on Linux
        assert w.sink_received == packets(w.sample) - w.sink_dropped
    # Which mode sends more packets is a speed comparison: on a shared, loaded machine a
    # window can be preempted, so it is measured in `make bench`, never asserted here.


def test_engine_sends_to_the_target_instead_of_its_own_sink_when_one_is_given() -> None:
    receiver = UdpSink()
    try:
        host, port = receiver.address
        plan = ThroughputPlan.of(
            ["hmac-sha256"], [64], 2, window_ms=50, target=Target.parse(f"udp://{host}:{port}")
        )
        before = receiver.mark()
        windows: list[Window] = []

        run_plan(plan, emit=windows.append)

        sent = sum(packets(w.sample) for w in sent_to_sink(windows))
        received, dropped = receiver.wait_for(before, sent)
        assert sent > 0
        assert received == sent - (dropped or 0)
        assert all(w.sink_received is None for w in windows)
    finally:
        receiver.close()


def test_secure_window_gives_every_packet_a_fresh_payload_of_the_planned_size() -> None:
    for size, distinct in [(1, 256), (2, 1000), (6, 1000)]:
        payloads: list[bytes] = []

        def secure(payload: bytes, into: list[bytes] = payloads, keep: int = distinct) -> bytes:
            if len(into) < keep:
                into.append(bytes(payload))
            return payload

        counts = secure_window(secure, bytearray(size), 5 * MS)

        assert counts.packets >= distinct
        assert {len(p) for p in payloads} == {size}
        assert len(set(payloads)) == distinct


def test_send_window_counts_enobufs_and_eagain_as_not_completed_and_goes_on() -> None:
    calls: list[bytes] = []

    def sendto(frame: bytes, address: Any) -> int:
        calls.append(bytes(frame))
        if len(calls) % 3 == 1:
            raise OSError(errno.ENOBUFS, "No buffer space available")
        if len(calls) % 3 == 2:
            raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")
        return len(frame)

    counts = send_window(lambda p: p, sendto, ("127.0.0.1", 9), bytearray(8), 5 * MS)

    assert counts.send_errors > 0
    assert counts.packets + counts.send_errors == len(calls)
    assert abs(counts.send_errors - 2 * counts.packets) <= 2


def test_send_window_fails_the_run_when_sending_fails_otherwise() -> None:
    def sendto(frame: bytes, address: Any) -> int:
        raise PermissionError(errno.EPERM, "Operation not permitted")

    with pytest.raises(ThroughputFailed, match="Operation not permitted"):
        send_window(lambda p: p, sendto, ("127.0.0.1", 9), bytearray(8), 5 * MS)


@pytest.mark.parametrize(
    "name", [n for n in registry.names() if not n.startswith(("rsa-3", "rsa-4"))]
)
def test_every_mechanism_secures_the_reused_bytearray_payload_correctly(name: str) -> None:
    # The window loops hand `secure` one bytearray instead of a fresh bytes object.
    mechanism = registry.create(name)
    payload = bytearray(b"\x01\x02\x03\x04" + bytes(60))

    frame = mechanism.secure(payload)  # type: ignore[arg-type]  # bytes-like, on purpose

    assert len(frame) == len(payload) + mechanism.overhead(len(payload))
    assert mechanism.unsecure(bytes(frame)) == bytes(payload)


class Doubling(Mechanism):
    """A test mechanism whose frames are twice what its info promises."""

    def secure(self, payload: bytes) -> bytes:
        return bytes(payload) * 2

    def unsecure(self, data: bytes) -> bytes:
        return data[: len(data) // 2]


@pytest.fixture
def doubling() -> Iterator[str]:
    info = MechanismInfo(
        "test-doubling", "Doubling", "Test", NONE, 0, 0, "test", "payload || payload", None, 0
    )
    registry.register(registry.Entry(info, lambda info, key, seed, rnd: Doubling(info)))
    yield info.name
    registry.unregister(info.name)


def test_engine_fails_cleanly_when_a_frame_turns_out_too_large_for_udp(doubling: str) -> None:
    # Built as it is, not parsed: a test mechanism is not in the contract's list.
    plan = ThroughputPlan((doubling,), (40_000,), 1, window_ms=10)
    windows: list[Window] = []

    with pytest.raises(UnsupportedJob, match=r"a 40000-byte payload a 80000-byte frame, above"):
        run_plan(plan, emit=windows.append)

    assert windows == []


def test_engine_stops_before_the_next_window_when_stop_is_set() -> None:
    plan = ThroughputPlan.of(["none"], [1], 50, window_ms=20)
    stop = threading.Event()
    windows: list[Window] = []

    def emit(window: Window) -> None:
        windows.append(window)
        stop.set()

    with pytest.raises(RunAborted, match="stopped before a send window of none"):
        run_plan(plan, emit=emit, stop=stop)

    assert len(windows) == 1


def window(mechanism: str, operation: str, packets: int, wall_ms: int, cpu_ms: int) -> Sample:
    return Sample(mechanism, operation, 1280, 0, wall_ms * MS, cpu_ms * MS, 27000, packets)


def test_summaries_give_the_relative_cost_against_none_per_operation_and_size() -> None:
    samples = [
        window("none", "secure", 6000, 2000, 2000),  # 3000 packets/s
        window("none", "secure", 10000, 2000, 2000),  # 5000 packets/s
        window("none", "send", 3785, 1000, 900),
        window("lblock-cbc", "secure", 2000, 2000, 2000),  # 1000 packets/s
        window("lblock-cbc", "secure", 2000, 1000, 1000),  # 2000 packets/s
        window("lblock-cbc", "send", 2943, 1000, 800),
    ]

    summaries = {(s.mechanism, s.operation): s for s in summarize(samples)}

    none_secure = summaries[("none", "secure")]
    assert none_secure.n == 2
    assert none_secure.packets_per_s_mean == pytest.approx(4000)
    assert none_secure.packets_per_s_std == pytest.approx(1414.2136)  # n − 1
    assert none_secure.relative_cost == 1.0
    assert none_secure.cpu_share_mean == pytest.approx(1.0)
    lblock_secure = summaries[("lblock-cbc", "secure")]
    assert lblock_secure.packets_per_s_mean == pytest.approx(1500)
    assert lblock_secure.relative_cost == pytest.approx(4000 / 1500)
    lblock_send = summaries[("lblock-cbc", "send")]
    assert lblock_send.packets_per_s_std is None  # one window
    assert lblock_send.relative_cost == pytest.approx(1.286, abs=1e-3)  # the paper's 28.6 %
    assert lblock_send.cpu_share_mean == pytest.approx(0.8)


def test_summaries_have_no_relative_cost_without_none() -> None:
    samples = [window("aes-128-cbc", "secure", 100, 1000, 1000)]

    (summary,) = summarize(samples)

    assert summary.relative_cost is None
    assert summary.packets_per_s_mean == pytest.approx(100)


def test_sink_counts_what_reaches_it_and_stops_when_closed() -> None:
    sink = UdpSink()
    before = sink.mark()

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sender:
        for _ in range(100):
            sender.sendto(b"x" * 100, sink.address)

    assert sink.wait_for(before, 100) == (100, 0)
    sink.close()
    sink.close()  # idempotent
    assert not sink._thread.is_alive()


def test_max_udp_payload_is_the_ipv4_limit() -> None:
    assert MAX_UDP_PAYLOAD == 65535 - 8 - 20
