"""The forwarder: moves IP packets between two TUN devices and applies a profile to each
direction (shaper.py decides, this module reads, waits and writes).

It runs in a child process of its own (``python -m iotsecbench_agent.netemu.emulator``),
not in a thread of the process that measures: a thread would share that process's GIL,
so the measured traffic and the emulator would delay each other. The parent passes the
two TUN file descriptors and a control socket; the child answers ``counters`` and
``trace:<path>`` and exits on ``stop`` or when the socket closes (so a dead parent never
leaves a forwarder behind, and the TUN devices vanish with the child's descriptors).

One thread, one ``select`` over both TUN devices and the control socket, one heap of
packets by due time: it sleeps until a packet arrives or the earliest one is due, so an
idle link costs no CPU. ``select`` (µs timeouts), not ``poll``/``epoll`` (ms timeouts),
and a 1 ns timer slack: a 50 µs default slack and ms rounding would each show in the
delay error.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import ctypes.util
import heapq
import json
import os
import random
import resource
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any

from iotsecbench_contract.delaytables import DistTable
from iotsecbench_contract.netprofile import DIRECTIONS, LinkProfile

from iotsecbench_agent.netemu.errors import LinkError
from iotsecbench_agent.netemu.shaper import DirectionShaper

# Larger than any packet a TUN device of ours carries (MTU 1500, no GSO without
# IFF_VNET_HDR); a short read would silently truncate a packet.
READ_BYTES = 65_535
# Packets read from one device before the loop looks at due packets and the other
# device again: a flood in one direction cannot starve the timer or the other direction.
READ_BATCH = 64
CONTROL_BYTES = 4096
READY = b"ready"
START_TIMEOUT_S = 10.0
STOP_TIMEOUT_S = 5.0
PR_SET_TIMERSLACK = 29
REALTIME_PRIORITY = 1  # SCHED_FIFO 1: above every normal task, below the kernel's own
# UDP payload bytes the trace keeps to name a packet: the first 8 (a sequence number).
_UDP_KEY = slice(28, 36)


@dataclass(frozen=True)
class ForwarderSetup:
    """What a forwarder forwards with: the TUN descriptors of the root and the device side,
    the link profile and its distribution tables, the seed of its draws and whether it
    keeps a trace. The parent hands all but the descriptors to the child as JSON
    (``config``, ``from_config``)."""

    root_fd: int
    device_fd: int
    profile: LinkProfile
    tables: Mapping[str, DistTable | None]
    seed: int | None = None
    trace: bool = False

    def config(self) -> dict[str, Any]:
        return {
            "profile": self.profile.to_dict(),
            "tables": {
                name: None if table is None else list(table.values)
                for name, table in self.tables.items()
            },
            "seed": self.seed,
            "trace": self.trace,
        }

    @classmethod
    def from_config(cls, root_fd: int, device_fd: int, config: Any) -> ForwarderSetup:
        return cls(
            root_fd,
            device_fd,
            LinkProfile.parse(config["profile"]),
            {
                name: None if values is None else DistTable(f"{name}-table", tuple(values))
                for name, values in config["tables"].items()
            },
            seed=config.get("seed"),
            trace=bool(config.get("trace")),
        )


class Forwarder:
    """The loop. ``ingress`` reads the root side and writes the device side; ``egress``
    the reverse (directions as profile.py names them, from the device's side)."""

    def __init__(self, setup: ForwarderSetup) -> None:
        root_fd, device_fd, tables = setup.root_fd, setup.device_fd, setup.tables
        rng = random.Random(setup.seed)  # noqa: S311 (emulation draws, not cryptography)
        self.shapers = {
            name: DirectionShaper(setup.profile.direction(name), tables.get(name), rng)
            for name in DIRECTIONS
        }
        # input fd → (shaper, output fd, direction)
        self._routes = {
            root_fd: (self.shapers["ingress"], device_fd, "ingress"),
            device_fd: (self.shapers["egress"], root_fd, "egress"),
        }
        self.trace: list[tuple[str, int, int, int, int, str]] | None = [] if setup.trace else None

    def counters(self) -> dict[str, Any]:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return {
            **{name: shaper.counters.as_dict() for name, shaper in self.shapers.items()},
            "held": {name: shaper.held for name, shaper in self.shapers.items()},
            "cpu_user_s": usage.ru_utime,
            "cpu_system_s": usage.ru_stime,
            "pid": os.getpid(),
        }

    def run(self, control: socket.socket) -> None:
        """Forward until ``stop`` or EOF on ``control``."""
        heap: list[tuple[int, int, DirectionShaper, bytes, int, int, str]] = []
        push, pop = heapq.heappush, heapq.heappop
        read, write, now_ns = os.read, os.write, time.monotonic_ns
        routes = self._routes
        trace = self.trace
        control_fd = control.fileno()
        watched = [*routes, control_fd]
        seq = 0
        while True:
            wait: float | None = None  # nothing held: sleep until a packet comes
            if heap:
                wait = max(0.0, (heap[0][0] - now_ns()) / 1e9)
            ready = select.select(watched, [], [], wait)[0]
            for fd in ready:
                if fd == control_fd:
                    if not self._control(control):
                        return
                    continue
                shaper, out_fd, direction = routes[fd]
                for _ in range(READ_BATCH):
                    try:
                        packet = read(fd, READ_BYTES)
                    except BlockingIOError:
                        break
                    now = now_ns()
                    if shaper.transparent and trace is None:
                        # Fast path: nothing to decide, nothing waits; write it now.
                        shaper.counters.received += 1
                        shaper.held += 1
                        try:
                            write(out_fd, packet)
                        except OSError:
                            shaper.counters.write_errors += 1
                        shaper.sent(len(packet))
                        continue
                    for due, copy in shaper.admit(packet, now):
                        push(heap, (due, seq, shaper, copy, now, out_fd, direction))
                        seq += 1
            if heap:
                now = now_ns()
                while heap and heap[0][0] <= now:
                    due, _, shaper, copy, arrived, out_fd, direction = pop(heap)
                    try:
                        write(out_fd, copy)
                    except OSError:
                        shaper.counters.write_errors += 1
                    shaper.sent(len(copy))
                    if trace is not None:
                        trace.append(
                            (direction, arrived, due, now_ns(), len(copy), copy[_UDP_KEY].hex())
                        )
                    now = now_ns()

    def _control(self, control: socket.socket) -> bool:
        """Answer one control message; False when the forwarder must stop."""
        try:
            message = control.recv(CONTROL_BYTES)
        except OSError:
            return False
        if not message:
            return False  # the parent went away
        if message == b"stop":
            control.send(json.dumps(self.counters()).encode())
            return False
        if message == b"counters":
            control.send(json.dumps(self.counters()).encode())
        elif message.startswith(b"trace:"):
            self._write_trace(message[len(b"trace:") :].decode())
            control.send(b"ok")
        else:
            control.send(b"error: unknown command")
        return True

    def _write_trace(self, path: str) -> None:
        with open(path, "w", encoding="ascii") as out:
            out.write("direction,arrived_ns,due_ns,sent_ns,bytes,key\n")
            for row in self.trace or ():
                out.write(",".join(str(v) for v in row) + "\n")


# -- the child process -----------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="iotsecbench link emulator (internal)")
    parser.add_argument("--root-fd", type=int, required=True)
    parser.add_argument("--device-fd", type=int, required=True)
    parser.add_argument("--control-fd", type=int, required=True)
    args = parser.parse_args(argv)
    # Ctrl-C in a terminal reaches the whole process group: the parent tears the link
    # down and stops us; dying first would only cut its counters short.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _set_timer_slack_ns(1)
    _set_realtime()
    setup = ForwarderSetup.from_config(args.root_fd, args.device_fd, json.loads(sys.stdin.read()))
    for fd in (args.root_fd, args.device_fd):
        os.set_blocking(fd, False)
    control = socket.socket(fileno=args.control_fd)
    forwarder = Forwarder(setup)
    control.send(READY)
    forwarder.run(control)
    return 0


def _set_realtime() -> None:
    # The forwarder is the network: on a loaded host (the run's own agents, a broker) its
    # wake-ups must not wait behind them, or their load would show up as delay. The lowest
    # real-time priority is enough to be woken first; the loop blocks in select(), and the
    # kernel's RT throttling (95 % by default) bounds it even at full load. Not root, or
    # no RT scheduling: the normal policy, with a larger delay error under load.
    with contextlib.suppress(OSError, AttributeError):
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(REALTIME_PRIORITY))


