"""Checking that a link enforces its profile before a run sends anything: UDP probe round
trips through the link, their median against the median the profile predicts.

The prediction is not just "delay out + delay back": with jitter, a rate and probes in
flight together, netem's rules (packets serialise and never overtake when a rate is set)
move the round trips. So ``predicted_rtts`` replays the probe schedule through the same
``DirectionShaper`` the forwarder uses, many times, with no I/O; the measured median must
be within max(10 %, 2 ms) of that (issue #5), and most probes must come back.

The probes themselves are the same for both backends (UDP between the link's two
addresses); only the size a shaper's rate counts differs: the IP packet for the userspace
forwarder (TUN), the Ethernet frame (+14 bytes) for netem on veth and ifb
(``Link.frame_overhead_bytes``).
"""

from __future__ import annotations

import heapq
import random
import select
import socket
import statistics
import threading
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from iotsecbench_contract.delaytables import DistTable
from iotsecbench_contract.netprofile import LinkProfile

from iotsecbench_agent.netemu.link import Link
from iotsecbench_agent.netemu.shaper import DirectionShaper

PROBES = 50
PAYLOAD_BYTES = 32
IP_UDP_HEADER_BYTES = 28
MIN_SPACING_MS = 10.0
TOLERANCE_FRACTION = 0.10
TOLERANCE_MIN_MS = 2.0
# With 10 % loss each way about a fifth of the probes are lost; fewer than half back
# means the link does not do what the profile says (or does not forward at all).
MIN_RETURNED_FRACTION = 0.5
SIMULATED_RUNS = 200
# After the last probe, wait for the slowest round trip the model predicts, plus this.
TAIL_MARGIN_S = 0.3
ECHO_PORT = 7  # inside the device namespace, which is ours alone


@dataclass(frozen=True)
class Verification:
    """The figures a run stores as proof that its link was what the profile says."""

    ok: bool
    reason: str
    expected_median_ms: float
    measured_median_ms: float | None
    measured_p95_ms: float | None
    tolerance_ms: float
    sent: int
    received: int
    spacing_ms: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def probe_spacing_ms(
    profile: LinkProfile, payload: int = PAYLOAD_BYTES, frame_overhead: int = 0
) -> float:
    """At least MIN_SPACING_MS, and twice a probe's serialisation time on the slower
    direction, so the probes themselves do not fill the queue."""
    size_bits = (payload + IP_UDP_HEADER_BYTES + frame_overhead) * 8
    rates = [d.rate_kbit for d in (profile.egress, profile.ingress) if d.rate_kbit]
    serialise_ms = max((size_bits / rate for rate in rates), default=0.0)  # kbit/s → ms
    return max(MIN_SPACING_MS, 2 * serialise_ms)


def predicted_rtts(
    profile: LinkProfile,
    tables: Mapping[str, DistTable | None],
    *,
    probes: int,
    spacing_ms: float,
    payload: int = PAYLOAD_BYTES,
    runs: int = SIMULATED_RUNS,
    seed: int = 0,
    frame_overhead: int = 0,
) -> list[float]:
    """Round trips (ms) the profile gives probes sent every ``spacing_ms``: root side →
    device side (ingress), echoed at once (egress); lost probes are left out.
    ``frame_overhead``: bytes the shaper counts beyond the IP packet."""
    size = payload + IP_UDP_HEADER_BYTES + frame_overhead
    packet = bytes(size)
    spacing = int(spacing_ms * 1e6)
    out: list[float] = []
    for run in range(runs):
        rng = random.Random(seed * 1_000_003 + run)  # noqa: S311 (emulation draws, not cryptography)
        ingress = DirectionShaper(profile.ingress, tables.get("ingress"), rng)
        egress = DirectionShaper(profile.egress, tables.get("egress"), rng)
        arrivals = _replay(ingress, [(i * spacing, i) for i in range(probes)], packet)
        back = _replay(egress, sorted((t, i) for i, t in arrivals.items()), packet)
        out.extend((t - i * spacing) / 1e6 for i, t in back.items())
    return out


