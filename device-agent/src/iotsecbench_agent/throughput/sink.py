"""The agent's own UDP sink for ``send`` windows (§8 of docs/control-plane.md): a socket on
127.0.0.1 and a thread that drains and counts what reaches it, so the kernel buffer does not
fill and a test can check that every packet sent arrived (or was counted as dropped).
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import socket
import threading
import time

from iotsecbench_contract.limits import MAX_UDP_PAYLOAD

logger = logging.getLogger(__name__)

# The sink asks for this much receive buffer (the kernel caps it at rmem_max), so it can
# fall behind for a while without the kernel dropping datagrams.
SINK_RCVBUF_BYTES = 4 << 20
# The sink reads what has queued every 0.5 ms: ~250 datagrams at the 500 000 packets/s of
# `none` on an x86-64 VM, which a 4 MiB buffer holds many times over (a Pi's default cap,
# rmem_max = 208 KiB, holds ~150 full-size frames; drops, if any, are counted and logged).
SINK_BATCH_S = 0.0005
# After a send window, how long the sink may take to catch up before its count is taken.
SINK_DRAIN_TIMEOUT_S = 2.0
SINK_POLL_S = 0.002
SINK_JOIN_S = 2.0
PROC_NET_UDP = "/proc/net/udp"


class UdpSink:
    """A UDP socket on 127.0.0.1 and a thread counting the datagrams that reach it, so a
    local ``send`` window has a receiver that drains the kernel buffer as it fills.

    The thread drains in batches: it blocks in ``poll`` (without the GIL) until a datagram
    is there, sleeps SINK_BATCH_S and then reads everything queued. A ``recv`` per datagram
    would make the sender hand the GIL to the sink for every packet, which cost up to half
    the send rate of fast mechanisms on an x86-64 VM (docs/throughput.md); batches make it
    one hand-off per SINK_BATCH_S, and an idle sink (during ``secure`` windows) does not
    wake at all. Datagrams the kernel drops meanwhile cost the sender nothing on loopback;
    they are counted (``dropped``) and reported, not hidden.
    """

    def __init__(self) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SINK_RCVBUF_BYTES)
        except OSError:  # not allowed here: the default buffer still works, drops may show
            logger.warning("agent.throughput_sink_rcvbuf_default")
        self._sock.bind(("127.0.0.1", 0))
        self._sock.setblocking(False)
        self.address: tuple[str, int] = self._sock.getsockname()
        self.received = 0  # written by the sink thread only; an int read is atomic
        self._closing = False
        self._thread = threading.Thread(target=self._drain, name="throughput-sink", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        buffer = bytearray(MAX_UDP_PAYLOAD + 1)
        recv_into = self._sock.recv_into
        poller = select.poll()
        poller.register(self._sock.fileno(), select.POLLIN)
        while not self._closing:
            poller.poll()
            time.sleep(SINK_BATCH_S)
            try:
                while True:
                    if recv_into(buffer):  # an empty datagram is close()'s wake-up
                        self.received += 1
            except BlockingIOError:
                continue
            except OSError:
                return

    def dropped(self) -> int | None:
        """Datagrams the kernel dropped at this socket (its receive buffer was full), from
        ``/proc/net/udp``; None where that cannot be read."""
        inode = self._inode()
        try:
            with open(PROC_NET_UDP, encoding="ascii") as table:
                next(table, None)
                for line in table:
                    fields = line.split()
                    if len(fields) >= 13 and fields[9] == inode:
                        return int(fields[-1])
        except (OSError, ValueError):
            return None
        return None

    def _inode(self) -> str:
        # A socket's inode is the `inode` column of its line in /proc/net/udp.
        return str(os.fstat(self._sock.fileno()).st_ino)

    def wait_for(self, before: tuple[int, int | None], sent: int) -> tuple[int, int | None]:
        """Wait until the ``sent`` datagrams since ``before`` (a ``mark()``) were received
        or dropped (or SINK_DRAIN_TIMEOUT_S passed); return (received, dropped) since it."""
        deadline = time.monotonic() + SINK_DRAIN_TIMEOUT_S
        while True:
            received = self.received - before[0]
            dropped_now = self.dropped()
            dropped = None if dropped_now is None or before[1] is None else dropped_now - before[1]
            done = received + (dropped or 0) >= sent or not self._thread.is_alive()
            if done or time.monotonic() >= deadline:
                return received, dropped
            time.sleep(SINK_POLL_S)

    def mark(self) -> tuple[int, int | None]:
        return self.received, self.dropped()

    def close(self) -> None:
        if self._closing:
            return
        self._closing = True
        # Wake the thread from poll: an empty datagram is never a frame.
        with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as w:
            w.sendto(b"", self.address)
        self._thread.join(SINK_JOIN_S)
        self._sock.close()
