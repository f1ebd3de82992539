"""An emulated link between the caller's network namespace (the "root side": where the
platform or broker runs) and a namespace of the device's own, ``isb-<name>``:

    root side (caller's netns)                       device side (netns isb-<name>)
    10.77.<k>.1/30 on TUN isbr-<name>                10.77.<k>.2/30 on TUN isbd-<name>
            │   ▲                                            ▲   │
            ▼   │  ingress: root → device (profile.ingress)  │   ▼
            forwarder child process  ─────────────────────────  (one per link)
                   egress: device → root (profile.egress)

That is the ``userspace`` backend. The ``netem`` backend (netem_link.py) keeps the names,
namespaces and addresses but joins the two sides with a veth pair and shapes with the
kernel's netem on the device side's interface (egress) and on an ifb device its ingress is
redirected to.

With ``isolated=True`` the root side is a second namespace of ours, ``isb-<name>-r``, so
tests and benchmarks touch nothing of the host's network. Every name the project creates
starts with ``isb``; only the /30 route of the root-side TUN device is added to the
caller's namespace, and no default route is added on the device side, so traffic from the
device namespace can reach the root side's address and nothing else.

``open_link`` is a context manager that always removes what it created: at exit, on error,
on SIGTERM (when nobody else handles it), and at interpreter exit; a link left behind by a
SIGKILLed process is removed by the next ``open_link`` or agent start (owners.py).
"""

from __future__ import annotations

import atexit
import contextlib
import ipaddress
import os
import re
import signal
import socket
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from iotsecbench_contract.delaytables import DistTable, resolve
from iotsecbench_contract.netprofile import DIRECTIONS, LinkProfile

from iotsecbench_agent.netemu import netem_link, nsutil, owners
from iotsecbench_agent.netemu.emulator import ForwarderProcess, ForwarderSetup
from iotsecbench_agent.netemu.errors import BackendUnavailable, LinkError, NetemuError
from iotsecbench_agent.netemu.netem import NetemPlan

PREFIX = owners.PREFIX
USERSPACE = "userspace"
NETEM = "netem"
BACKENDS = (NETEM, USERSPACE)
# Names end up in interface names (IFNAMSIZ: 15 characters): "isbr-" + 10.
NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,9}$")
# The project's private range: one /30 per link in 10.77.<k>.0/30, k = 0–255.
SUBNET_PREFIX = "10.77"
MAX_LINKS = 256
MTU = 1500


@dataclass(frozen=True)
class Addresses:
    index: int

    @property
    def root_ip(self) -> str:
        return f"{SUBNET_PREFIX}.{self.index}.1"

    @property
    def device_ip(self) -> str:
        return f"{SUBNET_PREFIX}.{self.index}.2"

    @property
    def network(self) -> str:
        return f"{SUBNET_PREFIX}.{self.index}.0/30"


class Link:
    """A link that is up: its names and addresses, the forwarder's counters, sockets on
    either side. Made by ``open_link``; closed by leaving its ``with`` block."""

    def __init__(
        self,
        name: str,
        profile: LinkProfile,
        addresses: Addresses,
        *,
        isolated: bool,
        backend: str = USERSPACE,
    ) -> None:
        self.name = name
        self.backend = backend
        self.profile = profile
        self.addresses = addresses
        self.netns = f"{PREFIX}{name}"
        self.root_netns: str | None = f"{PREFIX}{name}-r" if isolated else None
        self.root_if = f"isbr-{name}"
        self.device_if = f"isbd-{name}"
        self.forwarder: ForwarderProcess | None = None  # userspace backend
        self.netem: netem_link.NetemState | None = None  # netem backend
        self.tables: dict[str, DistTable | None] = {}  # per direction, as enforced
        self.final_counters: dict[str, Any] | None = None
        self._created: list[str] = []  # namespaces, in creation order
        self._claimed = False  # registered as ours in owners.py
        self._closed = False

    @property
    def frame_overhead_bytes(self) -> int:
        """Bytes the shaper counts per packet beyond the IP packet (its rate's unit)."""
        return netem_link.ETH_HLEN if self.backend == NETEM else 0

    @property
    def root_ip(self) -> str:
        return self.addresses.root_ip

    @property
    def device_ip(self) -> str:
        return self.addresses.device_ip

    def socket(self, side: str, kind: int = socket.SOCK_DGRAM) -> socket.socket:
        """An IPv4 socket on the ``root`` or ``device`` side of the link."""
        if side not in ("root", "device"):
            raise ValueError(f"side {side!r} is not 'root' or 'device'")
        return nsutil.socket_in(self.netns if side == "device" else self.root_netns, kind)

    def counters(self) -> dict[str, Any]:
        """The forwarder's counters (per direction, and its CPU time) or the netem qdiscs'
        statistics (per direction), as a dict; after ``close`` the last ones read."""
        if self.forwarder is not None:
            return self.forwarder.counters()
        if self.netem is not None and not self._closed:
            return netem_link.counters(self)
        return self.final_counters or {}

    def close(self) -> None:
        """Stop the forwarder and remove every namespace and device; idempotent."""
        if self._closed:
            return
        self._closed = True
        errors: list[str] = []
        if self.forwarder is not None:
            try:
                self.final_counters = self.forwarder.stop()
            except LinkError as exc:
                errors.append(str(exc))
            self.forwarder = None
        if self.netem is not None and self._created:
            try:  # the qdiscs' statistics go with the namespace: read them first
                self.final_counters = netem_link.counters(self)
            except NetemuError as exc:
                self.final_counters = {"error": str(exc)}
        # A veth pair goes at once with either end; with its namespace only later (the
        # kernel cleans up a deleted namespace asynchronously): delete the root end first.
        # The userspace backend's root TUN went with the forwarder, unless it hangs.
        if self.backend == NETEM:
            _delete_root_device(self, errors)
        for netns in reversed(self._created):
            try:
                nsutil.netns_delete(netns)
            except LinkError as exc:
                errors.append(str(exc))
        _delete_root_device(self, errors)
        if self._claimed and not errors:  # else the sweep retries once we are gone
            owners.release(self.name)
        _open_links.discard(self)
        if errors:
            raise LinkError(f"teardown of link {self.name}: " + "; ".join(errors))


