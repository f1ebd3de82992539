"""What a messaging run cost the agent over its measured window: CPU time, peak memory and
the bytes its client socket(s) sent and received (``iotsecbench_contract.resources``;
docs/control-plane.md §6, "Run resources").

The window is the runner's ``run`` (``Runner.execute``): after ``setup`` connected,
subscribed and built its keys, before ``cleanup`` disconnects. So a run's CONNECT, the TLS
handshake, SUBSCRIBE and an RSA key generation are not in it, and every message, its
acknowledgements and a reconnect mid-run are.

- **CPU time**: ``getrusage(RUSAGE_SELF)`` before and after, user and system apart. It is
  the whole agent process, every thread: the measuring thread, and beside it the control
  plane's paho thread and the heartbeats (a few ms a second), and what runs in the same
  process for this run (the SRUP runner's local echo peer, the CoAP runner's own echo
  server, the MQTT-SN runner's own gateway, when the job names none). Not
  ``process_time``: the same counters, without user and system apart.
- **Peak memory**: on Linux the process's resident high-water mark is reset when the window
  opens (``/proc/self/clear_refs``, "5", Linux 4.0+) and ``VmHWM`` read when it closes: the
  peak within the run (scope ``run``). Where that cannot be done (no ``/proc``, or the
  write refused), ``ru_maxrss``: the process's peak since it started, which may be an
  earlier run's (scope ``process``). The reset touches nothing else the agent measures: a
  cipher benchmark's memory is its child process's own (cipherbench/engine.py).
- **Bytes**: the runner's ``traffic()``, read before and after; every runner counts at the
  socket seam its ``wire_bytes`` come from (``links/mqtt_wire.py``, ``coap_wire.py``,
  ``mqttsn/client.py``), so the totals and the per-message figures are the same bytes.
"""

from __future__ import annotations

import resource
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from iotsecbench_contract.resources import PEAK_RSS_PROCESS, PEAK_RSS_RUN, RunResources

if TYPE_CHECKING:
    from iotsecbench_agent.links.mqtt_link import MqttLink

CLEAR_REFS = "/proc/self/clear_refs"
STATUS = "/proc/self/status"
# clear_refs(5): "reset the peak resident set size to the process's current resident set
# size" (proc(5)).
RESET_PEAK_RSS = "5"


@dataclass(frozen=True)
class Traffic:
    """Bytes a run's client socket(s) handed to the kernel (``sent``) and took from it
    (``received``), counted from when each socket was opened."""

    sent: int = 0
    received: int = 0

    @classmethod
    def total(cls, parts: Iterable[Traffic]) -> Traffic:
        sent = received = 0
        for part in parts:
            sent += part.sent
            received += part.received
        return cls(sent, received)


def link_traffic(link: MqttLink | None) -> Traffic:
    """The totals of a runner's measured MQTT connection (nothing before ``setup``)."""
    return Traffic() if link is None else Traffic(*link.traffic())


def reset_peak_rss() -> bool:
    """Reset this process's resident high-water mark to its current RSS; False where the
    kernel does not allow it (then only the process's lifetime peak is known)."""
    try:
        with open(CLEAR_REFS, "w", encoding="ascii") as refs:
            refs.write(RESET_PEAK_RSS)
    except OSError:
        return False
    return read_vm_hwm_kb() is not None


def read_vm_hwm_kb() -> int | None:
    """``VmHWM`` of ``/proc/self/status`` in KiB; None without it."""
    try:
        with open(STATUS, "rb") as status:
            for line in status:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def lifetime_peak_rss_kb() -> int:
    """``ru_maxrss`` in KiB (bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak


def _us(seconds: float) -> int:
    # getrusage's times are whole microseconds given as float seconds.
    return round(seconds * 1e6)


class ResourceWindow:
    """Opened when the run's window opens, closed once when it ends: ``close`` gives the
    run's ``RunResources``."""

    def __init__(self, traffic: Callable[[], Traffic]) -> None:
        self._traffic = traffic
        self._run_scope = reset_peak_rss()
        self._usage = resource.getrusage(resource.RUSAGE_SELF)
        self._bytes = traffic()
        self._t0 = time.perf_counter_ns()

    def close(self) -> RunResources:
        t1 = time.perf_counter_ns()
        usage = resource.getrusage(resource.RUSAGE_SELF)
        traffic = self._traffic()
        peak = read_vm_hwm_kb() if self._run_scope else None
        before = self._usage
        return RunResources(
            window_ns=t1 - self._t0,
            cpu_user_ns=(_us(usage.ru_utime) - _us(before.ru_utime)) * 1000,
            cpu_system_ns=(_us(usage.ru_stime) - _us(before.ru_stime)) * 1000,
            peak_rss_kb=peak if peak is not None else lifetime_peak_rss_kb(),
            peak_rss_scope=PEAK_RSS_RUN if peak is not None else PEAK_RSS_PROCESS,
            bytes_sent=traffic.sent - self._bytes.sent,
            bytes_received=traffic.received - self._bytes.received,
        )
