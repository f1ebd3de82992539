"""Counting the UDP payload bytes a CoAP client sends, per message exchange (wire_bytes).

Wire bytes are counted, not estimated. aiocoap's ``udp6`` transport writes every datagram
with one ``sock.sendmsg(...)`` call on the Python socket object it was given
(``aiocoap.util.asyncio.recvmsg.RecvmsgSelectorDatagramTransport.sendmsg``): requests,
retransmissions of CON requests, every Block1/Block2 request and the empty ACKs of
separate responses alike. ``CountingDatagramSocket`` is a ``socket.socket`` whose
``sendmsg``/``sendto``/``send`` record the byte count the kernel accepted (their return
value; a UDP datagram is sent whole or not at all), so a message's ``wire_bytes`` is the sum
of the CoAP messages (header + token + options + payload marker + payload) that went out
while it was in flight: UDP/IP headers are the kernel's and not counted, as TCP/IP headers
are not for MQTT (docs/wire-bytes.md).

Why a transport subclass: aiocoap has no public hook to give its UDP transport a socket.
``MessageInterfaceUDP6.create_client_transport_endpoint`` makes a plain socket and hands it
to ``_create_transport_endpoint``; ``MeteredUDP6`` does the same with a counting socket, and
``open_client_context`` builds a client context around that one transport (the seam
aiocoap's own ``create_client_context`` uses). ``require_metering`` checks after setup that
the transport really writes to our socket: if an aiocoap release moves the seam, the run
fails loudly and the wire-bytes tests fail, instead of reporting wrong numbers. Checked
with aiocoap 0.4.7 (the last release for Python 3.9) and 0.4.17.
"""

from __future__ import annotations

import asyncio
import socket
from time import perf_counter_ns
from typing import Any

from aiocoap import Context
from aiocoap.transports.udp6 import MessageInterfaceUDP6

from iotsecbench_agent.errors import DataPlaneError

ACK_TYPE = 2


class CountingDatagramSocket(socket.socket):
    """A UDP socket that keeps the size of every datagram the kernel accepted.

    The hot path only appends an int; ``take`` sums them later, outside the timed window.
    """

    # socket.socket has __slots__; a subclass without them would still work, but keep the
    # instance small and its attributes explicit.
    __slots__ = (
        "acks",
        "datagrams_total",
        "first_mid",
        "received_total",
        "sent",
        "sent_total",
        "watch_acks",
    )

    def __init__(self, family: int, type: int) -> None:
        super().__init__(family, type)
        self.sent: list[int] = []
        self.sent_total = 0  # bytes over the socket's life (taken or not)
        self.datagrams_total = 0
        self.received_total = 0  # bytes of every datagram read (the run's bytes_received)
        # Measurement ``ack``: the Message ID of the exchange's first datagram sent, and
        # (perf_counter_ns, Message ID) of every ACK read, until ``take_ack``.
        self.watch_acks = False
        self.first_mid: int | None = None
        self.acks: list[tuple[int, int]] = []

    def sendmsg(self, buffers: Any, *args: Any) -> int:
        n = super().sendmsg(buffers, *args)
        self.sent.append(n)
        if self.watch_acks and self.first_mid is None:
            head = bytes(buffers[0][:4])
            if len(head) == 4:
                self.first_mid = int.from_bytes(head[2:4], "big")
        return n

    def recvmsg(self, bufsize: int, *args: Any) -> Any:
        result = super().recvmsg(bufsize, *args)
        self.received_total += len(result[0])
        if self.watch_acks:
            t_read = perf_counter_ns()
            data = result[0]
            # RFC 7252 §3: Ver(2) T(2) TKL(4), Code, Message ID; T = 2 is an ACK.
            if len(data) >= 4 and (data[0] >> 4) & 0x3 == ACK_TYPE:
                self.acks.append((t_read, int.from_bytes(data[2:4], "big")))
        return result

    def take_ack(self) -> int | None:
        """When the ACK of the exchange's first datagram (a CON request: the same Message
        ID across its retransmissions) was read, as a ``perf_counter_ns`` reading, or None;
        the watch starts again for the next exchange."""
        mid, acks = self.first_mid, self.acks
        self.first_mid, self.acks = None, []
        return next((t for t, ack_mid in acks if ack_mid == mid), None)

    def sendto(self, data: Any, *args: Any) -> int:
        n = super().sendto(data, *args)
        self.sent.append(n)
        return n

    def send(self, data: Any, flags: int = 0) -> int:
        n = super().send(data, flags)
        self.sent.append(n)
        return n

    def sent_so_far(self) -> int:
        """Bytes sent over the socket's life, taken or not (the run's bytes_sent)."""
        return self.sent_total + sum(self.sent)

    def take(self) -> tuple[int, int]:
        """(bytes, datagrams) sent since the last ``take``."""
        sent, self.sent = self.sent, []
        total = sum(sent)
        self.sent_total += total
        self.datagrams_total += len(sent)
        return total, len(sent)


