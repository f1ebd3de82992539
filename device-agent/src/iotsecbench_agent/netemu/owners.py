"""Who owns each link, and the sweep of links whose owner died without tearing down.

``open_link`` tears its link down at exit, on errors, on SIGTERM and at interpreter exit;
only SIGKILL (or a crash of the interpreter) leaves a namespace ``isb-<name>`` (and, with
the netem backend, the root-side veth ``isbr-<name>`` and its 10.77.k.1 address, which
keeps subnet k taken) behind. So every link is registered before anything is created:
``/run/iotsecbench-netemu/<name>.pid`` holds the owner's pid and its start time (so a
recycled pid is not taken for the owner). ``sweep_stale`` removes the links whose owner is
gone; it runs when an agent starts and before every link is allocated, under the same lock
as the allocation, and never touches a link whose owner is alive: several agents of one
host (the local testbed) run links at the same time. Namespaces named ``isb-*`` without a
registration (made by something else, or by an older agent) are left alone.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from iotsecbench_agent.netemu import nsutil
from iotsecbench_agent.netemu.errors import LinkError
from iotsecbench_agent.storage.fsutil import atomic_write_text

logger = logging.getLogger(__name__)

PREFIX = "isb-"
# Serialises index allocation and sweeping between processes (agents of a testbed, tests).
LOCK_PATH = "/run/lock/iotsecbench-netemu.lock"
# One file per link; /run is a tmpfs, so a reboot (which removes every link) empties it.
OWNER_DIR = Path("/run/iotsecbench-netemu")
OWNER_SUFFIX = ".pid"
TABLES_SUFFIX = ".tables"


@dataclass(frozen=True)
class Owner:
    """A process, told apart from a later one with the same pid by its start time."""

    pid: int
    start: int | None

    @classmethod
    def me(cls) -> Owner:
        return cls(os.getpid(), process_start(os.getpid()))

    def alive(self) -> bool:
        start = process_start(self.pid)
        return start is not None and (self.start is None or start == self.start)


def process_start(pid: int) -> int | None:
    """The start time of process ``pid`` (clock ticks after boot), None if there is none."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    # Field 2 (comm) is in parentheses and may hold spaces and ')': split after the last.
    fields = stat.rsplit(")", 1)[-1].split()
    try:
        return int(fields[19])  # field 22 of proc(5); fields[0] is field 3 (state)
    except (IndexError, ValueError):
        return None


def owner_path(name: str) -> Path:
    return OWNER_DIR / f"{name}{OWNER_SUFFIX}"


def tables_dir(name: str) -> Path:
    """Where the netem backend writes link ``name``'s .dist tables (TC_LIB_DIR)."""
    return OWNER_DIR / f"{name}{TABLES_SUFFIX}"


def read_owner(name: str) -> Owner | None:
    try:
        words = owner_path(name).read_text(encoding="ascii").split()
        return Owner(int(words[0]), int(words[1]) if len(words) > 1 else None)
    except (OSError, ValueError, IndexError):
        return None


def claim(name: str) -> None:
    """Register this process as the owner of link ``name``; LinkError if a live process
    owns it already. Call under ``allocation_lock`` after ``sweep_locked`` (the probe in
    netem_link.py, whose name holds its pid, needs neither)."""
    current = read_owner(name)
    if current is not None and current.alive():
        raise LinkError(
            f"link {name} exists already (owned by process {current.pid}; {owner_path(name)})"
        )
    OWNER_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
    me = Owner.me()
    atomic_write_text(owner_path(name), f"{me.pid} {me.start}\n")


def release(name: str) -> None:
    """Forget link ``name`` (after its teardown): its registration and table directory."""
    shutil.rmtree(tables_dir(name), ignore_errors=True)
    owner_path(name).unlink(missing_ok=True)


@contextlib.contextmanager
def allocation_lock() -> Iterator[None]:
    os.makedirs(os.path.dirname(LOCK_PATH), exist_ok=True)
    with open(LOCK_PATH, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def sweep_stale() -> list[str]:
    """Remove every registered link whose owner is gone; return their names."""
    with allocation_lock():
        return sweep_locked()


def sweep_locked() -> list[str]:
    """``sweep_stale`` for a caller that holds ``allocation_lock``."""
    if not OWNER_DIR.is_dir():
        return []
    swept = []
    for path in sorted(OWNER_DIR.glob(f"*{OWNER_SUFFIX}")):
        name = path.name[: -len(OWNER_SUFFIX)]
        owner = read_owner(name)
        if owner is not None and owner.alive():
            continue
        try:
            remove_link(name)
        except LinkError as exc:  # keep the registration: the next sweep tries again
            logger.warning("netemu.sweep_failed link=%s error=%s", name, exc)
            continue
        release(name)
        swept.append(name)
        logger.info("netemu.swept link=%s owner_pid=%s", name, owner.pid if owner else None)
    return swept


def remove_link(name: str) -> None:
    """Delete everything link ``name`` may have left: its namespaces (their devices go with
    them) and a root-side device still in this namespace."""
    errors = []
    # The root end first: a veth pair goes at once with it, but only some time after its
    # namespace is deleted (the kernel cleans namespaces up asynchronously).
    root_if = Path("/sys/class/net", f"isbr-{name}")
    if root_if.exists():
        try:
            nsutil.ip("link", "delete", root_if.name)
        except LinkError as exc:
            if root_if.exists():
                errors.append(str(exc))
    for netns in (f"{PREFIX}{name}", f"{PREFIX}{name}-r"):
        try:
            nsutil.netns_delete(netns)
        except LinkError as exc:
            errors.append(str(exc))
    if errors:
        raise LinkError(f"removing link {name}: " + "; ".join(errors))
