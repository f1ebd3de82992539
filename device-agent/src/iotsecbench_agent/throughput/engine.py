"""The throughput engine (§8 of docs/control-plane.md): how many secured packets the device
completes in a time window, as the MQTT-SN lightweight-cipher paper measured it (packets
sent in 2 s, minimum and maximum payload, against no security).

For each mechanism × payload size × repetition it runs two windows of ``window_ms``:

- ``secure``: ``mechanism.secure(payload)`` in a loop, nothing sent (the paper did not
  measure this);
- ``send``: ``secure`` and ``sendto()`` over UDP, to the agent's own sink on 127.0.0.1
  (``sink.UdpSink``, a thread draining the socket: the paper's loopback mode, the Pi
  sending to itself) or to ``spec.target`` (its network mode, to the gateway).

The plan (spec validation, limits) is ``plan``'s; ``summarize`` gives the
statistics the CLI prints.

How a window is measured, and why (see docs/throughput.md):

- **In the agent process**, no child: a window counts packets, it does not claim memory.
  ``peak_rss_kb`` is the agent's own ``VmHWM`` (interpreter, paho, the run's buffers), the
  same for every mechanism give or take its key and frame; cipher-bench (§7) is where a
  mechanism's own memory is measured. The agent's other threads (heartbeats, MQTT, the
  sink) are idle or part of the send path, so sharing the process costs the loop little.
- **The loop is tight**: per packet, a 1–4 byte counter is written into one reused payload
  buffer (a fresh payload, so nothing can be cached), ``secure`` is called, (``sendto``,)
  and ``perf_counter_ns`` is read against the deadline. No logging, no allocation beyond
  what ``secure`` and ``sendto`` do; the cyclic GC is off during a window, as ``timeit``.
- ``wall_ns`` runs from the clock read before the first packet to the one that crossed the
  deadline, so ``packets`` were all completed inside it and ``packets / wall_ns`` is the
  rate; ``cpu_ns`` is ``process_time_ns`` around the window (all threads of the agent,
  so with the local sink it includes receiving).
- ``sendto`` failing with ENOBUFS or EAGAIN (a full queue on a real interface) is a packet
  not completed; the loop goes on, and the errors are counted per window
  (``Window.send_errors``) and logged with the run's totals. Any other send error fails
  the run (ThroughputFailed).
"""

from __future__ import annotations

import errno
import gc
import logging
import socket
import statistics
import struct
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Callable, cast

from iotsecbench_agent.cipherbench.child import peak_rss_kb
from iotsecbench_agent.errors import AgentError, RunAborted
from iotsecbench_agent.kinds.plan import CellSummary, group_by_cell
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import Mechanism
from iotsecbench_agent.storage.samplelog import SECURE, SEND, Sample
from iotsecbench_agent.throughput.plan import ThroughputPlan, check_frame
from iotsecbench_agent.throughput.sink import UdpSink

logger = logging.getLogger(__name__)

BASELINE = "none"  # relative cost is packets/s of this mechanism ÷ packets/s of another
# Untimed calls per (mechanism, size) before its first window: code paths and caches warm,
# and the frame checked against MAX_UDP_PAYLOAD.
WARMUP_PACKETS = 8
# sendto errors that mean "the queue is full now", not "this cannot work".
TRANSIENT_SEND_ERRORS = frozenset({errno.ENOBUFS, errno.EAGAIN, errno.EWOULDBLOCK})


class ThroughputFailed(AgentError):
    """A window could not be measured: sending failed with a non-transient error."""


@dataclass(frozen=True)
class Window:
    """One measured window: its sample (§8), and what the send path saw.

    ``send_errors`` counts ENOBUFS/EAGAIN from ``sendto`` (packets not completed);
    ``sink_received`` is what the agent's own sink received of the window's packets and
    ``sink_dropped`` what the kernel dropped at the sink's socket (None without a local
    sink, or when ``/proc/net/udp`` cannot tell).
    """

    sample: Sample
    send_errors: int = 0
    sink_received: int | None = None
    sink_dropped: int | None = None


@dataclass(frozen=True)
class Counts:
    """What a window loop returns: completed packets, wall and CPU time, send errors."""

    packets: int
    wall_ns: int
    cpu_ns: int
    send_errors: int = 0


