"""The netem backend on real namespaces, a real veth pair, a real ifb device and the real
ingress qdisc and u32/mirred filter, with ``tc`` replaced by fake_tc.py for the netem
qdiscs only: this kernel has no sch_netem, so the qdisc itself is the one thing not
exercised here (the fake installs a pfifo in its place and reports what netem would).

What this shows: the exact tc commands the backend runs, that the read-back is checked
(a mismatch fails), that nothing is left after a normal end, an exception or SIGTERM, and
that a link which is not really shaped (the fake delays nothing) fails verification with
a clear reason while an unshaped LAN profile passes.
"""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from iotsecbench_contract.delaytables import catalogue_dir, load_table
from iotsecbench_contract.netprofile import LinkProfile

from iotsecbench_agent.brokerurl import parse_mqtt_url
from iotsecbench_agent.netemu import nsutil, owners
from iotsecbench_agent.netemu.errors import BackendUnavailable
from iotsecbench_agent.netemu.link import Link, open_link
from iotsecbench_agent.netemu.netem import NetemUnexpressible, ReadbackMismatch
from iotsecbench_agent.netemu.verify import verify
from iotsecbench_agent.runtime.enforcement import (
    NetworkProfileSpec,
    NotEnforced,
    choose_backend,
    enforced,
)
from netem_kit import FakeTc, install_fake_tc

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root: network namespaces, veth, tc"),
    pytest.mark.skipif(not os.path.exists("/usr/sbin/tc"), reason="no iproute2 tc here"),
]

FIXTURES = catalogue_dir()
TABLE = "TIM.bad.3G.no_roaming"
_names = itertools.count()


@pytest.fixture
def name() -> str:
    return f"n{os.getpid() % 100_000}x{next(_names)}"


@pytest.fixture
def fake_tc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeTc:
    return install_fake_tc(tmp_path, monkeypatch)


def nothing_left(name: str) -> None:
    """No namespace, root-side device, table directory or registration of link ``name``."""
    assert [n for n in nsutil.netns_list() if n in (f"isb-{name}", f"isb-{name}-r")] == []
    assert not Path("/sys/class/net", f"isbr-{name}").exists()
    assert not owners.tables_dir(name).exists()
    assert not owners.owner_path(name).exists()


def calls_for(fake: FakeTc, name: str) -> list[dict[str, Any]]:
    return [c for c in fake.calls() if f"isb-{name}" in c["argv"]]


PROFILE = {
    "egress": {"delay_ms": 122.649579, "jitter_ms": 40.359329, "distribution": "table",
               "table": TABLE, "rate_kbit": 384},
    "ingress": {"delay_ms": 20, "loss_pct": 5, "duplicate_pct": 1, "reorder_pct": 2,
                "corrupt_pct": 0.5, "limit": 200},
}  # fmt: skip


