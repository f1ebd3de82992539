"""A small synchronous MQTT-SN 1.2 client over UDP: the end the round-trip runner measures.

One UDP socket, ``connect``ed to the gateway's address so the kernel drops datagrams from
anyone else and reports the gateway's absence (ICMP port unreachable) as
``ConnectionRefusedError`` on the next receive. Everything runs in the calling thread:
``send`` writes one datagram and returns the octets the kernel took (a UDP datagram is
written whole or not at all), ``receive`` waits in ``select`` up to a deadline, never in
a sleep. Messages that arrive while waiting for something else are answered as the spec
asks of a client: a gateway's REGISTER gets a REGACK (§6.10), a QoS 1 PUBLISH that the
caller does not handle gets a PUBACK (§6.6).

The client never retransmits (§6.13 leaves Tretry/Nretry to the implementation): a run
measures each message once, and a message whose answer does not come within its timeout
is lost.
"""

from __future__ import annotations

import select
import socket
import time
from typing import TypeVar

from iotsecbench_agent.errors import DataPlaneError
from iotsecbench_agent.mqttsn import codec

T = TypeVar("T", bound=codec.Message)

REQUEST_TIMEOUT_S = 10.0
# Our socket reads up to the 3-octet Length's maximum so nothing is ever cut.
RECV_BYTES = codec.MAX_MESSAGE_BYTES


