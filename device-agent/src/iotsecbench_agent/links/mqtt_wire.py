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

Over TLS (``MeteredClient(tls_context=...)``) paho is not told about TLS at all: our
``_create_socket`` wraps the plain TCP socket in a ``CountingTLSSocket``, which runs the TLS
connection itself on an ``ssl.SSLObject`` over memory BIOs and moves the encrypted bytes
between those BIOs and the raw TCP socket. Every raw ``send`` on the TCP socket is therefore
ours and is counted, so wire bytes are TLS records exactly as they appear as TCP payload on
the wire (record header, explicit nonce in TLS 1.2, content-type byte in TLS 1.3, AEAD
tag). What is attributed to a message: each paho ``send`` of plaintext (paho writes one MQTT
packet per call, continuing a partly written packet in the next call) is encrypted and
flushed to the kernel inside that call, so the meter records the pair (plaintext written,
TLS bytes written to TCP) and credits a packet with the TLS bytes of every write whose
plaintext starts inside that packet. A message's ``wire_bytes`` is then the TLS record(s)
carrying its PUBLISH (and retransmissions of it), the same boundary as on plain TCP: QoS
acks, the handshake, session tickets and alerts are counted by the socket
(``CountingTLSSocket.bytes_sent``/``bytes_received``) but not credited to a message.

