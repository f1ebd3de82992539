"""Real links between network namespaces (root and /dev/net/tun needed): delay, loss, rate,
queue drops, duplication and reordering measured with UDP through the link; verification;
and teardown that leaves no namespace behind, after an exception and after SIGTERM.

Tolerances are statistical (many packets) and generous on timing, so a loaded machine
does not make them flake; the accuracy goals are measured by bench/netemu.py.
"""

from __future__ import annotations

import itertools
import os
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from iotsecbench_contract.netprofile import LinkProfile

from iotsecbench_agent.netemu import nsutil
from iotsecbench_agent.netemu.errors import BackendUnavailable, LinkError
from iotsecbench_agent.netemu.link import Link, capability, open_link
from iotsecbench_agent.netemu.verify import measure_rtts, verify

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root: network namespaces, TUN devices"),
    pytest.mark.skipif(not os.path.exists("/dev/net/tun"), reason="no /dev/net/tun here"),
]

PORT = 9000
RCVBUF = 8 << 20
SO_RCVBUFFORCE = getattr(socket, "SO_RCVBUFFORCE", 33)  # Linux; root may exceed rmem_max
_names = itertools.count()


@pytest.fixture
def name() -> str:
    """A link name of this test run alone (other runs may have links up meanwhile)."""
    return f"t{os.getpid() % 100_000}x{next(_names)}"


def our_namespaces(name: str) -> list[str]:
    return [n for n in nsutil.netns_list() if n in (f"isb-{name}", f"isb-{name}-r")]


def blast(
    link: Link, count: int, size: int, *, gap_every: int = 50, gap_s: float = 0.002
) -> list[int]:
    """Send ``count`` UDP datagrams (``size`` IP bytes, seq first) root → device and return
    the sequence numbers that arrived, in arrival order."""
    receiver = link.socket("device")
    sender = link.socket("root")
    try:
        receiver.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, RCVBUF)
        receiver.bind((link.device_ip, PORT))
        receiver.setblocking(False)
        sender.bind((link.root_ip, 0))
        filler = bytes(size - 28 - 8)
        arrived: list[int] = []
        for seq in range(count):
            sender.sendto(seq.to_bytes(8, "big") + filler, (link.device_ip, PORT))
            if seq % gap_every == gap_every - 1:
                time.sleep(gap_s)  # stay below what the TUN queue and the forwarder take
                drain(receiver, arrived, 0)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not link_idle(link):
            drain(receiver, arrived, 0.05)
        drain(receiver, arrived, 0.1)
        return arrived
    finally:
        receiver.close()
        sender.close()


def drain(sock: socket.socket, into: list[int], wait_s: float) -> None:
    if not select.select([sock], [], [], wait_s)[0]:
        return
    while True:
        try:
            into.append(int.from_bytes(sock.recv(65_535)[:8], "big"))
        except BlockingIOError:
            return


def link_idle(link: Link) -> bool:
    held: dict[str, int] = link.counters()["held"]
    return held["ingress"] == 0 and held["egress"] == 0


# -- delay -----------------------------------------------------------------------------------