def _payload_counter(size: int) -> Callable[[bytearray, int, int], None]:
    """``pack(buffer, offset, n)`` writing the low bytes of ``n`` (1, 2 or 4 of them, as
    many as fit) into the payload, so consecutive packets differ."""
    fmt = "<I" if size >= 4 else "<H" if size >= 2 else "<B"
    return cast(Callable[[bytearray, int, int], None], struct.Struct(fmt).pack_into)


def _mask(size: int) -> int:
    return 0xFFFFFFFF if size >= 4 else 0xFFFF if size >= 2 else 0xFF


def secure_window(secure: Callable[[bytes], bytes], buffer: bytearray, window_ns: int) -> Counts:
    """Secure a fresh payload per packet until ``window_ns`` has passed; send nothing."""
    pack = _payload_counter(len(buffer))
    mask = _mask(len(buffer))
    # Every registry mechanism takes any bytes-like payload (a test checks each), so the
    # one buffer goes in as it is: no per-packet copy.
    payload = cast(bytes, buffer)
    clock = time.perf_counter_ns
    packets = 0
    c0 = time.process_time_ns()
    start = now = clock()
    deadline = start + window_ns
    while now < deadline:
        pack(buffer, 0, packets & mask)
        secure(payload)
        packets += 1
        now = clock()
    c1 = time.process_time_ns()
    return Counts(packets, now - start, c1 - c0)


def send_window(
    secure: Callable[[bytes], bytes],
    sendto: Callable[[bytes, Any], int],
    address: Any,
    buffer: bytearray,
    window_ns: int,
) -> Counts:
    """Secure and ``sendto`` a fresh payload per packet until ``window_ns`` has passed.

    A transient send error (ENOBUFS, EAGAIN) is a packet not completed; any other raises
    ThroughputFailed.
    """
    pack = _payload_counter(len(buffer))
    mask = _mask(len(buffer))
    payload = cast(bytes, buffer)  # see secure_window
    transient = TRANSIENT_SEND_ERRORS
    clock = time.perf_counter_ns
    packets = attempts = errors = 0
    c0 = time.process_time_ns()
    start = now = clock()
    deadline = start + window_ns
    try:
        while now < deadline:
            pack(buffer, 0, attempts & mask)
            attempts += 1
            try:
                sendto(secure(payload), address)
                packets += 1
            except OSError as exc:
                if exc.errno not in transient:
                    raise
                errors += 1
            now = clock()
    except OSError as exc:
        raise ThroughputFailed(f"sending to {address!r} failed: {exc}") from None
    c1 = time.process_time_ns()
    return Counts(packets, now - start, c1 - c0, errors)


