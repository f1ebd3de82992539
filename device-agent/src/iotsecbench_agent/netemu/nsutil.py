"""The kernel plumbing of a link: network namespaces (``ip netns``, ``setns``), TUN
devices, and sockets opened inside a namespace.

Python 3.9–3.11 have no ``os.setns``, so it is called through libc. ``setns`` moves only
the calling thread, and every object keeps the namespace it was created in: a TUN device
made by ``TUNSETIFF`` (in the namespace of the thread that opened /dev/net/tun) or a
socket. So ``inside(netns)`` enters a namespace for the few calls that create such
objects, in the current thread only, and always comes back.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import fcntl
import os
import shutil
import socket
import struct
import subprocess
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Callable, TypeVar

from iotsecbench_agent.netemu.errors import BackendUnavailable, LinkError

CLONE_NEWNET = 0x40000000
TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000
IFNAMSIZ = 16
TUN_PATH = "/dev/net/tun"
NETNS_DIR = Path("/run/netns")  # where ``ip netns add`` bind-mounts named namespaces
IP_TIMEOUT_S = 10.0


def ip_binary() -> str:
    found = shutil.which("ip") or next(
        (p for p in ("/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip") if os.path.exists(p)), None
    )
    if found is None:
        raise BackendUnavailable("the `ip` command (iproute2) is not installed")
    return found


def run(
    argv: Sequence[str], *, stdin: str | None = None, env: Mapping[str, str] | None = None
) -> str:
    """Run an iproute2 command (``env``: variables added to ours, e.g. tc's TC_LIB_DIR);
    LinkError with its stderr when it fails."""
    try:
        done = subprocess.run(  # noqa: S603 (fixed argv built from validated names)
            list(argv),
            input=stdin,
            env=None if env is None else {**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=IP_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LinkError(f"{' '.join(argv)}: {exc}") from exc
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip() or f"exit status {done.returncode}"
        raise LinkError(f"{' '.join(argv)}: {detail}")
    return done.stdout


def ip(*args: str, netns: str | None = None) -> str:
    """``ip [-n netns] args…``."""
    return run([ip_binary(), *(("-n", netns) if netns else ()), *args])


def ip_batch(commands: Sequence[str], *, netns: str | None = None) -> None:
    """Several ``ip`` commands in one process (``ip -batch -``): set-up in ~5 ms, not ~5
    ms per command."""
    run([ip_binary(), *(("-n", netns) if netns else ()), "-batch", "-"], stdin="\n".join(commands))


def netns_list() -> list[str]:
    """Names of the named network namespaces (``ip netns list``)."""
    names = []
    for line in ip("netns", "list").splitlines():
        if line.strip():
            names.append(line.split()[0])
    return names


def netns_add(name: str) -> None:
    ip("netns", "add", name)


def netns_delete(name: str) -> None:
    """Delete a named namespace; its devices go with it. Quiet when it is already gone."""
    if (NETNS_DIR / name).exists():
        ip("netns", "delete", name)


_libc: ctypes.CDLL | None = None


def _setns(fd: int) -> None:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise LinkError(f"setns: {os.strerror(err)}")


@contextlib.contextmanager
def inside(netns: str | None) -> Iterator[None]:
    """Run the block in network namespace ``netns`` (this thread only); None = stay."""
    if netns is None:
        yield
        return
    try:
        target = os.open(NETNS_DIR / netns, os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        raise LinkError(f"network namespace {netns}: {exc}") from exc
    # /proc/thread-self: this thread's namespace (/proc/self is the main thread's).
    home = os.open("/proc/thread-self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
    try:
        _setns(target)
        try:
            yield
        finally:
            _setns(home)
    finally:
        os.close(target)
        os.close(home)


def open_tun(name: str, netns: str | None = None) -> int:
    """Create TUN device ``name`` (IP packets, no packet-info header) in ``netns`` and
    return its file descriptor; the device lives as long as the descriptor."""
    if not os.path.exists(TUN_PATH):
        raise BackendUnavailable(f"{TUN_PATH} is missing (no TUN support: modprobe tun)")
    with inside(netns):
        try:
            fd = os.open(TUN_PATH, os.O_RDWR | os.O_CLOEXEC)
        except OSError as exc:
            raise BackendUnavailable(f"cannot open {TUN_PATH}: {exc}") from exc
        try:
            request = struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI)
            fcntl.ioctl(fd, TUNSETIFF, request)
        except OSError as exc:
            os.close(fd)
            raise LinkError(f"cannot create TUN device {name}: {exc}") from exc
    return fd


def socket_in(
    netns: str | None, kind: int = socket.SOCK_DGRAM, family: int = socket.AF_INET
) -> socket.socket:
    """A socket that belongs to ``netns`` (None: the caller's namespace), usable from any
    thread of this process."""
    with inside(netns):
        return socket.socket(family, kind)


def write_sysctl(path: str, value: str, netns: str | None = None) -> bool:
    """Write /proc/sys/<path> as seen from ``netns``; False when it does not exist (e.g.
    IPv6 compiled out)."""
    with inside(netns):
        try:
            with open(f"/proc/sys/{path}", "w", encoding="ascii") as f:
                f.write(value)
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise LinkError(f"/proc/sys/{path}: {exc}") from exc
    return True


T = TypeVar("T")


def in_main_namespace(call: Callable[[], T]) -> T:
    """``call()`` in the process's main network namespace, from whatever namespace this
    thread is in (``inside`` moves only the calling thread): on a helper thread that joins
    the main thread's namespace first. A one-way receiver probes the platform's clock this
    way, so the probes never cross the run's emulated link."""
    here = os.stat("/proc/thread-self/ns/net").st_ino
    main = os.stat("/proc/self/ns/net").st_ino
    if here == main:
        return call()
    outcome: list[T] = []
    failure: list[BaseException] = []

    def work() -> None:
        fd = os.open("/proc/self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
        try:
            _setns(fd)
            outcome.append(call())
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            failure.append(exc)
        finally:
            os.close(fd)

    helper = threading.Thread(target=work, name="main-netns", daemon=True)
    helper.start()
    helper.join()
    if failure:
        raise failure[0]
    return outcome[0]
