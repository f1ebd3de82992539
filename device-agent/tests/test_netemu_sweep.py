"""Links left behind by a SIGKILLed process are swept (netemu/owners.py); a link whose
owner is alive never is: several agents of one host run links at the same time."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from iotsecbench_contract.netprofile import LinkProfile

from iotsecbench_agent.netemu import nsutil, owners
from iotsecbench_agent.netemu.link import open_link
from iotsecbench_agent.runtime.agent import sweep_stale_links
from netem_kit import install_fake_tc

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root: network namespaces, TUN, veth"),
    pytest.mark.skipif(not os.path.exists("/dev/net/tun"), reason="no /dev/net/tun here"),
]

_names = itertools.count()


@pytest.fixture
def name() -> str:
    return f"w{os.getpid() % 100_000}x{next(_names)}"


HOLD = (
    "import sys, time\n"
    "from iotsecbench_agent.netemu.link import open_link\n"
    "from iotsecbench_contract.netprofile import LinkProfile\n"
    "with open_link(sys.argv[1], LinkProfile.parse({'both': {'delay_ms': 5}}),\n"
    "               backend=sys.argv[2]):\n"
    "    print('up', flush=True)\n"
    "    time.sleep(120)\n"
)


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[list[subprocess.Popen[str]]]:
    """Processes holding a link; killed (and their links swept) after the test."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait()
    owners.sweep_stale()


def hold_link(
    started: list[subprocess.Popen[str]], name: str, backend: str
) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD, name, backend], stdout=subprocess.PIPE, text=True
    )
    started.append(process)
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "up"
    return process


def left(name: str) -> list[str]:
    namespaces = [n for n in nsutil.netns_list() if n in (f"isb-{name}", f"isb-{name}-r")]
    device = [f"isbr-{name}"] if Path("/sys/class/net", f"isbr-{name}").exists() else []
    return namespaces + device


@pytest.mark.parametrize("backend", ["userspace", "netem"])
def test_sweep_removes_the_link_of_a_sigkilled_process(
    name: str,
    backend: str,
    holder: list[subprocess.Popen[str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if backend == "netem":
        install_fake_tc(tmp_path, monkeypatch)  # the child inherits PATH
    process = hold_link(holder, name, backend)
    process.send_signal(signal.SIGKILL)
    process.wait()
    # SIGKILL runs no cleanup: the namespace stays, and with veth the root-side device
    # (holding 10.77.k.1) too; the TUN devices go with the forwarder, which exits when it
    # sees its parent gone (a moment later).
    if backend == "netem":
        assert left(name) == [f"isb-{name}", f"isbr-{name}"]
    else:
        assert left(name)[0] == f"isb-{name}"
    assert owners.owner_path(name).exists()

    assert name in owners.sweep_stale()

    assert left(name) == []
    assert not owners.owner_path(name).exists()


def test_sweep_keeps_the_link_of_a_live_owner(
    name: str, holder: list[subprocess.Popen[str]]
) -> None:
    process = hold_link(holder, name, "userspace")
    assert name not in owners.sweep_stale()
    assert left(name) == [f"isb-{name}", f"isbr-{name}"]
    process.send_signal(signal.SIGTERM)  # the owner tears its link down itself
    assert process.wait(15) == 128 + signal.SIGTERM
    assert left(name) == []
    assert not owners.owner_path(name).exists()


def test_a_new_link_sweeps_stale_ones_before_allocating(
    name: str, holder: list[subprocess.Popen[str]], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    install_fake_tc(tmp_path, monkeypatch)
    process = hold_link(holder, name, "netem")
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert left(name) == [f"isb-{name}", f"isbr-{name}"]
    # The dead link's 10.77.k.1 is still on isbr-<name>: the new link gets k after the sweep.
    with open_link(f"{name}n", LinkProfile()):
        assert left(name) == []
    assert left(f"{name}n") == []


def test_a_recycled_pid_is_not_taken_for_the_owner(name: str) -> None:
    me = owners.Owner.me()
    assert me.alive()
    assert not owners.Owner(me.pid, (me.start or 0) + 1).alive()
    owners.OWNER_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
    owners.owner_path(name).write_text(f"{me.pid} {(me.start or 0) + 1}\n")
    owners.owner_path(f"{name}m").write_text(f"{me.pid} {me.start}\n")
    try:
        swept = owners.sweep_stale()
        assert name in swept
        assert f"{name}m" not in swept
        assert owners.owner_path(f"{name}m").exists()
    finally:
        owners.release(f"{name}m")


def test_agent_start_sweeps_stale_links(name: str, holder: list[subprocess.Popen[str]]) -> None:
    process = hold_link(holder, name, "userspace")
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert left(name)[0] == f"isb-{name}"
    sweep_stale_links()
    assert left(name) == []


def test_a_second_claim_on_a_live_link_is_refused(name: str) -> None:
    with open_link(name, LinkProfile()):
        with pytest.raises(Exception, match="exists already"), open_link(name, LinkProfile()):
            pass  # pragma: no cover
        # The refused attempt did not take the first link's registration with it.
        assert owners.read_owner(name) == owners.Owner.me()
    assert not owners.owner_path(name).exists()
