"""Network emulation: the userspace link emulator's accuracy (configured against measured
delay, rate and loss) and its forwarding capacity with the CPU it costs.

    make bench                      # with the other benchmarks
    .venv/bin/python bench/netemu.py [--quick]

Needs root and /dev/net/tun (it says so and exits 0 otherwise). Every link is isolated:
both ends in namespaces of its own (isb-bench*), so nothing of the host's network is
touched. Four profiles of issue #5, UDP datagrams sent one way through the shaped
direction (ingress, root → device; TIM's table applies to egress, so device → root):
  1. delay: every datagram's measured one-way delay (send → receive, one CLOCK_MONOTONIC)
     against the delay the profile drew for it (the forwarder's trace: due - arrival), so
     the error is what the emulator adds, per packet, whatever the distribution;
  2. loss: datagrams lost over the same stream, against the profile's loss;
  3. rate: a burst of 1000-byte datagrams, (n - 1) · size over first → last arrival;
  4. capacity: datagrams blasted through an unshaped link (the fast path) and a 50 ms
     delay link (the timer heap) for a few seconds: forwarded packets/s and the
     forwarder's CPU time (getrusage in the forwarder process) per packet.
Prints Markdown for docs/network-emulation.md (and docs/benchmarks.md). About 2.5 min;
``--quick`` about 40 s.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import os
import platform
import select
import shlex
import socket
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iotsecbench_agent.netemu.link import Link, capability, open_link
from iotsecbench_contract.delaytables import catalogue_dir
from iotsecbench_contract.netprofile import LinkProfile

TABLE_DIRS = [catalogue_dir()]
PORT = 9000
SO_RCVBUFFORCE = getattr(socket, "SO_RCVBUFFORCE", 33)
RCVBUF = 16 << 20
DATAGRAM_BYTES = 64  # IP bytes: 20 IP + 8 UDP + 8 seq + 28 filler
BURST_BYTES = 1000


@dataclass(frozen=True)
class Case:
    label: str
    profile: dict[str, Any]
    direction: str  # the shaped direction the datagrams go through
    spacing_ms: float  # between datagrams of the delay/loss stream
    burst: int  # datagrams of the rate burst (0: no rate to measure)


CASES = [
    Case("LAN (no shaping)", {}, "ingress", 1.0, 0),
    Case(
        "TIM.bad.3G.no_roaming (table, egress)",
        {
            "egress": {
                "delay_ms": 122.649579,
                "jitter_ms": 40.359329,
                "distribution": "table",
                "table": "TIM.bad.3G.no_roaming",
            }
        },
        "egress",
        5.0,
        0,
    ),
    Case(
        "2G EDGE (384 kbit/s, 115.6 ms)",
        {"both": {"rate_kbit": 384, "delay_ms": 115.6}},
        "ingress",
        5.0,
        100,
    ),
    Case(
        "2G GPRS + 10 % loss (40 kbit/s, 122.6 ms, jitter 40.6 ms)",
        {"both": {"rate_kbit": 40, "delay_ms": 122.6, "jitter_ms": 40.6, "loss_pct": 10}},
        "ingress",
        20.0,
        30,
    ),
]


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-p * len(ordered) // 100))))
    return ordered[rank - 1]


def ends(link: Link, direction: str) -> tuple[socket.socket, socket.socket, str]:
    """(sender, receiver, receiver address) for datagrams through ``direction``."""
    src, dst = ("root", "device") if direction == "ingress" else ("device", "root")
    sender, receiver = link.socket(src), link.socket(dst)
    address = link.device_ip if dst == "device" else link.root_ip
    receiver.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, RCVBUF)
    receiver.bind((address, PORT))
    receiver.setblocking(False)
    sender.bind((link.root_ip if src == "root" else link.device_ip, 0))
    return sender, receiver, address


def receive(sock: socket.socket, until_ns: int, into: dict[int, int]) -> None:
    while True:
        now = time.monotonic_ns()
        if now >= until_ns:
            return
        if not select.select([sock], [], [], (until_ns - now) / 1e9)[0]:
            return
        while True:
            try:
                data = sock.recv(65_535)
            except BlockingIOError:
                break
            into.setdefault(int.from_bytes(data[:8], "big"), time.monotonic_ns())


@dataclass(frozen=True)
class Stream:
    sent: int
    received: int
    configured_ms: list[float]  # per received datagram: the delay the profile drew
    measured_ms: list[float]  # per received datagram: receive - send
    errors_ms: list[float]  # measured - configured
    late_ms: list[float]  # the forwarder's part: sent - due


def stream(link: Link, case: Case, count: int, tmp: Path) -> Stream:
    sender, receiver, address = ends(link, case.direction)
    filler = bytes(DATAGRAM_BYTES - 36)
    sent_at: dict[int, int] = {}
    arrived: dict[int, int] = {}
    spacing = int(case.spacing_ms * 1e6)
    start = time.monotonic_ns()
    for seq in range(count):
        receive(receiver, start + seq * spacing, arrived)
        sent_at[seq] = time.monotonic_ns()
        sender.sendto(seq.to_bytes(8, "big") + filler, (address, PORT))
    receive(receiver, time.monotonic_ns() + 2_000_000_000, arrived)
    sender.close()
    receiver.close()
    assert link.forwarder is not None
    trace_path = tmp / f"trace-{os.getpid()}.csv"
    link.forwarder.write_trace(str(trace_path))
    drawn: dict[int, float] = {}
    late: dict[int, float] = {}
    with trace_path.open() as f:
        for row in csv.DictReader(f):
            if row["direction"] == case.direction and row["key"]:
                seq = int(row["key"], 16)
                drawn.setdefault(seq, (int(row["due_ns"]) - int(row["arrived_ns"])) / 1e6)
                late.setdefault(seq, (int(row["sent_ns"]) - int(row["due_ns"])) / 1e6)
    trace_path.unlink()
    configured, measured, errors, lates = [], [], [], []
    for seq, t in arrived.items():
        if seq in drawn:
            m = (t - sent_at[seq]) / 1e6
            configured.append(drawn[seq])
            measured.append(m)
            errors.append(m - drawn[seq])
            lates.append(late[seq])
    return Stream(count, len(arrived), configured, measured, errors, lates)


def burst_rate_kbit(link: Link, case: Case) -> float:
    sender, receiver, address = ends(link, case.direction)
    filler = bytes(BURST_BYTES - 36)
    for seq in range(case.burst):
        sender.sendto(seq.to_bytes(8, "big") + filler, (address, PORT))
    arrived: dict[int, int] = {}
    serialise_s = case.burst * BURST_BYTES * 8 / (case.profile["both"]["rate_kbit"] * 1000)
    receive(receiver, time.monotonic_ns() + int((serialise_s + 2.0) * 1e9), arrived)
    sender.close()
    receiver.close()
    times = sorted(arrived.values())
    return (len(times) - 1) * BURST_BYTES * 8 / ((times[-1] - times[0]) / 1e9) / 1000


def capacity(profile: dict[str, Any], seconds: float) -> tuple[float, float, float]:
    """(offered packets/s, forwarded packets/s, forwarder CPU µs per packet)."""
    with open_link("benchcap", LinkProfile.parse(profile), isolated=True) as link:
        sender, receiver, address = ends(link, "ingress")  # receiver never read: drops
        payload = bytes(DATAGRAM_BYTES - 28)
        before = link.counters()
        sent = 0
        start = time.monotonic()
        end = start + seconds
        while time.monotonic() < end:
            for _ in range(100):
                sender.sendto(payload, (address, PORT))
            sent += 100
        elapsed = time.monotonic() - start
        time.sleep(0.2 + profile.get("both", {}).get("delay_ms", 0) / 1000)
        after = link.counters()
        sender.close()
        receiver.close()
    forwarded = after["ingress"]["forwarded"] - before["ingress"]["forwarded"]
    cpu = (after["cpu_user_s"] + after["cpu_system_s"]) - (
        before["cpu_user_s"] + before["cpu_system_s"]
    )
    return sent / elapsed, forwarded / elapsed, cpu / max(forwarded, 1) * 1e6


def machine_note() -> str:
    model = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.partition(":")[2].strip()
                break
    except OSError:
        pass
    return (
        f"{os.cpu_count()} CPUs ({model}), load average {os.getloadavg()[0]:.2f} at start; "
        f"Python {platform.python_version()}, kernel {platform.release()}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="500 datagrams per case (~40 s)")
    args = parser.parse_args()
    count = 500 if args.quick else 2000
    cap_seconds = 1.0 if args.quick else 3.0
    userspace = capability()["userspace"]
    if not userspace.available:
        print(
            f"bench/netemu.py: skipped, the userspace backend cannot run here: {userspace.reason}"
        )
        return 0
    started = time.perf_counter()
    print(
        f"\n`{shlex.join(['bench/netemu.py', *sys.argv[1:]])}`, "
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; {machine_note()}"
    )
    tmp = Path(tempfile.gettempdir())
    print(
        f"\n### Userspace link emulator: configured against measured ({count} UDP datagrams "
        f"of {DATAGRAM_BYTES} IP bytes per case, one way through the shaped direction)\n"
    )
    print(
        "| profile | spacing | configured delay p50 / p95 (ms) | measured p50 / p95 (ms) "
        "| delay error p50 / p95 (ms) | of which forwarder late p50 / p95 (ms) "
        "| loss configured / measured | rate configured / achieved (kbit/s) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for case in CASES:
        profile = LinkProfile.parse(case.profile)
        direction = profile.direction(case.direction)
        with open_link("bench", profile, isolated=True, table_dirs=TABLE_DIRS, trace=True) as link:
            s = stream(link, case, count, tmp)
        rate = "n/a"
        if case.burst:
            with open_link("benchrate", profile, isolated=True) as link:
                rate = f"{direction.rate_kbit:g} / {burst_rate_kbit(link, case):.1f}"
        loss = (s.sent - s.received) / s.sent * 100
        print(
            f"| {case.label} | {case.spacing_ms:g} ms "
            f"| {percentile(s.configured_ms, 50):.2f} / {percentile(s.configured_ms, 95):.2f} "
            f"| {percentile(s.measured_ms, 50):.2f} / {percentile(s.measured_ms, 95):.2f} "
            f"| {percentile(s.errors_ms, 50):.3f} / {percentile(s.errors_ms, 95):.3f} "
            f"| {percentile(s.late_ms, 50):.3f} / {percentile(s.late_ms, 95):.3f} "
            f"| {direction.mean_loss * 100:.1f} % / {loss:.1f} % | {rate} |"
        )
    print(
        "\nDelay error = measured one-way delay minus the delay the profile drew for that "
        "datagram (the forwarder's trace), per datagram; goals: p50 < 1 ms, p95 < 3 ms, "
        "rate within 5 %, loss within ±1.5 pp."
    )
    print(
        f"\n### Forwarding capacity ({cap_seconds:g} s of {DATAGRAM_BYTES}-byte datagrams "
        "from one Python sender, root → device)\n"
    )
    print("| link | offered (packets/s) | forwarded (packets/s) | forwarder CPU per packet |")
    print("|---|---:|---:|---:|")
    for label, prof in (
        ("unshaped (fast path)", {}),
        ("delay 50 ms (timer heap), limit 100 000", {"both": {"delay_ms": 50, "limit": 100_000}}),
    ):
        offered, forwarded, cpu_us = capacity(prof, cap_seconds)
        print(f"| {label} | {offered:,.0f} | {forwarded:,.0f} | {cpu_us:.1f} µs |")
    print(f"\n(whole run: {time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