class MeteredUDP6(MessageInterfaceUDP6):
    """aiocoap's udp6 client transport on a ``CountingDatagramSocket``."""

    @classmethod
    async def create_metered_endpoint(
        cls, sock: CountingDatagramSocket, mman: Any, log: Any, loop: asyncio.AbstractEventLoop
    ) -> MeteredUDP6:
        # As MessageInterfaceUDP6.create_client_transport_endpoint, with our socket.
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        endpoint: MeteredUDP6 = await cls._create_transport_endpoint(sock, mman, log, loop)
        return endpoint


async def open_client_context(
    loop: asyncio.AbstractEventLoop, *, loggername: str = "coap-client"
) -> tuple[Any, CountingDatagramSocket]:
    """A client ``aiocoap.Context`` whose only transport is udp6 on a counting socket.

    Call it from a coroutine running on ``loop`` (the measuring thread's loop).
    """
    sock = CountingDatagramSocket(socket.AF_INET6, socket.SOCK_DGRAM)
    try:
        context = Context(loop=loop, serversite=None, loggername=loggername)
        endpoints: list[MeteredUDP6] = []

        async def create(mman: Any) -> MeteredUDP6:
            endpoint = await MeteredUDP6.create_metered_endpoint(sock, mman, context.log, loop)
            endpoints.append(endpoint)
            return endpoint

        await context._append_tokenmanaged_messagemanaged_transport(create)
    except Exception:
        sock.close()
        raise
    require_metering(endpoints[0], sock)
    return context, sock


def abandon_exchanges(context: Any, remote: Any) -> int:
    """Stop every confirmable exchange of ``context`` with ``remote``: its retransmissions
    are cancelled and the remote leaves aiocoap's backlog, so the next CON goes out at once.

    Why: aiocoap (0.4.17) keeps a CON's exchange until it is acknowledged or its last
    retransmission times out (up to MAX_TRANSMIT_WAIT, 93 s with the defaults), even once
    the request's response future is cancelled; with NSTART = 1 it holds every later CON to
    the same server back in a backlog meanwhile. A runner that gives up on a message at
    ``timeout_ms`` calls this, so that message stops being retransmitted (as RFC 7252 lets a
    client that abandons an exchange do) and the next message is sent when its record says.
    aiocoap has no public call for it; the seam is its message manager's
    ``_active_exchanges``/``_continue_backlog``, checked here like ``require_metering``
    checks the socket. Returns how many exchanges were stopped.
    """
    stopped = 0
    managers: list[Any] = [
        getattr(ri, "token_interface", None) for ri in context.request_interfaces
    ]
    for manager in managers:
        exchanges = getattr(manager, "_active_exchanges", None)
        backlogs = getattr(manager, "_backlogs", None)
        if not isinstance(exchanges, dict) or not isinstance(backlogs, dict):
            raise DataPlaneError(
                "aiocoap's message manager has no _active_exchanges/_backlogs (an aiocoap "
                "release changed the seam runners/coap_wire.py uses); an abandoned CON "
                "request cannot be stopped"
            )
        for key in [key for key in exchanges if key[0] == remote]:
            _monitor, next_retransmission = exchanges.pop(key)
            next_retransmission.cancel()
            stopped += 1
        if remote in backlogs:
            manager._continue_backlog(remote)
    return stopped


def require_metering(endpoint: Any, sock: CountingDatagramSocket) -> None:
    """DataPlaneError unless aiocoap's transport writes to ``sock`` (see the module doc)."""
    transport = getattr(endpoint, "transport", None)
    used = transport.get_extra_info("socket") if transport is not None else None
    if used is not sock:
        raise DataPlaneError(
            "aiocoap's udp6 transport does not write to the metered socket "
            "(an aiocoap release changed the seam runners/coap_wire.py uses); "
            "wire bytes cannot be counted"
        )