Each socket also keeps its totals, for a run's ``bytes_sent``/``bytes_received``
(runners/resources.py): ``bytes_sent`` is counted in ``send`` as above (TLS records and the
handshake under TLS); ``total_received()`` is the kernel's count of TCP payload bytes
received on the connection (``TCP_INFO``'s ``tcpi_bytes_received``, Linux 4.1+), read when
asked and once more when the socket is closed. The kernel's count costs the measured round
trip nothing (paho's reads stay the raw socket's own methods, see ``CountingSocket``) and
includes what has arrived but paho has not read yet, such as the last message's PUBACK when
the run ends on its echo. Where the kernel does not count, ``recv`` counts in Python.

The parsing happens outside the timed window (when the runner asks, after the echo came
back); the hot path only copies the written bytes into a list.

Why a paho subclass: paho 2 has no public hook to wrap the socket it writes to.
``Client._create_socket`` is the one place where both ``connect()`` and ``reconnect()``
obtain it, so we override that one method, and ``MeteredClient.require_metering`` checks
after connecting that the socket really is ours. If a paho release moves that seam, the
run fails loudly and the wire-bytes tests fail, instead of reporting wrong numbers.
"""

from __future__ import annotations

import select
import socket
import ssl
import sys
import threading
from collections import Counter, deque
from typing import TYPE_CHECKING, Any, Callable

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


# struct tcp_info (linux/tcp.h): tcpi_state is its first byte, tcpi_bytes_received the u64
# at offset 128 (Linux 4.1+); the struct only ever grows, so these offsets hold.
TCP_INFO_BYTES = 136
TCPI_BYTES_RECEIVED = slice(128, 136)
# The peer's FIN is counted as one byte received; these states are those after it.
TCP_CLOSE_WAIT, TCP_LAST_ACK, TCP_CLOSING, TCP_TIME_WAIT = 8, 9, 11, 6
FIN_RECEIVED_STATES = (TCP_CLOSE_WAIT, TCP_LAST_ACK, TCP_CLOSING, TCP_TIME_WAIT)


def tcp_bytes_received(sock: socket.socket) -> int | None:
    """The TCP payload bytes the kernel has received on ``sock`` (its FIN not counted), or
    None where it does not say (not Linux, a kernel before 4.1, not TCP, or closed)."""
    option = getattr(socket, "TCP_INFO", None)
    if option is None:
        return None
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, option, TCP_INFO_BYTES)
    except OSError:
        return None
    if len(info) < TCP_INFO_BYTES:
        return None
    received = int.from_bytes(info[TCPI_BYTES_RECEIVED], sys.byteorder)
    return received - 1 if info[0] in FIN_RECEIVED_STATES and received else received


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
    """Collects the bytes a client wrote and attributes them to MQTT packets.

    The runner asks once per message, between two round trips, so the parse is kept
    cheap (offsets into one buffer, plain dicts and a list per packet type): on loopback
    the time between two messages shows in the next round trip (a broker that has gone
    idle wakes up more slowly), and the parse had been ~3.7 µs of it."""

    def __init__(self, *, mqtt5: bool, by_payload: bool = False) -> None:
        self._mqtt5 = mqtt5
        self._by_payload = by_payload
        # (plaintext written, wire bytes it cost); wire is None on plain TCP (the same).
        self._written: list[tuple[bytes, int | None]] = []
        self._lock = threading.Lock()
        self._buffer = bytearray()
        # Under TLS: (stream offset where a write's plaintext starts, its TLS bytes).
        self._writes: deque[tuple[int, int]] = deque()
        self._tls = False
        self._stream_pos = 0  # plaintext bytes drained into the buffer so far
        self._parsed_pos = 0  # plaintext bytes parsed into packets so far
        self._publish_bytes: dict[int, int] = {}
        self._payload_bytes: dict[bytes, int] = {}
        self._type_bytes = [0] * 16  # wire bytes by MQTT packet type (4-bit)
        self.total_bytes = 0  # MQTT bytes written (plaintext under TLS)
        self.wire_total = 0  # their wire bytes (TLS records under TLS; handshake excluded)

    @property
    def bytes_by_type(self) -> Counter[str]:
        """Wire bytes per MQTT packet type (TLS records under TLS), parsed so far."""
        return Counter(
            {
                PACKET_NAMES.get(kind, str(kind)): count
                for kind, count in enumerate(self._type_bytes)
                if count
            }
        )

    def record(self, data: bytes, wire: int | None = None) -> None:
        """Hot path: called from the socket's send with exactly the bytes written, and
        under TLS with the TLS record bytes that writing them put on the TCP socket."""
        self._written.append((data, wire))

    def publish_bytes(self, seq: int) -> int:
        """Bytes of every PUBLISH packet written so far that carries ``seq``."""
        with self._lock:
            if self._written:
                self._drain()
            return self._publish_bytes.get(seq, 0)

    def take_payload_bytes(self, payload: bytes) -> int:
        """Bytes of every PUBLISH written so far whose payload is exactly ``payload``
        (``by_payload`` meters), forgotten once read: the runner asks once per message, so
        the meter does not keep every payload of a long run."""
        with self._lock:
            if self._written:
                self._drain()
            return self._payload_bytes.pop(payload, 0)

    def restart_stream(self) -> None:
        """The connection was cut and a new one starts: parse what the old one wrote, then
        drop a packet it left half-written (its bytes stay in the totals), so the new
        connection's stream is parsed from its first packet (its CONNECT)."""
        with self._lock:
            if self._written:
                self._drain()
            self._parsed_pos += len(self._buffer)
            self._buffer.clear()
            self._writes.clear()

    def _drain(self) -> None:
        """Parse what was written since the last call (under ``_lock``)."""
        written, self._written = self._written, []
        buf = self._buffer
        for chunk, wire in written:
            size = len(chunk)
            if wire is None:
                self.wire_total += size
            else:
                self._tls = True
                self._writes.append((self._stream_pos, wire))
                self.wire_total += wire
            self._stream_pos += size
            self.total_bytes += size
            buf += chunk
        self._parse_complete_packets()

    def _wire_size(self, size: int) -> int:
        """Wire bytes of the packet of ``size`` plaintext bytes that starts at
        ``_parsed_pos``: the packet size on plain TCP; under TLS the TLS bytes of every
        write whose plaintext starts inside the packet."""
        if not self._tls:
            return size
        end = self._parsed_pos + size
        wire = 0
        writes = self._writes
        while writes and writes[0][0] < end:
            wire += writes.popleft()[1]
        return wire

    def _parse_complete_packets(self) -> None:
        buf = self._buffer
        end = len(buf)
        pos = 0
        tls = self._tls
        type_bytes = self._type_bytes
        while end - pos >= 2:
            if buf[pos + 1] < 0x80:  # a remaining length below 128: one byte
                size = 2 + buf[pos + 1]
                header = 2
            else:
                decoded = _decode_varint(buf, pos + 1)
                if decoded is None:
                    break  # remaining length not fully written yet
                header = 1 + decoded[1]
                size = header + decoded[0]
            if end - pos < size:
                break
            first = buf[pos]
            wire = self._wire_size(size) if tls else size
            type_bytes[first >> 4] += wire
            if first >> 4 == PUBLISH >> 4:
                start = pos + header
                # topic length, topic, packet id (QoS > 0)
                start += 2 + ((buf[start] << 8) | buf[start + 1]) + (2 if first & 0x06 else 0)
                if self._mqtt5:
                    start = _skip_properties(buf, start)
                stop = pos + size
                if self._by_payload:
                    key = bytes(buf[start:stop])
                    self._payload_bytes[key] = self._payload_bytes.get(key, 0) + wire
                elif stop - start >= SEQ_BYTES:
                    seq = int.from_bytes(buf[start : start + SEQ_BYTES], "big")
                    self._publish_bytes[seq] = self._publish_bytes.get(seq, 0) + wire
            pos += size
            self._parsed_pos += size
        if pos:
            del buf[:pos]


def _skip_properties(buf: bytearray, pos: int) -> int:
    """Where an MQTT 5 PUBLISH's payload begins, given where its properties length is."""
    decoded = _decode_varint(buf, pos)
    if decoded is None:
        raise DataPlaneError("malformed MQTT 5 properties length in a PUBLISH")
    props_len, n = decoded
    return pos + n + props_len


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
    """The socket paho writes to: a plain TCP socket whose sends are recorded.

    Only ``send`` is ours. ``recv``, ``fileno`` and ``setblocking`` are the raw socket's
    own methods, bound once: paho reads an incoming packet in several calls (its type byte,
    each byte of its length, then the rest), inside the measured round trip, and a Python
    frame around each of those reads cost ~0.1 µs apiece while adding nothing: the bytes
    received are the kernel's count (``total_received``; a counting ``recv`` only where the
    kernel keeps none)."""

    def __init__(self, sock: socket.socket, meter: OutboundMeter) -> None:
        self.raw = sock
        self._meter = meter
        self._send = sock.send
        self._record = meter.record
        self.recv: Callable[[int], bytes] = sock.recv
        self.fileno: Callable[[], int] = sock.fileno
        self.setblocking: Callable[[bool], None] = sock.setblocking
        self.bytes_sent = 0  # every byte the kernel accepted from us on this socket
        self.bytes_read = 0  # counted only where the kernel does not count (ReceivedBytes)
        self.received = ReceivedBytes(sock, lambda: self.bytes_read)
        if not self.received.by_kernel:
            self.recv = self._recv_counted

    def _recv_counted(self, size: int) -> bytes:
        data = self.raw.recv(size)
        self.bytes_read += len(data)
        return data

    def total_received(self) -> int:
        """Every byte received on this connection (see the module doc)."""
        return self.received.total()

    def send(self, buffer: bytes | bytearray) -> int:
        written = self._send(buffer)
        if written > 0:
            self.bytes_sent += written
            # bytes() of a whole bytes object is that object: a copy only when paho hands
            # us a bytearray or the kernel took part of the buffer.
            self._record(bytes(buffer if written == len(buffer) else buffer[:written]))
        return written

    def pending(self) -> int:
        return 0

    def close(self) -> None:
        self.received.close()
        self.raw.close()


class ReceivedBytes:
    """The bytes received on one TCP socket: the kernel's count where it keeps one
    (``tcp_bytes_received``), else ``read()``, what the wrapper read from the socket; kept
    when the socket is closed."""

    def __init__(self, sock: socket.socket, read: Callable[[], int]) -> None:
        self._sock = sock
        self._read = read
        self.by_kernel = tcp_bytes_received(sock) is not None
        self._at_close: int | None = None

    def total(self) -> int:
        if self._at_close is not None:
            return self._at_close
        counted = tcp_bytes_received(self._sock) if self.by_kernel else None
        return self._read() if counted is None else counted

    def close(self) -> None:
        """Keep the total before the socket is closed (its counters go with it)."""
        if self._at_close is None:
            self._at_close = self.total()


class TLSHandshakeError(DataPlaneError):
    """The TLS handshake with the broker failed (certificate, version, or peer closed)."""


class CountingTLSSocket:
    """The socket paho writes to over TLS: TLS run on an ``ssl.SSLObject`` over memory BIOs,
    with every encrypted byte moved to and from the raw TCP socket here and counted.

    paho sees a plain socket-like object (it is not told about TLS). ``send`` encrypts and
    writes the resulting TLS records to the kernel before returning, so each call's TLS
    bytes are known exactly; ``recv`` decrypts, reading raw bytes only when the TLS layer
    needs more. ``pending`` reports bytes already received but not yet handed to paho, which
    a ``select`` on the file descriptor cannot see.
    """

    def __init__(
        self,
        sock: socket.socket,
        meter: OutboundMeter,
        context: ssl.SSLContext,
        server_hostname: str,
    ) -> None:
        self.raw = sock
        self._meter = meter
        self._incoming = ssl.MemoryBIO()
        self._outgoing = ssl.MemoryBIO()
        self._tls = context.wrap_bio(
            self._incoming, self._outgoing, server_side=False, server_hostname=server_hostname
        )
        self._timeout_s: float | None = None
        self.bytes_sent = 0  # raw TCP payload bytes the kernel accepted from us
        self.bytes_received = 0  # raw TCP payload bytes read from the kernel
        self.received = ReceivedBytes(sock, lambda: self.bytes_received)
        self.handshake_bytes_sent = 0
        self.tls_error: str | None = None  # the TLS layer's error that ended the connection

    @property
    def version(self) -> str | None:
        return self._tls.version()

    def handshake(self, timeout_s: float) -> None:
        """The client handshake, blocking up to ``timeout_s`` per network wait."""
        self._timeout_s = timeout_s
        self.raw.settimeout(timeout_s)
        try:
            while True:
                try:
                    self._tls.do_handshake()
                    break
                except ssl.SSLWantReadError:
                    self._flush()
                    self._read_raw()
            self._flush()
        except ssl.SSLCertVerificationError as exc:
            raise TLSHandshakeError(
                f"TLS: the broker's certificate was not accepted: {exc.verify_message}"
            ) from None
        except ssl.SSLError as exc:
            raise TLSHandshakeError(f"TLS handshake failed: {exc.reason or exc}") from None
        except (ConnectionError, TimeoutError, OSError) as exc:
            raise TLSHandshakeError(
                f"TLS handshake failed: {getattr(exc, 'strerror', None) or exc}"
            ) from None
        self.handshake_bytes_sent = self.bytes_sent

    def send(self, buffer: bytes | bytearray) -> int:
        try:
            written = self._tls.write(buffer)
        except ssl.SSLError as exc:
            self._note(exc)
            raise
        wire = self._flush()
        if written > 0:
            self._meter.record(bytes(buffer[:written]), wire)
        return written

    def recv(self, buffer_size: int) -> bytes:
        while True:
            try:
                data = self._tls.read(buffer_size)
            except ssl.SSLWantReadError:
                self._flush()  # anything the TLS layer wants to say first
                if not self._read_raw():
                    return b""  # the broker closed the TCP connection
                continue
            except ssl.SSLZeroReturnError:
                return b""  # close_notify: a clean end of the TLS connection
            except ssl.SSLError as exc:
                self._note(exc)
                raise
            self._flush()  # e.g. a key update answered while reading
            return data

    def pending(self) -> int:
        """Bytes received from the kernel that paho has not read yet (decrypted and not)."""
        return self._tls.pending() + self._incoming.pending

    def close(self) -> None:
        self.received.close()
        self.raw.close()

    def total_received(self) -> int:
        """Every byte received on this connection, TLS records as they came (module doc)."""
        return self.received.total()

    def fileno(self) -> int:
        return self.raw.fileno()

    def setblocking(self, flag: bool) -> None:
        self.raw.setblocking(flag)

    def _read_raw(self) -> bool:
        """Move what the kernel has into the TLS layer; False at end of stream. A
        non-blocking socket with nothing to read raises BlockingIOError (paho: try later)."""
        data = self.raw.recv(65536)
        if not data:
            self._incoming.write_eof()
            return False
        self.bytes_received += len(data)
        self._incoming.write(data)
        return True

    def _flush(self) -> int:
        """Write every TLS byte waiting in the outgoing BIO to the kernel; their count.

        On a non-blocking socket whose send buffer is full this waits for it to drain (up
        to the connect timeout per wait): the records are already encrypted, and paho must
        not believe they were written unless they were.
        """
        data = self._outgoing.read()
        view = memoryview(data)
        while view:
            try:
                sent = self.raw.send(view)
            except BlockingIOError:
                _, writable, _ = select.select([], [self.raw], [], self._timeout_s)
                if not writable:
                    raise TimeoutError("timed out writing TLS records") from None
                continue
            except OSError:
                self._read_alert()
                raise
            self.bytes_sent += sent
            view = view[sent:]
        return len(data)

    def _note(self, exc: ssl.SSLError) -> None:
        self.tls_error = str(exc.reason or exc)

    def _read_alert(self) -> None:
        """The peer closed on us: note the TLS alert it may have sent first (e.g. TLS 1.3's
        "certificate required", which arrives after the client's handshake completed)."""
        try:
            self.raw.setblocking(False)
            while True:
                data = self.raw.recv(65536)
                if not data:
                    break
                self.bytes_received += len(data)
                self._incoming.write(data)
        except OSError:
            pass
        try:
            self._tls.read(1)
        except ssl.SSLError as exc:
            if not isinstance(exc, (ssl.SSLWantReadError, ssl.SSLZeroReturnError)):
                self._note(exc)


class MeteredClient(mqtt.Client):
    """A paho client whose socket is a CountingSocket feeding ``meter``, or with
    ``tls_context`` a CountingTLSSocket (TLS run by us, below paho)."""

    def __init__(
        self,
        meter: OutboundMeter,
        *,
        tls_context: ssl.SSLContext | None = None,
        connect_timeout_s: float = 10.0,
        server_hostname: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.meter = meter
        self._tls_context = tls_context
        # The name the broker's certificate must carry when we connect to another address
        # (a relay, enforcement.py); None: the host we connect to.
        self._server_hostname = server_hostname
        self._connect_timeout_s = connect_timeout_s
        # The last socket we made: it outlives paho's reference when paho drops it.
        self.last_metered: CountingSocket | CountingTLSSocket | None = None

    def _create_socket(self) -> SocketLike:
        sock = super()._create_socket()
        if isinstance(sock, ssl.SSLSocket) or not isinstance(sock, socket.socket):
            # paho's own TLS (tls_set) would encrypt below our meter: use tls_context.
            sock.close()
            raise DataPlaneError("wire-byte metering needs TLS through tls_context, not paho's")
        if self._tls_context is None:
            self.last_metered = CountingSocket(sock, self.meter)
            return self.last_metered
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            # Before the handshake, so its flights are not held back by Nagle.
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        server_hostname = self._server_hostname or str(self._host)
        tls = CountingTLSSocket(sock, self.meter, self._tls_context, server_hostname)
        try:
            tls.handshake(self._connect_timeout_s)
        except BaseException:
            sock.close()
            raise
        self.last_metered = tls
        return tls

    def metered_socket(self) -> CountingSocket | CountingTLSSocket | None:
        sock = self.socket()
        return sock if isinstance(sock, (CountingSocket, CountingTLSSocket)) else None

    def require_metering(self) -> socket.socket:
        """The raw TCP socket, or DataPlaneError if paho is not writing through our meter."""
        sock = self.metered_socket()
        if sock is None and self.socket() is None and self.last_metered is not None:
            tls_error = getattr(self.last_metered, "tls_error", None)
            raise DataPlaneError(
                "the broker closed the connection as soon as it was opened"
                + (f" (TLS: {tls_error})" if tls_error else "")
            )
        if sock is None:
            raise DataPlaneError(
                "paho-mqtt did not use the metered socket: wire bytes cannot be counted "
                "with this paho-mqtt version"
            )
        return sock.raw
