"""Counting the bytes an MQTT client writes to its socket, per PUBLISH (wire_bytes).

Wire bytes are counted, not estimated. ``MeteredClient`` hands paho a ``CountingSocket``
instead of the plain TCP socket; its ``send`` keeps a copy of every byte that the kernel
accepted (the return value of ``send``, so partial writes count what was really written).
``OutboundMeter`` later parses that byte stream back into MQTT packets and credits each
PUBLISH packet's full size to the message ``seq`` in its first 8 payload bytes (a
retransmission with DUP set is credited to the same seq: those bytes were written too).
With ``by_payload=True`` it credits each PUBLISH to its exact payload bytes instead: a
secured payload starts with an IV or nonce, not the seq, and only the runner knows which
wire bytes it published for which seq.

The parsing happens outside the timed window (when the runner asks, after the echo came
back); the hot path only copies the written bytes into a list.

Why a paho subclass: paho 2 has no public hook to wrap the socket it writes to.
``Client._create_socket`` is the one place where both ``connect()`` and ``reconnect()``
obtain it, so we override that one method, and ``MeteredClient.require_metering`` checks
after connecting that the socket really is ours. If a paho release moves that seam, the
run fails loudly and the wire-bytes tests fail, instead of reporting wrong numbers.
"""

from __future__ import annotations

import socket
import ssl
import threading
from collections import Counter
from typing import TYPE_CHECKING, Any

import paho.mqtt.client as mqtt

from iotsecbench_agent.errors import DataPlaneError

if TYPE_CHECKING:
    from paho.mqtt.client import SocketLike

PUBLISH = 0x30
SEQ_BYTES = 8
PACKET_NAMES = {
    1: "CONNECT",
    3: "PUBLISH",
    4: "PUBACK",
    5: "PUBREC",
    6: "PUBREL",
    7: "PUBCOMP",
    8: "SUBSCRIBE",
    10: "UNSUBSCRIBE",
    12: "PINGREQ",
    14: "DISCONNECT",
    15: "AUTH",
}


def varint(n: int) -> bytes:
    """MQTT's variable byte integer (the "remaining length" encoding)."""
    out = bytearray()
    while True:
        byte, n = n % 128, n // 128
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def publish_packet_size(*, topic: str, payload_size: int, qos: int, mqtt5: bool = False) -> int:
    """Size of a PUBLISH packet by the MQTT spec: fixed header (1 byte + varint of the
    remaining length) + topic (2-byte length + UTF-8) + packet id (QoS>0) + properties
    length (MQTT 5, no properties) + payload."""
    remaining = 2 + len(topic.encode("utf-8")) + (2 if qos else 0) + (1 if mqtt5 else 0)
    remaining += payload_size
    return 1 + len(varint(remaining)) + remaining