def _set_timer_slack_ns(slack: int) -> None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        libc.prctl(PR_SET_TIMERSLACK, ctypes.c_ulong(slack), 0, 0, 0)
    except (OSError, AttributeError):  # not Linux glibc/musl: the default slack only
        pass


# -- the parent's handle ---------------------------------------------------------------------


class ForwarderProcess:
    """A running forwarder child: its counters, its trace, and stopping it."""

    def __init__(self, setup: ForwarderSetup) -> None:
        """Start the child. The caller may close its copies of the TUN descriptors
        afterwards (and should: the devices then vanish when the child exits)."""
        self._control, child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # Closed in stop(); a file, not a pipe, so a chatty child can never block on it.
        self._stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115
        self.final: dict[str, Any] | None = None
        config = setup.config()
        root_fd, device_fd = setup.root_fd, setup.device_fd
        try:
            self._process = subprocess.Popen(  # noqa: S603 (our own module, fixed argv)
                [
                    sys.executable,
                    "-m",
                    "iotsecbench_agent.netemu.emulator",
                    f"--root-fd={root_fd}",
                    f"--device-fd={device_fd}",
                    f"--control-fd={child_end.fileno()}",
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=self._stderr,
                pass_fds=(root_fd, device_fd, child_end.fileno()),
            )
        except OSError as exc:
            self._control.close()
            raise LinkError(f"cannot start the forwarder: {exc}") from exc
        finally:
            child_end.close()
        assert self._process.stdin is not None
        try:
            self._process.stdin.write(json.dumps(config).encode())
            self._process.stdin.close()
            self._control.settimeout(START_TIMEOUT_S)
            ready = self._control.recv(CONTROL_BYTES)
        except OSError:
            ready = b""
        if ready != READY:
            self.stop()
            raise LinkError(f"the forwarder did not start: {self.stderr() or 'no output'}")

    @property
    def pid(self) -> int:
        return self._process.pid

    def alive(self) -> bool:
        return self._process.poll() is None

    def counters(self) -> dict[str, Any]:
        """The forwarder's counters now, or its last ones once it stopped."""
        if self.final is not None:
            return self.final
        return self._ask(b"counters")

    def write_trace(self, path: str) -> None:
        """Write every forwarded packet's arrival, due and send times (ns, CLOCK_MONOTONIC)
        to ``path`` as CSV; only for a forwarder started with ``trace=True``."""
        self._request(b"trace:" + path.encode())

    def stop(self) -> dict[str, Any]:
        """Stop the child (kill it if it does not answer) and return its last counters."""
        if self.final is not None:
            return self.final
        try:
            self.final = self._ask(b"stop") if self.alive() else {}
        except LinkError:
            self.final = {}
        finally:
            self._control.close()
            try:
                self._process.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            self._stderr.close()
        return self.final

    def stderr(self) -> str:
        if self._stderr.closed:
            return ""
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace").strip()

    def _ask(self, command: bytes) -> dict[str, Any]:
        reply = self._request(command)
        try:
            answer: dict[str, Any] = json.loads(reply)
        except ValueError:
            raise LinkError(f"the forwarder answered {reply[:80]!r} to {command!r}") from None
        return answer

    def _request(self, command: bytes) -> bytes:
        try:
            self._control.settimeout(STOP_TIMEOUT_S)
            self._control.send(command)
            reply = self._control.recv(1 << 20)
        except OSError as exc:
            raise LinkError(f"the forwarder did not answer {command!r}: {exc}") from exc
        if not reply:
            raise LinkError(f"the forwarder exited: {self.stderr() or 'no output'}")
        return reply


if __name__ == "__main__":
    sys.exit(main())
