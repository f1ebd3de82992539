"""Enforcing a run's network profile (``spec.network_profile``, §5 of
docs/control-plane.md): the run's data plane crosses an emulated link, checked before the
first message, torn down whatever happens, and the run reports the proof. Topology and
figures: docs/network-emulation.md, "Enforcing a run's profile".

    root side (this namespace)                 device side (netns isb-<link_name(run, device)>)
    broker ◄── relay on 10.77.k.1:<port> ◄── link ◄── runner's sockets (10.77.k.2)

- The link is the kernel's netem (veth + tc, netem_link.py) where ``capability`` finds it
  working, else the userspace forwarder (TUN); ``backend`` (the agent's
  ``--network-backend`` / IOTSECBENCH_NETEM_BACKEND) can force either. A forced backend
  that does not work here fails the run; there is no fallback from a forced choice.
- ``enforced`` checks everything it can before opening anything (profile, tables, the
  backend, and for netem whether netem can express the profile), opens the link, runs
  ``verify`` on it, starts the relay, and only then yields;
  any failure raises ``NotEnforced`` saying what to do, so the run fails before a message
  is sent. It never falls back to an unshaped run.
- The caller runs the runner inside ``path.inside()`` (its thread joins the device
  namespace: ``setns`` is per thread) and gives it ``path.via``, the relay's address, to
  connect to. Every socket the runner creates is then in the device namespace, where the
  only reachable address is the root side's: a runner that connected to the broker's own
  address would fail (no route, or nothing listening on the namespace's loopback), never
  go around the link.
- At the end, ``report`` gets the proof (backend, verification figures, the forwarder's
  final counters or netem's commands, read-back and qdisc statistics, the relay's counters
  and hop times), also when the run failed later.
"""

from __future__ import annotations

import contextlib
import re
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from iotsecbench_contract.brokerurl import BrokerAddress
from iotsecbench_contract.delaytables import MAX_TABLE_SIZE, catalogue_dir, resolve
from iotsecbench_contract.errors import ContractError, TableError
from iotsecbench_contract.netprofile import DIRECTIONS, LinkProfile

from iotsecbench_agent.errors import UnsupportedJob
from iotsecbench_agent.netemu import nsutil
from iotsecbench_agent.netemu.errors import BackendUnavailable, NetemuError
from iotsecbench_agent.netemu.link import (
    NETEM,
    USERSPACE,
    Link,
    capability,
    open_link,
    require_netem_tools,
    require_userspace,
)
from iotsecbench_agent.netemu.netem import NetemUnexpressible, ReadbackMismatch
from iotsecbench_agent.netemu.relay import TcpRelay
from iotsecbench_agent.netemu.verify import Verification, verify

FIELD = "network_profile"
AUTO = "auto"
BACKEND_CHOICES = (AUTO, NETEM, USERSPACE)
# Table names become file names in a private directory: no separators, no dot files.
TABLE_NAME = re.compile(r"^[A-Za-z0-9_+-][A-Za-z0-9._+-]{0,199}$")


class NotEnforced(NetemuError):
    """A run's network profile cannot be enforced here; the run fails before sending."""


@dataclass(frozen=True)
class NetworkProfileSpec:
    """``spec.network_profile``: ``{"name", "spec": <LinkProfile dict>, "tables"?:
    {name: [ints]}}``."""

    name: str
    profile: LinkProfile
    tables: Mapping[str, tuple[int, ...]]

    @classmethod
    def parse(cls, spec: Mapping[str, Any]) -> NetworkProfileSpec | None:
        """The job's profile, None without one; UnsupportedJob naming the bad field."""
        data = spec.get(FIELD)
        if data is None:
            return None
        if not isinstance(data, dict):
            raise UnsupportedJob(f"spec.{FIELD} must be an object")
        name = data.get("name")
        if not isinstance(name, str) or not name.strip():
            raise UnsupportedJob(f"spec.{FIELD}.name must be a non-empty string")
        try:
            profile = LinkProfile.parse(data.get("spec"))
        except ContractError as exc:
            raise UnsupportedJob(f"spec.{FIELD}.spec: {exc}") from None
        raw_tables = data.get("tables", {})
        if not isinstance(raw_tables, dict):
            raise UnsupportedJob(f"spec.{FIELD}.tables must be an object of name: [integers]")
        tables: dict[str, tuple[int, ...]] = {}
        for table, values in raw_tables.items():
            if not TABLE_NAME.match(table):
                raise UnsupportedJob(f"spec.{FIELD}.tables: {table!r} is not a table name")
            if (
                not isinstance(values, list)
                or not 0 < len(values) <= MAX_TABLE_SIZE
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in values)
            ):
                raise UnsupportedJob(
                    f"spec.{FIELD}.tables.{table} must be a list of 1–{MAX_TABLE_SIZE} integers"
                )
            tables[table] = tuple(values)
        return cls(name=name, profile=profile, tables=tables)


