"""A plain TCP relay on the root side of a link: the device namespace has no route to the
broker, only to the root side's address, so a run's data plane connects to this relay,
which forwards every byte to the broker and back. It shapes nothing: it is one more
loopback TCP hop, whose cost is measured here per forwarded chunk and reported with the
run (docs/network-emulation.md, "Enforcing a run's profile").

One thread, one ``select`` over the listening socket and every connection; TCP_NODELAY
on both legs, so the relay adds no Nagle wait. The thread must be started from the
caller's (root-side) namespace: the upstream connections it makes belong to the network
namespace of the thread that creates them (``setns`` is per thread), and the broker is
reachable from there only.

Forwarding is ``sendall`` on blocking sockets: a round-trip run has one message in
flight, so a write never waits on the peer for long; a bulk transfer through the relay
would serialise its two directions.
"""

from __future__ import annotations

import contextlib
import logging
import select
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from iotsecbench_agent.netemu.errors import LinkError

logger = logging.getLogger(__name__)

CHUNK_BYTES = 65_536
UPSTREAM_CONNECT_TIMEOUT_S = 10.0
# Hop times kept for the percentiles: a long run's tail is summarised by max and count.
MAX_HOP_SAMPLES = 100_000
JOIN_TIMEOUT_S = 5.0
UP = "up"  # device → broker
DOWN = "down"  # broker → device


@dataclass
class _Direction:
    bytes: int = 0
    chunks: int = 0
    hop_ns: list[int] = field(default_factory=list)
    hop_max_ns: int = 0

    def note(self, size: int, hop: int) -> None:
        self.bytes += size
        self.chunks += 1
        if len(self.hop_ns) < MAX_HOP_SAMPLES:
            self.hop_ns.append(hop)
        self.hop_max_ns = max(self.hop_max_ns, hop)

    def as_dict(self) -> dict[str, Any]:
        ordered = sorted(self.hop_ns)

        def quantile_us(q: float) -> float | None:
            if not ordered:
                return None
            return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1e3, 1)

        return {
            "bytes": self.bytes,
            "chunks": self.chunks,
            "hop_p50_us": quantile_us(0.5),
            "hop_p95_us": quantile_us(0.95),
            "hop_max_us": round(self.hop_max_ns / 1e3, 1),
        }


class TcpRelay:
    """Listens on ``listen_host`` (an ephemeral port) in the caller's namespace and relays
    each accepted connection to ``upstream``. ``stats()`` holds the counters and the hop
    times (from ``select`` reporting a chunk to its ``sendall`` returning), per direction.
    Use as a context manager, or ``start``/``close``."""

    def __init__(self, listen_host: str, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self._listener.bind((listen_host, 0))
            self._listener.listen(16)
        except OSError as exc:
            self._listener.close()
            raise LinkError(f"relay cannot listen on {listen_host}: {exc}") from exc
        host, port = self._listener.getsockname()[:2]
        self.address: tuple[str, int] = (str(host), int(port))
        self._wake_r, self._wake_w = socket.socketpair()
        self._peers: dict[socket.socket, tuple[socket.socket, _Direction]] = {}
        self._directions = {UP: _Direction(), DOWN: _Direction()}
        self.connections = 0
        self.errors: list[str] = []
        self._thread = threading.Thread(target=self._loop, name="isb-relay", daemon=True)
        self._closed = False

    def __enter__(self) -> TcpRelay:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        """Stop the thread and close every socket; idempotent."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(OSError):
            self._wake_w.send(b"x")
        if self._thread.is_alive():
            self._thread.join(JOIN_TIMEOUT_S)
        for sock in [self._listener, self._wake_r, self._wake_w, *self._peers]:
            with contextlib.suppress(OSError):
                sock.close()
        self._peers.clear()

    def stats(self) -> dict[str, Any]:
        return {
            "listen": f"{self.address[0]}:{self.address[1]}",
            "upstream": f"{self.upstream[0]}:{self.upstream[1]}",
            "connections": self.connections,
            **{name: d.as_dict() for name, d in self._directions.items()},
            "errors": list(self.errors),
        }

    def _loop(self) -> None:
        try:
            while True:
                watched = [self._listener, self._wake_r, *self._peers]
                ready = select.select(watched, [], [])[0]
                t_ready = time.perf_counter_ns()
                for sock in ready:
                    if sock is self._wake_r:
                        return
                    if sock is self._listener:
                        self._accept()
                    elif sock in self._peers:
                        self._forward(sock, t_ready)
        except Exception as exc:  # the relay must never die silently: the run reports it
            logger.exception("agent.relay_failed")
            self.errors.append(f"relay stopped: {exc!r}")

    def _accept(self) -> None:
        client, _ = self._listener.accept()
        try:
            upstream = socket.create_connection(self.upstream, timeout=UPSTREAM_CONNECT_TIMEOUT_S)
        except OSError as exc:
            message = f"cannot connect to the broker {self.upstream[0]}:{self.upstream[1]}: {exc}"
            logger.error("agent.relay_upstream_failed %s", message)
            self.errors.append(message)
            client.close()
            return
        for sock in (client, upstream):
            sock.settimeout(None)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._peers[client] = (upstream, self._directions[UP])
        self._peers[upstream] = (client, self._directions[DOWN])
        self.connections += 1

    def _forward(self, sock: socket.socket, t_ready: int) -> None:
        peer, direction = self._peers[sock]
        try:
            data = sock.recv(CHUNK_BYTES)
            if data:
                peer.sendall(data)
                direction.note(len(data), time.perf_counter_ns() - t_ready)
                return
        except OSError as exc:
            logger.debug("agent.relay_connection_error %s", exc)
        # EOF or an error on either leg ends the pair (MQTT needs no half-close).
        for end in (sock, peer):
            self._peers.pop(end, None)
            with contextlib.suppress(OSError):
                end.close()
