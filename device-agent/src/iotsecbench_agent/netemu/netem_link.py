"""The netem backend's plumbing: the same namespaces and addresses as the userspace
backend, a veth pair instead of TUN devices and a forwarder, and Linux's netem on the
device side's interface (docs/network-emulation.md, "The netem backend"):

    root side (caller's netns)                     device side (netns isb-<name>)
    10.77.<k>.1/30 veth isbr-<name> ═════════════ veth isbd-<name> 10.77.<k>.2/30
                                                   egress:  root qdisc 1: netem (device → root)
                                                   ingress: qdisc ffff: ingress, u32 filter
                                                            → mirred redirect → ifb isbi-<name>,
                                                            root qdisc 1: netem (root → device)

The ingress filter is ``u32 match u32 0 0`` (every packet; tc-mirred(8)'s own example)
rather than ``matchall``: cls_matchall is missing from some kernels (this project's CI
kernel among them), u32 is everywhere netem is. Each direction's netem comes from
netem.plan(); a measured or built-in table is written as ``<name>.dist`` into a private
directory given to tc as TC_LIB_DIR (removed once installed: the kernel has its copy).
After installing, every qdisc is read back (``tc -j -s qdisc show``) and compared with the
profile (netem.check_readback); a mismatch is an error naming the field.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from iotsecbench_contract.delaytables import DistTable
from iotsecbench_contract.netprofile import DIRECTIONS, LinkProfile

from iotsecbench_agent.netemu import nsutil, owners
from iotsecbench_agent.netemu.errors import BackendUnavailable, LinkError
from iotsecbench_agent.netemu.netem import (
    NetemPlan,
    ReadbackMismatch,
    check_readback,
    find_qdisc,
    plan,
    qdisc_stats,
)

if TYPE_CHECKING:
    from iotsecbench_agent.netemu.link import Link

TC_PATHS = ("/usr/sbin/tc", "/sbin/tc", "/usr/bin/tc")
ROOT_HANDLE = "1:"
INGRESS_HANDLE = "ffff:"
# netem on an Ethernet device (veth, and the ifb that gets the redirected frames with
# their MAC header pushed back) counts the 14-byte header towards its rate; TUN carries
# none. verify.py adds this to the probes' size when it predicts their round trips.
ETH_HLEN = 14
# Locally administered MACs, "isb" + subnet index + side: fixed so both ends can have
# permanent neighbour entries (no ARP through the shaped link, where loss would stall it).
MAC_PREFIX = "02:69:73:62"
ROOT_SIDE, DEVICE_SIDE = 1, 2


def tc_binary() -> str:
    """The ``tc`` found first on PATH, else in the usual sbin directories."""
    found = shutil.which("tc") or next((p for p in TC_PATHS if os.path.exists(p)), None)
    if found is None:
        raise BackendUnavailable("the `tc` command (iproute2) is not installed")
    return found


def tc(*args: str, netns: str | None = None, lib_dir: Path | None = None) -> str:
    """``tc [-n netns] args…``, with TC_LIB_DIR when ``lib_dir`` is given."""
    env = None if lib_dir is None else {"TC_LIB_DIR": str(lib_dir)}
    return nsutil.run([tc_binary(), *(("-n", netns) if netns else ()), *args], env=env)


def ifb_name(name: str) -> str:
    return f"isbi-{name}"


def mac(index: int, side: int) -> str:
    return f"{MAC_PREFIX}:{index:02x}:{side:02x}"


@dataclass
class NetemState:
    """What the netem backend installed for a link, for its proof."""

    plans: dict[str, NetemPlan | None]
    ifb: str | None = None
    commands: list[str] = field(default_factory=list)  # every tc command, as run
    readback: dict[str, dict[str, Any] | None] = field(default_factory=dict)

    def report(self) -> dict[str, Any]:
        return {
            "ifb": self.ifb,
            "tc": list(self.commands),
            "tables": {d: None if p is None else p.dist_name for d, p in self.plans.items()},
            "readback": self.readback,
        }


def plans(
    profile: LinkProfile, tables: Mapping[str, DistTable | None]
) -> dict[str, NetemPlan | None]:
    """Each direction's netem (None: unshaped, nothing installed); raises
    NetemUnexpressible before anything exists when netem cannot do what is asked."""
    out: dict[str, NetemPlan | None] = {}
    for direction in DIRECTIONS:
        shape = profile.direction(direction)
        out[direction] = plan(direction, shape, tables.get(direction)) if shape.shaped else None
    return out


def create_veth(link: Link) -> None:
    """The veth pair, root end in the caller's (or the isolated root) namespace, device end
    in ``link.netns``. ``gso_max_segs 1`` makes TCP hand over one segment per packet, so
    netem's loss, duplication and reordering act on wire packets (as on TUN), not on
    64 KB GSO bursts."""
    index = link.addresses.index
    nsutil.ip(
        "link", "add", link.root_if, "address", mac(index, ROOT_SIDE), "gso_max_segs", "1",
        "type", "veth", "peer", "name", link.device_if, "address", mac(index, DEVICE_SIDE),
        "netns", link.netns, "gso_max_segs", "1",
        netns=link.root_netns,
    )  # fmt: skip


def install(link: Link, plan_of: dict[str, NetemPlan | None]) -> NetemState:
    """Neighbours, the ingress redirect and the netem qdiscs, then the read-back check.
    The addresses are already up (link.py). ``link.netem`` is set first, so a failure
    half-way still leaves the proof of what was run."""
    state = NetemState(plans=plan_of)
    link.netem = state
    index = link.addresses.index
    for netns, ifname, peer_ip, side in (
        (link.root_netns, link.root_if, link.device_ip, DEVICE_SIDE),
        (link.netns, link.device_if, link.root_ip, ROOT_SIDE),
    ):
        nsutil.ip(
            "neigh", "replace", peer_ip, "lladdr", mac(index, side), "dev", ifname,
            "nud", "permanent", netns=netns,
        )  # fmt: skip
    lib_dir = owners.tables_dir(link.name)
    try:
        if any(p is not None and p.dist_text is not None for p in plan_of.values()):
            lib_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        egress, ingress = plan_of["egress"], plan_of["ingress"]
        if egress is not None:
            _netem(state, link, link.device_if, egress, lib_dir)
        if ingress is not None:
            state.ifb = ifb_name(link.name)
            nsutil.ip("link", "add", state.ifb, "type", "ifb", netns=link.netns)
            nsutil.write_sysctl(f"net/ipv6/conf/{state.ifb}/disable_ipv6", "1", link.netns)
            nsutil.ip("link", "set", "dev", state.ifb, "up", netns=link.netns)
            _tc(state, link, "qdisc", "add", "dev", link.device_if, "handle", INGRESS_HANDLE,
                "ingress")  # fmt: skip
            _tc(state, link, "filter", "add", "dev", link.device_if, "parent", INGRESS_HANDLE,
                "protocol", "all", "u32", "match", "u32", "0", "0",
                "action", "mirred", "egress", "redirect", "dev", state.ifb)  # fmt: skip
            _netem(state, link, state.ifb, ingress, lib_dir)
    finally:
        shutil.rmtree(lib_dir, ignore_errors=True)
    state.readback = read_back(link, state)
    return state


def _netem(state: NetemState, link: Link, dev: str, direction: NetemPlan, lib_dir: Path) -> None:
    if direction.dist_name is not None and direction.dist_text is not None:
        (lib_dir / f"{direction.dist_name}.dist").write_text(direction.dist_text, "ascii")
        use_lib: Path | None = lib_dir
    else:
        use_lib = None
    _tc(state, link, "qdisc", "add", "dev", dev, "root", "handle", ROOT_HANDLE, "netem",
        *direction.args, lib_dir=use_lib)  # fmt: skip


def _tc(state: NetemState, link: Link, *args: str, lib_dir: Path | None = None) -> None:
    prefix = f"TC_LIB_DIR={lib_dir} " if lib_dir is not None else ""
    state.commands.append(f"{prefix}tc -n {link.netns} {' '.join(args)}")
    tc(*args, netns=link.netns, lib_dir=lib_dir)


def show(link: Link, dev: str) -> list[dict[str, Any]]:
    """``tc -j -s qdisc show dev <dev>`` in the device namespace, parsed."""
    return _json(tc("-j", "-s", "qdisc", "show", "dev", dev, netns=link.netns), dev)


def read_back(link: Link, state: NetemState) -> dict[str, dict[str, Any] | None]:
    """Each direction's netem options as the kernel reports them; ReadbackMismatch naming
    the field when they are not what the profile asks (or something is installed that was
    not asked for)."""
    out: dict[str, dict[str, Any] | None] = {}
    device = show(link, link.device_if)
    egress = state.plans["egress"]
    if egress is not None:
        out["egress"] = check_readback("egress", link.profile.egress, find_qdisc(device, root=True))
    else:
        if find_qdisc(device, kind="netem") is not None:
            raise ReadbackMismatch(f"egress: a netem qdisc on {link.device_if} was not asked for")
        out["egress"] = None
    if state.plans["ingress"] is None or state.ifb is None:
        out["ingress"] = None
        return out
    if find_qdisc(device, kind="ingress", handle=INGRESS_HANDLE) is None:
        raise ReadbackMismatch(f"ingress: no ingress qdisc on {link.device_if}")
    filters = _json(
        tc("-j", "filter", "show", "dev", link.device_if, "parent", INGRESS_HANDLE,
           netns=link.netns),
        link.device_if,
    )  # fmt: skip
    if not any(_redirects_to(f, state.ifb) for f in filters):
        raise ReadbackMismatch(
            f"ingress: no filter on {link.device_if} redirects its packets to {state.ifb}"
        )
    out["ingress"] = check_readback(
        "ingress", link.profile.ingress, find_qdisc(show(link, state.ifb), root=True)
    )
    return out


def _redirects_to(entry: Mapping[str, Any], ifb: str) -> bool:
    options = entry.get("options")
    actions = options.get("actions", []) if isinstance(options, Mapping) else []
    return any(
        isinstance(a, Mapping)
        and a.get("kind") == "mirred"
        and a.get("mirred_action") == "redirect"
        and a.get("direction") == "egress"
        and a.get("to_dev") == ifb
        for a in actions
    )


def counters(link: Link) -> dict[str, Any]:
    """The netem qdiscs' statistics per direction (None where nothing is installed)."""
    state = link.netem
    if state is None:
        return {}
    out: dict[str, Any] = {}
    for direction, dev in (("egress", link.device_if), ("ingress", state.ifb)):
        if state.plans.get(direction) is None or dev is None:
            out[direction] = None
            continue
        out[direction] = qdisc_stats(find_qdisc(show(link, dev), kind="netem", root=True))
    return out