@contextlib.contextmanager
def open_link(
    name: str,
    profile: LinkProfile,
    *,
    table_dirs: Sequence[Path | str] = (),
    index: int | None = None,
    isolated: bool = False,
    seed: int | None = None,
    trace: bool = False,
    backend: str = USERSPACE,
) -> Iterator[Link]:
    """Set up link ``isb-<name>`` shaped by ``profile`` and yield it; tear it down at the
    end whatever happens. ``table_dirs`` are searched for measured tables; ``index`` picks
    10.77.<index>.0/30 (default: the first free one); ``backend`` is ``userspace`` (TUN
    devices and a forwarder; ``seed`` and ``trace``, per-packet times for
    ``ForwarderProcess.write_trace``, are its options) or ``netem`` (veth and tc). Links
    whose owner process died are swept first (owners.py)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend {backend!r} is not one of {BACKENDS}")
    if backend == NETEM:
        require_netem_tools()
    else:
        require_userspace()
    if not NAME.match(name):
        raise LinkError(f"link name {name!r}: 1–10 of a-z, 0-9 and '-', starting alnum")
    tables = {d: resolve(profile.direction(d), table_dirs) for d in DIRECTIONS}
    # What netem cannot express is refused here, before anything exists.
    plans = netem_link.plans(profile, tables) if backend == NETEM else None
    with _terminate_cleanly():
        with owners.allocation_lock():
            owners.sweep_locked()
            addresses = Addresses(index if index is not None else _free_index())
            link = Link(name, profile, addresses, isolated=isolated, backend=backend)
            link.tables = tables
            _open_links.add(link)
            try:
                owners.claim(name)
                link._claimed = True
                if plans is not None:
                    _set_up_netem(link, plans)
                else:
                    _set_up(link, tables, seed=seed, trace=trace)
            except BaseException:
                link.close()
                raise
        try:
            yield link
        finally:
            link.close()


def _set_up(
    link: Link, tables: dict[str, DistTable | None], *, seed: int | None, trace: bool
) -> None:
    _make_namespaces(link)
    root_fd = nsutil.open_tun(link.root_if, link.root_netns)
    try:
        device_fd = nsutil.open_tun(link.device_if, link.netns)
        try:
            _address_sides(link)
            link.forwarder = ForwarderProcess(
                ForwarderSetup(root_fd, device_fd, link.profile, tables, seed=seed, trace=trace)
            )
        finally:
            os.close(device_fd)  # the child has its own copies now
    finally:
        os.close(root_fd)


def _set_up_netem(link: Link, plans: dict[str, NetemPlan | None]) -> None:
    _make_namespaces(link)
    netem_link.create_veth(link)
    _address_sides(link)
    netem_link.install(link, plans)


def _make_namespaces(link: Link) -> None:
    taken = set(nsutil.netns_list())
    for netns in (link.netns, link.root_netns):
        if netns is None:
            continue
        if netns in taken:
            raise LinkError(
                f"network namespace {netns} exists already (another link, or a leftover: "
                f"`ip netns delete {netns}`)"
            )
        nsutil.netns_add(netns)
        link._created.append(netns)
    if link.root_netns is None and _device_exists(link.root_if):
        raise LinkError(f"device {link.root_if} exists already (`ip link delete {link.root_if}`)")


def _address_sides(link: Link) -> None:
    """Both ends up with their /30 address, MTU and no IPv6; ``lo`` up."""
    for netns, ifname, address in (
        (link.root_netns, link.root_if, link.root_ip),
        (link.netns, link.device_if, link.device_ip),
    ):
        # No IPv6 on our devices: router solicitations and MLD reports would be
        # forwarded, shaped and counted as if they were the run's traffic.
        nsutil.write_sysctl(f"net/ipv6/conf/{ifname}/disable_ipv6", "1", netns)
        nsutil.ip_batch(
            [
                f"link set dev {ifname} mtu {MTU}",
                f"address add {address}/30 dev {ifname}",
                f"link set dev {ifname} up",
            ],
            netns=netns,
        )
    nsutil.ip("link", "set", "dev", "lo", "up", netns=link.netns)
    if link.root_netns is not None:
        nsutil.ip("link", "set", "dev", "lo", "up", netns=link.root_netns)


def _delete_root_device(link: Link, errors: list[str]) -> None:
    if link.root_netns is not None or not _device_exists(link.root_if):
        return
    try:
        nsutil.ip("link", "delete", link.root_if)
    except LinkError as exc:
        if _device_exists(link.root_if):  # else it went meanwhile (with its peer)
            errors.append(str(exc))


def _device_exists(ifname: str) -> bool:
    return Path("/sys/class/net", ifname).exists()


def _free_index() -> int:
    """The lowest k with no 10.77.k.x address in this namespace nor a link of ours."""
    used = {link.addresses.index for link in _open_links}
    for line in nsutil.ip("-4", "-o", "address", "show").splitlines():
        match = re.search(r"inet (\d+\.\d+\.\d+\.\d+)/", line)
        if match:
            address = ipaddress.IPv4Address(match.group(1))
            if address in ipaddress.IPv4Network(f"{SUBNET_PREFIX}.0.0/16"):
                used.add(address.packed[2])
    for k in range(MAX_LINKS):
        if k not in used:
            return k
    raise LinkError(f"all {MAX_LINKS} link subnets of {SUBNET_PREFIX}.0.0/16 are in use")


# -- always tear down ------------------------------------------------------------------------

_open_links: set[Link] = set()


class LinkTerminated(SystemExit):
    """SIGTERM arrived while a link was up and nothing else handled it: unwinds the stack
    so every ``with open_link`` block tears its link down, then exits with 128 + 15."""


@contextlib.contextmanager
def _terminate_cleanly() -> Iterator[None]:
    # Python's default for SIGTERM is to die at once, with no ``finally``: a link left up
    # would keep its namespaces. When nobody has a handler (the agent has its own, which
    # stops the run and so leaves this block normally), turn SIGTERM into an exception.
    installed = False
    if threading.current_thread() is threading.main_thread() and signal.getsignal(
        signal.SIGTERM
    ) in (signal.SIG_DFL, None):
        signal.signal(signal.SIGTERM, _raise_terminated)
        installed = True
    try:
        yield
    finally:
        if installed and signal.getsignal(signal.SIGTERM) is _raise_terminated:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise LinkTerminated(128 + signum)


@atexit.register
def _close_all() -> None:
    for link in list(_open_links):
        with contextlib.suppress(LinkError):
            link.close()


# -- what works here -------------------------------------------------------------------------


@dataclass(frozen=True)
class Backend:
    name: str
    available: bool
    reason: str  # why not, or what was checked


def require_userspace() -> None:
    """BackendUnavailable saying why the userspace backend cannot run here."""
    backend = _userspace()
    if not backend.available:
        raise BackendUnavailable(backend.reason)


def require_netem_tools() -> None:
    """BackendUnavailable unless we are root with ``ip`` and ``tc`` (whether the kernel has
    netem is what ``capability`` probes; without it, installing fails with tc's reason)."""
    if os.geteuid() != 0:
        raise BackendUnavailable("needs root (network namespaces, veth, tc qdisc)")
    nsutil.ip_binary()
    netem_link.tc_binary()


def capability() -> dict[str, Backend]:
    """Which backends can enforce a profile on this host, with the reason when not:
    ``netem`` (veth, a netem qdisc, ifb and the ingress redirect work in a throwaway
    namespace: netem_link.probe) and ``userspace`` (root, /dev/net/tun and namespaces)."""
    return {NETEM: _netem(), USERSPACE: _userspace()}


def _userspace() -> Backend:
    if os.geteuid() != 0:
        return Backend(USERSPACE, False, "needs root (network namespaces and TUN devices)")
    if not os.path.exists(nsutil.TUN_PATH):
        return Backend(USERSPACE, False, f"{nsutil.TUN_PATH} is missing (modprobe tun)")
    try:
        nsutil.ip_binary()
    except BackendUnavailable as exc:
        return Backend(USERSPACE, False, str(exc))
    return Backend(USERSPACE, True, f"root, {nsutil.TUN_PATH} and ip netns present")


def _netem() -> Backend:
    try:
        require_netem_tools()
    except BackendUnavailable as exc:
        return Backend(NETEM, False, str(exc))
    available, reason = netem_link.probe()
    return Backend(NETEM, available, reason)