def _replay(shaper: DirectionShaper, sends: list[tuple[int, int]], packet: bytes) -> dict[int, int]:
    """When each probe (first copy) leaves ``shaper``, for probes entering it at the given
    times (in time order); releases held packets as the clock passes their due time."""
    held: list[int] = []
    first: dict[int, int] = {}
    for now, probe in sends:
        while held and held[0] <= now:
            heapq.heappop(held)
            shaper.sent(len(packet))
        for due, _ in shaper.admit(packet, now):
            heapq.heappush(held, due)
            first[probe] = min(first.get(probe, due), due)
    return first


def verify(link: Link, *, probes: int = PROBES, payload: int = PAYLOAD_BYTES) -> Verification:
    """Probe ``link`` and compare the median round trip with the profile's prediction."""
    overhead = link.frame_overhead_bytes
    spacing_ms = probe_spacing_ms(link.profile, payload, overhead)
    model = predicted_rtts(
        link.profile,
        link.tables,
        probes=probes,
        spacing_ms=spacing_ms,
        payload=payload,
        frame_overhead=overhead,
    )
    if not model:
        return Verification(
            False, "the profile loses every probe", 0.0, None, None, 0.0, probes, 0, spacing_ms
        )
    expected = statistics.median(model)
    tolerance = max(TOLERANCE_FRACTION * expected, TOLERANCE_MIN_MS)
    rtts = measure_rtts(
        link, probes=probes, spacing_ms=spacing_ms, payload=payload, wait_s=max(model) / 1e3
    )
    received = len(rtts)
    if received < MIN_RETURNED_FRACTION * probes:
        reason = f"only {received} of {probes} probes came back"
        return Verification(
            False, reason, expected, None, None, tolerance, probes, received, spacing_ms
        )
    ordered = sorted(rtts)
    median = statistics.median(ordered)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    ok = abs(median - expected) <= tolerance
    reason = f"median round trip {median:.2f} ms, expected {expected:.2f} ± {tolerance:.2f} ms" + (
        "" if ok else ": the link does not match its profile"
    )
    return Verification(ok, reason, expected, median, p95, tolerance, probes, received, spacing_ms)


def measure_rtts(
    link: Link,
    *,
    probes: int,
    spacing_ms: float,
    payload: int = PAYLOAD_BYTES,
    wait_s: float = 1.0,
) -> list[float]:
    """Round trips (ms) of UDP probes sent every ``spacing_ms`` from the root side to an
    echo in the device namespace; a probe's first reply counts, lost probes are absent."""
    echo = link.socket("device")
    client = link.socket("root")
    stop = threading.Event()
    try:
        echo.bind((link.device_ip, ECHO_PORT))
        echo.settimeout(0.05)
        client.bind((link.root_ip, 0))
        client.setblocking(False)
        thread = threading.Thread(target=_echo, args=(echo, stop), daemon=True)
        thread.start()
        sent_at: dict[int, int] = {}
        rtts: dict[int, float] = {}
        spacing_ns = int(spacing_ms * 1e6)
        start = time.monotonic_ns()
        for seq in range(probes):
            send_at = start + seq * spacing_ns
            _receive_until(client, send_at, sent_at, rtts)
            sent_at[seq] = time.monotonic_ns()
            client.sendto(seq.to_bytes(8, "big") + bytes(payload - 8), (link.device_ip, ECHO_PORT))
        deadline = time.monotonic_ns() + int((wait_s + TAIL_MARGIN_S) * 1e9)
        _receive_until(client, deadline, sent_at, rtts, all_of=probes)
        stop.set()
        thread.join()
        return list(rtts.values())
    finally:
        stop.set()
        echo.close()
        client.close()


def _receive_until(
    client: socket.socket,
    until_ns: int,
    sent_at: dict[int, int],
    rtts: dict[int, float],
    all_of: int | None = None,
) -> None:
    while True:
        now = time.monotonic_ns()
        if now >= until_ns or (all_of is not None and len(rtts) >= all_of):
            return
        if not select.select([client], [], [], (until_ns - now) / 1e9)[0]:
            continue
        while True:
            try:
                data = client.recv(65_535)
            except BlockingIOError:
                break
            t = time.monotonic_ns()
            seq = int.from_bytes(data[:8], "big")
            if seq in sent_at and seq not in rtts:
                rtts[seq] = (t - sent_at[seq]) / 1e6


def _echo(sock: socket.socket, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            data, peer = sock.recvfrom(65_535)
        except socket.timeout:
            continue
        except OSError:
            return
        try:
            sock.sendto(data, peer)
        except OSError:
            return