def test_delay_20ms_each_way_gives_40ms_round_trips(name: str) -> None:
    # The root side in this (the host's) namespace: the path a testbed uses.
    with open_link(name, LinkProfile.parse({"both": {"delay_ms": 20}})) as link:
        assert nsutil.ip("route", "get", link.device_ip).split()[2] == link.root_if
        rtts = sorted(measure_rtts(link, probes=60, spacing_ms=5, wait_s=0.2))
    assert len(rtts) == 60
    median = rtts[len(rtts) // 2]
    assert 40 <= median <= 44, f"median round trip {median:.2f} ms"
    assert rtts[0] >= 40  # never earlier than configured


def test_verify_passes_for_the_link_and_fails_for_another_profile(name: str) -> None:
    profile = LinkProfile.parse({"both": {"rate_kbit": 384, "delay_ms": 30, "jitter_ms": 5}})
    with open_link(name, profile, isolated=True) as link:
        good = verify(link, probes=40)
        link.profile = LinkProfile.parse({"both": {"delay_ms": 60}})  # claims what it is not
        bad = verify(link, probes=20)
    assert good.ok, good.reason
    assert good.received == 40
    assert abs(good.measured_median_ms - good.expected_median_ms) <= good.tolerance_ms  # type: ignore[operator]
    assert not bad.ok
    assert "does not match" in bad.reason


# -- loss, rate, queue, duplication, reordering ----------------------------------------------


def test_loss_10_percent_over_2000_datagrams(name: str) -> None:
    with open_link(name, LinkProfile.parse({"ingress": {"loss_pct": 10}}), isolated=True) as link:
        arrived = blast(link, 2000, 100)
        counters = link.counters()["ingress"]
    assert counters["received"] == 2000  # every datagram reached the forwarder
    assert counters["dropped_loss"] == 2000 - len(arrived)
    assert (2000 - len(arrived)) / 2000 == pytest.approx(0.10, abs=0.025)


def test_rate_384_kbit_is_achieved(name: str) -> None:
    profile = LinkProfile.parse({"ingress": {"rate_kbit": 384}})
    with open_link(name, profile, isolated=True) as link:
        receiver = link.socket("device")
        sender = link.socket("root")
        receiver.bind((link.device_ip, PORT))
        receiver.settimeout(3)
        sender.bind((link.root_ip, 0))
        size, count = 1000, 60
        for seq in range(count):
            sender.sendto(seq.to_bytes(8, "big") + bytes(size - 36), (link.device_ip, PORT))
        times = []
        for _ in range(count):
            receiver.recv(2048)
            times.append(time.monotonic())
        receiver.close()
        sender.close()
    achieved_kbit = (count - 1) * size * 8 / (times[-1] - times[0]) / 1000
    assert achieved_kbit == pytest.approx(384, rel=0.05)


def test_queue_limit_tail_drops_a_burst(name: str) -> None:
    profile = LinkProfile.parse({"ingress": {"rate_kbit": 100, "limit": 10}})
    with open_link(name, profile, isolated=True) as link:
        arrived = blast(link, 50, 200, gap_every=1000)
        counters = link.counters()["ingress"]
    assert counters["dropped_queue"] >= 30
    assert len(arrived) == 50 - counters["dropped_queue"]
    assert arrived == sorted(arrived)  # a rate keeps the order


def test_duplicates_and_reordering_are_counted_and_seen(name: str) -> None:
    profile = LinkProfile.parse(
        {"ingress": {"delay_ms": 5, "duplicate_pct": 20, "reorder_pct": 30}}
    )
    with open_link(name, profile, isolated=True, seed=11) as link:
        arrived = blast(link, 400, 100, gap_every=1, gap_s=0.001)
        counters = link.counters()["ingress"]
    assert 40 <= counters["duplicated"] <= 120
    assert 70 <= counters["reordered"] <= 180
    assert len(arrived) == 400 + counters["duplicated"]
    assert counters["forwarded"] == len(arrived)
    overtaken = sum(1 for a, b in zip(arrived, arrived[1:]) if b < a)
    assert overtaken >= 20  # immediate packets overtake the ones still delayed


# -- teardown --------------------------------------------------------------------------------


def test_teardown_leaves_nothing_after_an_exception(name: str) -> None:
    seen: list[Link] = []

    def fail_inside() -> None:
        with open_link(name, LinkProfile(), isolated=False) as link:
            seen.append(link)
            assert our_namespaces(name) == [f"isb-{name}"]
            assert Path("/sys/class/net", link.root_if).exists()
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        fail_inside()
    (link,) = seen
    assert our_namespaces(name) == []
    assert not Path("/sys/class/net", link.root_if).exists()
    assert link.final_counters is not None
    assert "egress" in link.final_counters


def test_teardown_leaves_nothing_after_sigterm(name: str, tmp_path: Path) -> None:
    script = tmp_path / "hold_link.py"
    script.write_text(
        "import sys, time\n"
        "from iotsecbench_agent.netemu.link import open_link\n"
        "from iotsecbench_contract.netprofile import LinkProfile\n"
        "with open_link(sys.argv[1], LinkProfile.parse({'both': {'delay_ms': 5}})):\n"
        "    print('up', flush=True)\n"
        "    time.sleep(60)\n"
    )
    holder = subprocess.Popen(
        [sys.executable, str(script), name], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "up"
        assert our_namespaces(name) == [f"isb-{name}"]
        holder.send_signal(signal.SIGTERM)
        assert holder.wait(15) == 128 + signal.SIGTERM
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
    assert our_namespaces(name) == []
    assert not Path("/sys/class/net", f"isbr-{name}").exists()


def test_a_second_link_of_the_same_name_is_refused(name: str) -> None:
    with open_link(name, LinkProfile(), isolated=True):
        with pytest.raises(LinkError, match="exists already"), open_link(name, LinkProfile()):
            pass  # pragma: no cover
        assert sorted(our_namespaces(name)) == [f"isb-{name}", f"isb-{name}-r"]
    assert our_namespaces(name) == []


# -- what works here -------------------------------------------------------------------------


def test_capability_reports_userspace_here_and_netem_with_a_reason() -> None:
    found = capability()
    assert found["userspace"].available, found["userspace"].reason
    assert found["netem"].reason  # this CI kernel has no sch_netem; others may
    assert not [n for n in nsutil.netns_list() if n.startswith(f"isb-probe-{os.getpid()}")]


def test_userspace_backend_refuses_clearly_when_not_root() -> None:
    code = (
        "import os\n"
        "from iotsecbench_agent.netemu.link import require_userspace\n"
        "os.seteuid(65534)\n"  # after the imports: nobody cannot read root's Python
        "require_userspace()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert f"{BackendUnavailable.__name__}: needs root" in done.stderr
