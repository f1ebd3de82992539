"""Helpers of the MQTT-SN tests: a broker that also allows short topic names, and a UDP
tap that sits between a client and the gateway and keeps every datagram the client sent."""

from __future__ import annotations

import contextlib
import select
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

from testkit import Broker, mosquitto_binary, run_mosquitto

MOSQUITTO_MISSING = "mosquitto not found on PATH or in /usr/sbin: apt-get install mosquitto"


def _allow_one_level_topics(tmp: Path) -> str:
    """``run_mosquitto``'s extra config hook, used to widen its ACL (written just before to
    ``tmp/acl``): MQTT-SN short topic names are 2-character topics such as ``ab``, outside
    the test ACL's ``iotsecbench/#`` prefix."""
    acl = tmp / "acl"
    assert acl.exists(), "testkit.run_mosquitto no longer writes tmp/acl"
    # First: lines after a ``user`` line (testkit's injector) are that user's alone.
    acl.write_text("topic readwrite +\n" + acl.read_text())
    return ""


def run_sn_broker() -> Iterator[Broker]:
    binary = mosquitto_binary()
    assert binary is not None, MOSQUITTO_MISSING
    yield from run_mosquitto(binary, _allow_one_level_topics)


class UdpTap:
    """A UDP relay on 127.0.0.1 in front of ``upstream``: each client address gets its own
    upstream socket (so the gateway still tells clients apart), every datagram a client
    sends is kept in ``sent`` (in order), and ``drop`` makes the tap swallow the client's
    datagrams (a gateway that drops them)."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sent: list[bytes] = []
        self.drop = False
        self._lock = threading.Lock()
        self._clients: dict[socket.socket, tuple[str, int]] = {}
        self._by_address: dict[tuple[str, int], socket.socket] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._relay, daemon=True)
        self._thread.start()

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.sock.getsockname()
        return str(host), int(port)

    @property
    def spec_value(self) -> str:
        host, port = self.address
        return f"{host}:{port}"

    def datagrams(self) -> list[bytes]:
        with self._lock:
            return list(self.sent)

    def _relay(self) -> None:
        while not self._stop.is_set():
            sockets = [self.sock, *self._clients]
            readable, _, _ = select.select(sockets, [], [], 0.1)
            for sock in readable:
                try:
                    data, address = sock.recvfrom(65535)
                except OSError:
                    continue
                if sock is self.sock:
                    self._from_client(data, address)
                else:
                    self.sock.sendto(data, self._clients[sock])

    def _from_client(self, data: bytes, address: tuple[str, int]) -> None:
        with self._lock:
            self.sent.append(data)
        if self.drop:
            return
        upstream = self._by_address.get(address)
        if upstream is None:
            upstream = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            upstream.connect(self.upstream)
            self._by_address[address] = upstream
            self._clients[upstream] = address
        # The gateway gone: the datagram is lost, as on a real network.
        with contextlib.suppress(ConnectionRefusedError):
            upstream.send(data)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        for sock in [self.sock, *self._clients]:
            sock.close()