def test_netem_link_runs_these_tc_commands_and_checks_their_read_back(
    name: str, fake_tc: FakeTc
) -> None:
    profile = LinkProfile.parse(PROFILE)
    with open_link(name, profile, table_dirs=[FIXTURES], backend="netem") as link:
        assert link.backend == "netem"
        assert link.netem is not None
        ns, dev, ifb = f"isb-{name}", f"isbd-{name}", f"isbi-{name}"
        calls = calls_for(fake_tc, name)
        assert [c["argv"] for c in calls] == [
            ["-n", ns, "qdisc", "add", "dev", dev, "root", "handle", "1:", "netem",
             "limit", "1000", "delay", "122650us", "40359us", "distribution",
             "measured-egress", "rate", "384kbit"],
            ["-n", ns, "qdisc", "add", "dev", dev, "handle", "ffff:", "ingress"],
            ["-n", ns, "filter", "add", "dev", dev, "parent", "ffff:", "protocol", "all",
             "u32", "match", "u32", "0", "0", "action", "mirred", "egress", "redirect",
             "dev", ifb],
            ["-n", ns, "qdisc", "add", "dev", ifb, "root", "handle", "1:", "netem",
             "limit", "200", "delay", "20000us", "loss", "random", "5%", "duplicate", "1%",
             "reorder", "2%", "corrupt", "0.5%"],
            ["-n", ns, "-j", "-s", "qdisc", "show", "dev", dev],
            ["-n", ns, "-j", "filter", "show", "dev", dev, "parent", "ffff:"],
            ["-n", ns, "-j", "-s", "qdisc", "show", "dev", ifb],
        ]  # fmt: skip
        # The table went to tc as a file in a private TC_LIB_DIR, only for its command.
        assert calls[0]["TC_LIB_DIR"] == str(owners.tables_dir(name))
        assert [c["TC_LIB_DIR"] for c in calls[1:]] == [None] * 6
        table = fake_tc.installed()[f"{ns}|{dev}"]["table"]
        values = load_table(FIXTURES / TABLE).values
        assert table["values"] == len(values) == 4096
        assert table["sha256"] == fake_digest(values)
        assert not owners.tables_dir(name).exists()  # the kernel has its copy
        # What was read back is what the fake (as tc 6.1) reports, and it was checked.
        assert link.netem.readback == {
            "egress": fake_tc.installed()[f"{ns}|{dev}"]["options"],
            "ingress": fake_tc.installed()[f"{ns}|{ifb}"]["options"],
        }
        ingress = link.netem.readback["ingress"]
        assert ingress is not None
        assert ingress["gap"] == 1  # tc's default with reorder
        assert owners.owner_path(name).read_text().split()[0] == str(os.getpid())
        counters = link.counters()
        assert set(counters) == {"egress", "ingress"}
        assert counters["egress"]["packets"] == 0  # static neighbours: no ARP crossed
    nothing_left(name)
    assert link.final_counters is not None
    assert set(link.final_counters) == {"egress", "ingress"}


def fake_digest(values: tuple[int, ...]) -> str:
    import hashlib

    return hashlib.sha256(" ".join(map(str, values)).encode()).hexdigest()


def test_a_link_that_is_not_really_shaped_fails_verification(name: str, fake_tc: FakeTc) -> None:
    # The fake installs no delay: the probes come back in well under a millisecond.
    profile = LinkProfile.parse({"both": {"delay_ms": 20}})
    with open_link(name, profile, backend="netem") as link:
        check = verify(link)
        counters = link.counters()
    assert not check.ok
    assert check.measured_median_ms is not None
    assert check.measured_median_ms < 5
    assert check.expected_median_ms == pytest.approx(40, abs=0.5)
    assert "the link does not match its profile" in check.reason
    # The probes did cross the veth and the ifb, each counted as an Ethernet frame.
    frame = 32 + 28 + 14
    assert counters["ingress"]["packets"] == counters["egress"]["packets"] == check.received
    assert counters["egress"]["bytes"] == frame * check.received
    nothing_left(name)


def test_an_unshaped_lan_profile_passes_verification_with_no_qdisc(
    name: str, fake_tc: FakeTc
) -> None:
    with open_link(name, LinkProfile(), backend="netem") as link:
        check = verify(link)
        assert link.netem is not None
        assert link.netem.ifb is None
        assert link.netem.readback == {"egress": None, "ingress": None}
        assert link.counters() == {"egress": None, "ingress": None}
    assert check.ok, check.reason
    assert [c["argv"][2:] for c in calls_for(fake_tc, name)] == [
        ["-j", "-s", "qdisc", "show", "dev", f"isbd-{name}"]
    ]
    nothing_left(name)


def test_isolated_netem_link_keeps_both_ends_in_namespaces_of_its_own(
    name: str, fake_tc: FakeTc
) -> None:
    profile = LinkProfile.parse({"ingress": {"delay_ms": 20}})
    with open_link(name, profile, backend="netem", isolated=True) as link:
        assert sorted(n for n in nsutil.netns_list() if name in n) == [
            f"isb-{name}", f"isb-{name}-r",
        ]  # fmt: skip
        assert not Path("/sys/class/net", link.root_if).exists()  # not in the host's
        check = verify(link)
        assert link.counters()["ingress"]["packets"] == check.received
    assert not check.ok  # the fake shaped nothing
    nothing_left(name)