def _json(text: str, dev: str) -> list[dict[str, Any]]:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise LinkError(f"tc -j … dev {dev}: not JSON ({exc})") from exc
    if not isinstance(data, list):
        raise LinkError(f"tc -j … dev {dev}: expected a JSON list, got {type(data).__name__}")
    return [entry for entry in data if isinstance(entry, dict)]


# -- can this host do it? --------------------------------------------------------------------


def probe() -> tuple[bool, str]:
    """Try, in a throwaway namespace, everything the backend needs: a veth pair, a netem
    qdisc, an ifb device, an ingress qdisc and a u32 filter with a mirred redirect. (False,
    what failed and why) or (True, what was checked)."""
    name = f"probe-{os.getpid()}"
    netns = f"{owners.PREFIX}{name}"
    try:
        owners.claim(name)  # a SIGKILL during the probe leaves nothing the sweep misses
    except LinkError as exc:
        return False, str(exc)
    try:
        nsutil.netns_add(netns)
        steps: list[tuple[str, list[str]]] = [
            ("veth pair", [nsutil.ip_binary(), "-n", netns, "link", "add", "isbprobe0",
                           "type", "veth", "peer", "name", "isbprobe1"]),
            ("netem qdisc (sch_netem)", [tc_binary(), "-n", netns, "qdisc", "add", "dev",
                                         "isbprobe0", "root", "netem", "delay", "1ms"]),
            ("ifb device", [nsutil.ip_binary(), "-n", netns, "link", "add", "isbprobe2",
                            "type", "ifb"]),
            ("ingress qdisc", [tc_binary(), "-n", netns, "qdisc", "add", "dev", "isbprobe1",
                               "handle", INGRESS_HANDLE, "ingress"]),
            ("u32 filter with mirred redirect", [
                tc_binary(), "-n", netns, "filter", "add", "dev", "isbprobe1", "parent",
                INGRESS_HANDLE, "protocol", "all", "u32", "match", "u32", "0", "0",
                "action", "mirred", "egress", "redirect", "dev", "isbprobe2"]),
        ]  # fmt: skip
        for what, argv in steps:
            try:
                nsutil.run(argv)
            except LinkError as exc:
                return False, f"no {what}: {exc}"
    except (LinkError, BackendUnavailable) as exc:
        return False, str(exc)
    finally:
        try:
            nsutil.netns_delete(netns)
        except LinkError:
            pass  # the sweep retries: the registration stays
        else:
            owners.release(name)
    return True, "tc netem, veth, ifb, ingress qdisc and u32/mirred redirect work"