class SnClient:
    """One client's UDP socket to a gateway at ``gateway`` (host, port)."""

    def __init__(self, gateway: tuple[str, int]) -> None:
        host, port = gateway
        try:
            family, kind, proto, _name, address = socket.getaddrinfo(
                host, port, type=socket.SOCK_DGRAM
            )[0]
        except socket.gaierror as exc:
            raise DataPlaneError(f"MQTT-SN gateway {host}:{port}: {exc.strerror}") from None
        self.gateway = gateway
        self.sock = socket.socket(family, kind, proto)
        try:
            self.sock.connect(address)
        except OSError as exc:
            self.sock.close()
            raise DataPlaneError(f"MQTT-SN gateway {host}:{port}: {exc.strerror or exc}") from None
        self.sock.setblocking(False)
        self.bytes_sent = 0  # every datagram octet the kernel took from us
        self.bytes_received = 0
        self.refused = 0  # ICMP port unreachable seen: nothing listens at the gateway address
        self.last_sent_ns = 0
        self.topics: dict[int, str] = {}  # normal topic ids this client knows (§6.5, §6.10)
        self._next_msg_id = 0

    def next_msg_id(self) -> int:
        """MsgIds 1..0xFFFF in turn (§5.3.7; 0x0000 is QoS 0's)."""
        self._next_msg_id = self._next_msg_id % 0xFFFF + 1
        return self._next_msg_id

    def send(self, message: codec.Message) -> int:
        return self.send_bytes(codec.encode(message))

    def send_bytes(self, datagram: bytes) -> int:
        """Write one datagram; the octets the kernel took (all of them). A refusal reported
        for an earlier datagram is counted, not raised: this datagram may still arrive."""
        try:
            sent = self.sock.send(datagram)
        except ConnectionRefusedError:
            self.refused += 1
            sent = self.sock.send(datagram)
        except BlockingIOError:
            # The send buffer is full: wait until it drains (never happens at one message
            # in flight, but a datagram is either written or the run fails).
            _, writable, _ = select.select([], [self.sock], [], REQUEST_TIMEOUT_S)
            if not writable:
                raise DataPlaneError("timed out writing to the MQTT-SN socket") from None
            sent = self.sock.send(datagram)
        self.bytes_sent += sent
        self.last_sent_ns = time.perf_counter_ns()
        return sent

    def receive(self, deadline_ns: int, *, until_refused: bool = False) -> codec.Message | None:
        """The next well-formed message from the gateway, or None once ``deadline_ns``
        (``perf_counter_ns``) has passed, or with ``until_refused`` as soon as the kernel
        reports that nothing listens at the gateway's address. REGISTERs are answered here
        and not returned; malformed datagrams are skipped."""
        while True:
            remaining_s = (deadline_ns - time.perf_counter_ns()) / 1e9
            if remaining_s <= 0:
                return None
            readable, _, _ = select.select([self.sock], [], [], remaining_s)
            if not readable:
                return None
            try:
                data = self.sock.recv(RECV_BYTES)
            except ConnectionRefusedError:
                self.refused += 1  # the gateway is not there (any more)
                if until_refused:
                    return None
                continue
            except BlockingIOError:
                continue
            self.bytes_received += len(data)
            try:
                message = codec.decode(data)
            except codec.CodecError:
                continue
            if isinstance(message, codec.Register):
                self.topics[message.topic_id] = message.topic_name
                self.send(codec.Regack(message.topic_id, message.msg_id, codec.ACCEPTED))
                continue
            return message

    def request(self, message: codec.Message, answer: type[T], *, what: str) -> T:
        """Send ``message`` and wait for the ``answer`` type (QoS 1 PUBLISHes meanwhile get
        their PUBACK); DataPlaneError if none comes within REQUEST_TIMEOUT_S, or at once
        when nothing listens at the gateway's address."""
        self.send(message)
        deadline = time.perf_counter_ns() + int(REQUEST_TIMEOUT_S * 1e9)
        while True:
            got = self.receive(deadline, until_refused=True)
            if got is None:
                host, port = self.gateway
                why = " (nothing listens there)" if self.refused else ""
                raise DataPlaneError(f"MQTT-SN gateway {host}:{port} did not answer {what}{why}")
            if isinstance(got, answer):
                return got
            if isinstance(got, codec.Disconnect):
                raise DataPlaneError(f"the MQTT-SN gateway disconnected us during {what}")
            self.acknowledge(got)

    def acknowledge(self, message: codec.Message) -> None:
        """What a client owes for an unsolicited message: PUBACK for a QoS 1 PUBLISH."""
        if isinstance(message, codec.Publish) and message.qos == 1:
            self.send(codec.Puback(message.topic_id, message.msg_id, codec.ACCEPTED))

    def connect(self, client_id: str, *, duration_s: int) -> None:
        """CONNECT with a clean session and wait for an accepting CONNACK (§6.2)."""
        connack = self.request(
            codec.Connect(client_id=client_id, duration=duration_s), codec.Connack, what="CONNECT"
        )
        if connack.return_code != codec.ACCEPTED:
            raise DataPlaneError(
                f"the MQTT-SN gateway refused CONNECT: {return_code_name(connack.return_code)}"
            )

    def register(self, topic: str) -> int:
        """REGISTER a topic name; the normal topic id of the REGACK (§6.5)."""
        regack = self.request(
            codec.Register(0, self.next_msg_id(), topic), codec.Regack, what="REGISTER"
        )
        if regack.return_code != codec.ACCEPTED:
            raise DataPlaneError(
                f"the MQTT-SN gateway refused REGISTER {topic}: "
                f"{return_code_name(regack.return_code)}"
            )
        self.topics[regack.topic_id] = topic
        return regack.topic_id

    def subscribe(self, subscribe: codec.Subscribe) -> codec.Suback:
        """SUBSCRIBE and wait for an accepting SUBACK (§6.9)."""
        suback = self.request(subscribe, codec.Suback, what="SUBSCRIBE")
        if suback.return_code != codec.ACCEPTED:
            raise DataPlaneError(
                f"the MQTT-SN gateway refused SUBSCRIBE: {return_code_name(suback.return_code)}"
            )
        return suback

    def ping(self) -> None:
        """PINGREQ (§6.11); the PINGRESP is read by whoever receives next."""
        self.send(codec.Pingreq())

    def disconnect(self) -> None:
        """DISCONNECT and wait briefly for the gateway's DISCONNECT (§6.12); never raises."""
        try:
            self.send(codec.Disconnect())
            deadline = time.perf_counter_ns() + int(REQUEST_TIMEOUT_S * 1e9) // 10
            while True:
                got = self.receive(deadline, until_refused=True)
                if got is None or isinstance(got, codec.Disconnect):
                    return
        except (OSError, DataPlaneError):
            return

    def close(self) -> None:
        self.sock.close()


def return_code_name(code: int) -> str:
    return codec.RETURN_CODES.get(code, f"return code 0x{code:02x}")