def test_a_read_back_mismatch_fails_the_link_naming_the_field(
    name: str, fake_tc: FakeTc, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_TC_LIE", "limit")
    profile = LinkProfile.parse({"egress": {"delay_ms": 20, "limit": 300}})
    refused = pytest.raises(
        ReadbackMismatch, match=r"^egress\.limit: asked 300, the kernel reports 301"
    )
    with refused, open_link(name, profile, backend="netem"):
        pass  # pragma: no cover
    nothing_left(name)


def test_what_netem_cannot_express_is_refused_before_anything_exists(
    name: str, fake_tc: FakeTc
) -> None:
    profile = LinkProfile.parse({"egress": {"jitter_ms": 5, "distribution": "uniform"}})
    refused = pytest.raises(NetemUnexpressible, match=r"egress\.jitter_ms")
    with refused, open_link(name, profile, backend="netem"):
        pass  # pragma: no cover
    assert calls_for(fake_tc, name) == []
    nothing_left(name)


def test_netem_link_leaves_nothing_after_an_exception(name: str, fake_tc: FakeTc) -> None:
    seen: list[Link] = []

    def fail_inside() -> None:
        profile = LinkProfile.parse(PROFILE)
        with open_link(name, profile, table_dirs=[FIXTURES], backend="netem") as link:
            seen.append(link)
            assert Path("/sys/class/net", f"isbr-{name}").exists()
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        fail_inside()
    nothing_left(name)
    assert seen[0].final_counters is not None


def test_netem_link_leaves_nothing_after_sigterm(
    name: str, fake_tc: FakeTc, tmp_path: Path
) -> None:
    script = tmp_path / "hold_link.py"
    script.write_text(
        "import sys, time\n"
        "from iotsecbench_agent.netemu.link import open_link\n"
        "from iotsecbench_contract.netprofile import LinkProfile\n"
        f"profile = LinkProfile.parse({PROFILE!r})\n"
        f"with open_link(sys.argv[1], profile, table_dirs=[{str(FIXTURES)!r}], "
        "backend='netem'):\n"
        "    print('up', flush=True)\n"
        "    time.sleep(60)\n"
    )
    holder = subprocess.Popen(
        [sys.executable, str(script), name], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "up"
        assert f"isb-{name}" in nsutil.netns_list()
        assert Path("/sys/class/net", f"isbr-{name}").exists()
        holder.send_signal(signal.SIGTERM)
        assert holder.wait(30) == 128 + signal.SIGTERM
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
    nothing_left(name)


# -- enforcement: which backend, and the proof ------------------------------------------------

BROKER = parse_mqtt_url("mqtt://127.0.0.1:1883")


def test_auto_picks_netem_where_it_works_and_userspace_where_it_does_not(
    fake_tc: FakeTc, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert choose_backend("auto") == "netem"
    assert choose_backend("userspace") == "userspace"
    monkeypatch.setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")  # the real tc: no sch_netem
    assert choose_backend("auto") == "userspace"
    with pytest.raises(BackendUnavailable, match=r"netem backend was asked for .*sch_netem"):
        choose_backend("netem")


def test_enforced_run_fails_when_netem_did_not_shape_the_link(name: str, fake_tc: FakeTc) -> None:
    network = NetworkProfileSpec("20 ms", LinkProfile.parse({"both": {"delay_ms": 20}}), {})
    proofs: list[dict[str, Any]] = []
    with pytest.raises(NotEnforced) as refused, enforced(
        network, run_id=f"{name}-run", device_id="dev", broker=BROKER,
        report=proofs.append, backend="netem",
    ):  # fmt: skip
        pass  # pragma: no cover
    message = str(refused.value)
    assert message.startswith(
        "network profile '20 ms' cannot be enforced: link verification failed: median round trip "
    )
    assert "expected 40." in message
    assert message.endswith("probes back); nothing was sent")
    assert proofs == []


def test_enforced_lan_run_reports_the_netem_backend_in_its_proof(fake_tc: FakeTc) -> None:
    network = NetworkProfileSpec("LAN", LinkProfile(), {})
    proofs: list[dict[str, Any]] = []
    with enforced(
        network, run_id=f"{os.getpid()}lan", device_id="dev", broker=BROKER,
        report=proofs.append,
    ) as path:  # fmt: skip
        assert path.link.backend == "netem"
        netns = path.link.netns
    (proof,) = proofs
    assert proof["backend"] == "netem"
    assert proof["verification"]["ok"] is True
    assert proof["netem"]["readback"] == {"egress": None, "ingress": None}
    assert proof["netem"]["counters"] == {"egress": None, "ingress": None}
    assert "forwarder" not in proof
    assert netns not in nsutil.netns_list()