@dataclass
class EnforcedPath:
    """A verified link with its relay, while the run uses it."""

    network: NetworkProfileSpec
    link: Link
    relay: TcpRelay
    verification: Verification

    @property
    def via(self) -> tuple[str, int]:
        """Where the runner connects instead of the broker: the relay."""
        return self.relay.address

    def inside(self) -> contextlib.AbstractContextManager[None]:
        """The calling thread in the device namespace for the block (and back after)."""
        return nsutil.inside(self.link.netns)

    def proof(self) -> dict[str, Any]:
        """What the run reports: after the link closed, the forwarder's final counters."""
        link = self.link
        proof: dict[str, Any] = {
            "backend": link.backend,
            "profile": {"name": self.network.name, "spec": self.network.profile.to_dict()},
            "tables": {d: None if t is None else t.name for d, t in link.tables.items()},
            "link": {"netns": link.netns, "root_ip": link.root_ip, "device_ip": link.device_ip},
            "verification": self.verification.as_dict(),
        }
        if link.netem is not None:
            proof["netem"] = {**link.netem.report(), "counters": link.counters()}
        else:
            proof["forwarder"] = link.counters()
        proof["relay"] = self.relay.stats()
        return proof


def table_dirs(job_tables: Path | None) -> list[Path]:
    """Where measured tables are looked up: the job's own, then the catalogue's (package
    data of the contract, so an agent installed without the repository has them too)."""
    dirs = [job_tables] if job_tables is not None else []
    dirs.append(catalogue_dir())
    return dirs


def link_name(run_id: str, device_id: str) -> str:
    """The run's link on this device: ``isb-<name>`` (10 characters at most, so interface
    names fit Linux's 15). Run and device both count: several agents of one host (the
    local testbed of `make up`) run the same run, each behind its own link."""
    return f"r{run_id[:4]}{device_id[:5]}"


def choose_backend(setting: str = AUTO) -> str:
    """The backend a run uses: ``netem`` or ``userspace`` as forced (BackendUnavailable
    when it cannot work here), or with ``auto`` netem when ``capability`` finds it working,
    else userspace."""
    if setting not in BACKEND_CHOICES:
        raise ValueError(f"network backend {setting!r} is not one of {BACKEND_CHOICES}")
    if setting == USERSPACE:
        require_userspace()
        return USERSPACE
    if setting == NETEM:
        require_netem_tools()
    netem = capability()[NETEM]
    if netem.available:
        return NETEM
    if setting == NETEM:
        raise BackendUnavailable(
            f"the netem backend was asked for but cannot work here: {netem.reason}"
        )
    require_userspace()
    return USERSPACE


@contextlib.contextmanager
def enforced(
    network: NetworkProfileSpec,
    *,
    run_id: str,
    device_id: str,
    broker: BrokerAddress,
    report: Callable[[dict[str, Any]], None],
    backend: str = AUTO,
) -> Iterator[EnforcedPath]:
    """Open, verify and relay the run's link (see the module doc); ``NotEnforced`` when
    that fails. ``report(proof)`` is called once the link is down, if it was verified.
    ``backend``: ``auto``, ``netem`` or ``userspace`` (``choose_backend``)."""
    prefix = f"network profile {network.name!r} cannot be enforced"
    path: EnforcedPath | None = None
    try:
        with tempfile.TemporaryDirectory(prefix="isb-tables-") as tmp:
            for table, values in network.tables.items():
                Path(tmp, table).write_text("\n".join(map(str, values)) + "\n", encoding="ascii")
            dirs = table_dirs(Path(tmp))
            for direction in DIRECTIONS:  # a missing table is named before anything opens
                resolve(network.profile.direction(direction), dirs)
            chosen = choose_backend(backend)
            with open_link(
                link_name(run_id, device_id), network.profile, table_dirs=dirs, backend=chosen
            ) as link:
                check = verify(link)
                if not check.ok:
                    raise NotEnforced(
                        f"{prefix}: link verification failed: {check.reason} "
                        f"({check.received} of {check.sent} probes back); nothing was sent"
                    )
                with TcpRelay(link.root_ip, (broker.host, broker.port)) as relay:
                    path = EnforcedPath(network, link, relay, check)
                    yield path
    except NotEnforced:
        raise
    except (NetemuError, ContractError) as exc:
        if path is not None:
            raise  # the link was up and verified: a teardown error, not a refusal
        raise NotEnforced(f"{prefix}: {exc}{_hint(exc)}; nothing was sent") from exc
    finally:
        if path is not None:
            report(path.proof())


def _hint(exc: NetemuError | ContractError) -> str:
    if isinstance(exc, BackendUnavailable):
        return (
            " (run the agent as root on a Linux host with iproute2 and either sch_netem or "
            "/dev/net/tun, or start the run without a network profile)"
        )
    if isinstance(exc, NetemUnexpressible):
        return " (change the profile, or enforce it with the userspace backend)"
    if isinstance(exc, ReadbackMismatch):
        return " (the kernel's netem did not take the profile as given)"
    if isinstance(exc, TableError):
        return f" (send its values in spec.{FIELD}.tables, or add it to {catalogue_dir()})"
    return ""