class ThroughputEngine:
    """Runs a plan: ``open`` (keys, sockets, sink), ``run``, ``close`` (always).

    Use as a context manager, or as a runner does: setup → open, run, cleanup → close.
    """

    def __init__(self, plan: ThroughputPlan) -> None:
        self.plan = plan
        self._mechanisms: dict[str, Mechanism] = {}
        self._sock: socket.socket | None = None
        self._address: Any = None
        self.sink: UdpSink | None = None

    def open(self) -> None:
        """Build every mechanism with a fresh key (RSA key generation happens here, not in
        a window), open the sending socket, start the sink or resolve ``target``."""
        for name in self.plan.mechanisms:
            self._mechanisms[name] = registry.create(name, library=self.plan.crypto_library)
        target = self.plan.target
        if target is None:
            self.sink = UdpSink()
            family, self._address = socket.AF_INET, self.sink.address
        else:
            try:
                info = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_DGRAM)
            except OSError as exc:
                raise ThroughputFailed(f"cannot resolve {target}: {exc}") from None
            family, _, _, _, self._address = info[0]
        self._sock = socket.socket(family, socket.SOCK_DGRAM)  # blocking, as the paper's

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if self.sink is not None:
            self.sink.close()
            self.sink = None

    def __enter__(self) -> ThroughputEngine:
        try:
            self.open()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(self, *, emit: Callable[[Window], None], stop: threading.Event | None = None) -> None:
        """Measure every window of the plan in order, calling ``emit`` after each.

        Order: per mechanism, per size, per repetition, ``secure`` then ``send`` (the two
        modes alternate, so a drift of the device's speed hits both alike). Raises
        RunAborted when ``stop`` is set (checked before every window), ThroughputFailed
        when sending fails, UnsupportedJob when a frame turns out too large for UDP.
        """
        if self._sock is None:
            raise RuntimeError("ThroughputEngine.run before open")
        window_ns = self.plan.window_ms * 1_000_000
        for name in self.plan.mechanisms:
            mechanism = self._mechanisms[name]
            for size in self.plan.data_sizes:
                buffer = bytearray(size)
                self._warm_up(mechanism, size, buffer)
                for rep in range(self.plan.repetitions):
                    for operation in (SECURE, SEND):
                        if stop is not None and stop.is_set():
                            raise RunAborted(f"stopped before a {operation} window of {name}")
                        emit(self._window(mechanism, operation, size, rep, buffer, window_ns))

    def _warm_up(self, mechanism: Mechanism, size: int, buffer: bytearray) -> None:
        for _ in range(WARMUP_PACKETS):
            frame = mechanism.secure(bytes(buffer))
        check_frame(mechanism.name, size, len(frame))

    def _window(
        self,
        mechanism: Mechanism,
        operation: str,
        size: int,
        rep: int,
        buffer: bytearray,
        window_ns: int,
    ) -> Window:
        assert self._sock is not None
        sink = self.sink if operation == SEND else None
        before = sink.mark() if sink is not None else (0, None)
        enabled = gc.isenabled()
        gc.collect()
        gc.disable()  # as timeit: no collector pause inside the window
        try:
            if operation == SECURE:
                counts = secure_window(mechanism.secure, buffer, window_ns)
            else:
                counts = send_window(
                    mechanism.secure, self._sock.sendto, self._address, buffer, window_ns
                )
        finally:
            if enabled:
                gc.enable()
        received = dropped = None
        if sink is not None:
            received, dropped = sink.wait_for(before, counts.packets)
        sample = Sample(
            mechanism=mechanism.name,
            operation=operation,
            data_bytes=size,
            repetition=rep,
            wall_ns=counts.wall_ns,
            cpu_ns=counts.cpu_ns,
            peak_rss_kb=peak_rss_kb(),
            packets=counts.packets,
        )
        if operation == SEND:
            logger.debug(
                "agent.throughput_window mechanism=%s bytes=%d repetition=%d packets=%d "
                "send_errors=%d sink_received=%s sink_dropped=%s",
                mechanism.name,
                size,
                rep,
                counts.packets,
                counts.send_errors,
                received,
                dropped,
            )
        return Window(sample, counts.send_errors, received, dropped)


def run_plan(
    plan: ThroughputPlan,
    *,
    emit: Callable[[Window], None],
    stop: threading.Event | None = None,
) -> None:
    """Open an engine for ``plan``, measure every window, close it."""
    with ThroughputEngine(plan) as engine:
        engine.run(emit=emit, stop=stop)


# -- summaries ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Summary(CellSummary):
    """The statistics of one (mechanism, operation, payload size) over its windows: mean
    and sample standard deviation (n − 1) of packets per second, the cost relative to no
    security (packets/s of ``none`` ÷ packets/s of this mechanism, same operation and size;
    None without a ``none`` baseline), and the mean CPU share (CPU time ÷ wall time)."""

    packets_per_s_mean: float
    packets_per_s_std: float | None
    relative_cost: float | None
    cpu_share_mean: float


def packets_per_s(sample: Sample) -> float:
    return (sample.packets or 0) * 1e9 / sample.wall_ns if sample.wall_ns > 0 else 0.0


def summarize(samples: Iterable[Sample]) -> list[Summary]:
    """One Summary per (mechanism, operation, size), in first-seen order. The standard
    deviation needs two windows (None below); a relative cost needs ``none`` measured for
    the same operation and size, and a mechanism rate above zero."""
    groups = group_by_cell(samples)
    means = {key: statistics.mean(packets_per_s(s) for s in group) for key, group in groups.items()}
    summaries = []
    for cell, group in groups.items():
        _, operation, data_bytes = cell
        rates = [packets_per_s(s) for s in group]
        mean = means[cell]
        baseline = means.get((BASELINE, operation, data_bytes))
        summaries.append(
            Summary(
                *cell,
                n=len(group),
                packets_per_s_mean=mean,
                packets_per_s_std=statistics.stdev(rates) if len(rates) > 1 else None,
                relative_cost=baseline / mean if baseline is not None and mean > 0 else None,
                cpu_share_mean=statistics.mean(
                    s.cpu_ns / s.wall_ns if s.wall_ns > 0 else 0.0 for s in group
                ),
            )
        )
    return summaries