class OutboundMeter:
    """Collects the bytes a client wrote and attributes them to MQTT packets."""

    def __init__(self, *, mqtt5: bool, by_payload: bool = False) -> None:
        self._mqtt5 = mqtt5
        self._by_payload = by_payload
        self._written: list[bytes] = []
        self._lock = threading.Lock()
        self._buffer = bytearray()
        self._publish_bytes: Counter[int] = Counter()
        self._payload_bytes: Counter[bytes] = Counter()
        self.bytes_by_type: Counter[str] = Counter()
        self.total_bytes = 0

    def record(self, data: bytes) -> None:
        """Hot path: called from the socket's send with exactly the bytes written."""
        self._written.append(data)

    def publish_bytes(self, seq: int) -> int:
        """Bytes of every PUBLISH packet written so far that carries ``seq``."""
        self._drain()
        return self._publish_bytes[seq]

    def take_payload_bytes(self, payload: bytes) -> int:
        """Bytes of every PUBLISH written so far whose payload is exactly ``payload``
        (``by_payload`` meters), forgotten once read: the runner asks once per message, so
        the meter does not keep every payload of a long run."""
        self._drain()
        with self._lock:
            return self._payload_bytes.pop(payload, 0)

    def _drain(self) -> None:
        with self._lock:
            written, self._written = self._written, []
            for chunk in written:
                self.total_bytes += len(chunk)
                self._buffer += chunk
            self._parse_complete_packets()

    def _parse_complete_packets(self) -> None:
        buf = self._buffer
        while len(buf) >= 2:
            decoded = _decode_varint(buf, 1)
            if decoded is None:
                return  # remaining length not fully written yet
            remaining, length_bytes = decoded
            size = 1 + length_bytes + remaining
            if len(buf) < size:
                return
            packet_type = buf[0] >> 4
            self.bytes_by_type[PACKET_NAMES.get(packet_type, str(packet_type))] += size
            if packet_type == PUBLISH >> 4:
                pos = self._payload_start(buf, 1 + length_bytes)
                if self._by_payload:
                    self._payload_bytes[bytes(buf[pos:size])] += size
                elif size - pos >= SEQ_BYTES:
                    self._publish_bytes[int.from_bytes(buf[pos : pos + SEQ_BYTES], "big")] += size
            del buf[:size]

    def _payload_start(self, buf: bytearray, start: int) -> int:
        """Where the payload of the (complete) PUBLISH packet in ``buf`` begins."""
        qos = (buf[0] >> 1) & 0x03
        topic_len = int.from_bytes(buf[start : start + 2], "big")
        pos = start + 2 + topic_len + (2 if qos else 0)
        if self._mqtt5:
            decoded = _decode_varint(buf, pos)
            if decoded is None:
                raise DataPlaneError("malformed MQTT 5 properties length in a PUBLISH")
            props_len, n = decoded
            pos += n + props_len
        return pos


def _decode_varint(buf: bytearray, pos: int) -> tuple[int, int] | None:
    """(value, bytes used) of the varint at ``pos``, or None if it is not complete yet."""
    value = 0
    for i in range(4):
        if pos + i >= len(buf):
            return None
        byte = buf[pos + i]
        value += (byte & 0x7F) << (7 * i)
        if not byte & 0x80:
            return value, i + 1
    raise DataPlaneError("malformed MQTT remaining length in the outgoing stream")


class CountingSocket:
    """The socket paho writes to: a plain TCP socket whose sends are recorded."""

    def __init__(self, sock: socket.socket, meter: OutboundMeter) -> None:
        self.raw = sock
        self._meter = meter

    def send(self, buffer: bytes | bytearray) -> int:
        written = self.raw.send(buffer)
        if written > 0:
            self._meter.record(bytes(buffer[:written]))
        return written

    def recv(self, buffer_size: int) -> bytes:
        return self.raw.recv(buffer_size)

    def close(self) -> None:
        self.raw.close()

    def fileno(self) -> int:
        return self.raw.fileno()

    def setblocking(self, flag: bool) -> None:
        self.raw.setblocking(flag)


class MeteredClient(mqtt.Client):
    """A paho client whose socket is a CountingSocket feeding ``meter``."""

    def __init__(self, meter: OutboundMeter, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.meter = meter

    def _create_socket(self) -> SocketLike:
        sock = super()._create_socket()
        if isinstance(sock, ssl.SSLSocket) or not isinstance(sock, socket.socket):
            # Under TLS the bytes on the wire are TLS records, not what paho writes here:
            # they have to be counted below the TLS layer, which this meter does not do.
            sock.close()
            raise DataPlaneError("wire-byte metering supports plain TCP only")
        return CountingSocket(sock, self.meter)

    def require_metering(self) -> socket.socket:
        """The raw TCP socket, or DataPlaneError if paho is not writing through our meter."""
        sock = self.socket()
        if not isinstance(sock, CountingSocket):
            raise DataPlaneError(
                "paho-mqtt did not use the metered socket: wire bytes cannot be counted "
                "with this paho-mqtt version"
            )
        return sock.raw
