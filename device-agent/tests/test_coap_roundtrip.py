"""The CoAP round-trip runner over real UDP sockets on 127.0.0.1: against the agent's own
echo server, and against ``RawCoapPeer``, a CoAP peer written here from RFC 7252 with
the standard library only, which records every datagram it receives and answers as told
(echo, a corrupted echo, or nothing)."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import pytest
from iotsecbench_contract.errors import JobSpecError

from iotsecbench_agent.errors import DataPlaneError, RunAborted
from iotsecbench_agent.jobkinds import runner_for
from iotsecbench_agent.runners import RunClock, RunContext
from iotsecbench_agent.runners.coap_roundtrip import CoapRoundTripRunner
from iotsecbench_agent.runners.coap_server import CoapEchoServer
from iotsecbench_agent.storage.recordlog import DECRYPT_ERROR, LOST, OK, Record
from testkit import free_port

DEVICE = "6f1c1a52-3c1e-4a8e-9a57-1d0c2b7e9f10"
WAIT_S = 10.0

# RFC 7252 §3: Ver (2 bits) = 1, Type (2 bits), Token Length (4 bits), Code, Message ID.
HEADER_BYTES = 4
PAYLOAD_MARKER = 0xFF
CON, NON, ACK = 0, 1, 2
PUT_CODE, CHANGED_CODE = 0x03, 0x44  # 0.03 PUT, 2.04 Changed
URI_PATH = 11


def spec(**overrides: Any) -> dict[str, Any]:
    return {
        "protocol": "coap",
        "measurement": "round_trip",
        "security": "none",
        "payload_size": 66,
        "message_count": 20,
        "interval_ms": 0,
        "timeout_ms": 2000,
        **overrides,
    }


def run(
    job_spec: dict[str, Any], stop: threading.Event | None = None
) -> tuple[list[Record], CoapRoundTripRunner]:
    records: list[Record] = []
    context = RunContext(
        run_id=str(uuid.uuid4()),
        device_id=DEVICE,
        clock=RunClock(),
        emit=records.append,
        stop=stop or threading.Event(),
    )
    runner = runner_for("messaging", job_spec)(job_spec, context)
    assert isinstance(runner, CoapRoundTripRunner)
    runner.execute()
    return records, runner


# -- a CoAP peer from the RFC ----------------------------------------------------------------


@dataclass(frozen=True)
class Datagram:
    raw: bytes
    type: int
    code: int
    mid: bytes
    token: bytes
    options: list[tuple[int, bytes]]
    payload: bytes

    @classmethod
    def parse(cls, raw: bytes) -> Datagram:
        assert raw[0] >> 6 == 1, "CoAP version 1"
        tkl = raw[0] & 0x0F
        token = raw[HEADER_BYTES : HEADER_BYTES + tkl]
        pos = HEADER_BYTES + tkl
        options: list[tuple[int, bytes]] = []
        number = 0
        while pos < len(raw) and raw[pos] != PAYLOAD_MARKER:
            delta, length = raw[pos] >> 4, raw[pos] & 0x0F
            pos += 1
            delta, pos = _extended(raw, delta, pos)
            length, pos = _extended(raw, length, pos)
            number += delta
            options.append((number, raw[pos : pos + length]))
            pos += length
        payload = raw[pos + 1 :] if pos < len(raw) else b""
        return cls(raw, (raw[0] >> 4) & 0x03, raw[1], raw[2:4], token, options, payload)


def _extended(raw: bytes, nibble: int, pos: int) -> tuple[int, int]:
    """RFC 7252 §3.1: option delta/length nibbles 13 and 14 take 1 or 2 more bytes."""
    if nibble == 13:
        return raw[pos] + 13, pos + 1
    if nibble == 14:
        return int.from_bytes(raw[pos : pos + 2], "big") + 269, pos + 2
    return nibble, pos


@dataclass
class RawCoapPeer:
    """A UDP socket on 127.0.0.1 answering each request with a 2.04 whose payload is
    ``answer(request payload)`` (piggybacked ACK for CON, NON for NON); ``answer=None``
    answers nothing. Every received datagram is kept in ``received``."""

    answer: Any = None
    received: list[Datagram] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.05)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"coap://127.0.0.1:{self.sock.getsockname()[1]}/echo"

    def _serve(self) -> None:
        next_mid = 0x7000
        while not self._stop.is_set():
            try:
                raw, address = self.sock.recvfrom(65535)
            except socket.timeout:
                continue
            request = Datagram.parse(raw)
            self.received.append(request)
            if self.answer is None:
                continue
            if request.type == CON:
                kind, mid = ACK, request.mid
            else:
                next_mid += 1
                kind, mid = NON, next_mid.to_bytes(2, "big")
            header = bytes([0x40 | kind << 4 | len(request.token), CHANGED_CODE]) + mid
            body = self.answer(request.payload)
            self.sock.sendto(header + request.token + bytes([PAYLOAD_MARKER]) + body, address)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(WAIT_S)
        self.sock.close()


@pytest.fixture
def echo_peer() -> Any:
    peer = RawCoapPeer(answer=lambda payload: payload)
    yield peer
    peer.close()


@pytest.fixture
def silent_peer() -> Any:
    peer = RawCoapPeer(answer=None)
    yield peer
    peer.close()


def uri_path_bytes(segment: str) -> int:
    """One Uri-Path option as the first option: 1 byte of delta/length, then the value
    (delta 11 fits in the nibble; lengths up to 12 too)."""
    assert len(segment) <= 12
    return 1 + len(segment)


# -- against the agent's echo server -----------------------------------------------------------


@pytest.mark.parametrize("coap_type", ["con", "non"])
@pytest.mark.parametrize("method", ["get", "put", "post"])
def test_coap_roundtrip_records_every_message_ok_when_local_echo_server_answers(
    coap_type: str, method: str
) -> None:
    records, runner = run(spec(coap_type=coap_type, coap_method=method))

    assert [r.seq for r in records] == list(range(20))
    assert {r.outcome for r in records} == {OK}
    assert all(r.t_recv_ns is not None and r.t_recv_ns > r.t_send_ns for r in records)
    assert {r.app_bytes for r in records} == {66}
    # One datagram per message: header + token (aiocoap: 1..8 bytes) + Uri-Path "echo"
    # + payload marker + payload.
    assert runner.datagrams_sent == 20
    fixed = HEADER_BYTES + uri_path_bytes("echo") + 1 + 66
    assert all(fixed + 1 <= r.wire_bytes <= fixed + 8 for r in records)
    assert runner.unattributed_bytes == 0


@pytest.mark.parametrize(
    ("coap_type", "method", "block_size", "datagrams"),
    [
        # 1700 bytes at 1024 per block: 2 Block1 requests, then 1 Block2 request for the
        # rest of the echoed body (its first block comes with the last Block1's response).
        ("con", "put", 1024, 3),
        ("non", "post", 1024, 3),
        ("con", "get", 1024, 3),
        # 256-byte blocks: 7 Block1 requests + 6 Block2 requests.
        ("con", "put", 256, 13),
    ],
)
def test_coap_roundtrip_goes_blockwise_when_payload_exceeds_the_block_size(
    coap_type: str, method: str, block_size: int, datagrams: int
) -> None:
    records, runner = run(
        spec(
            coap_type=coap_type,
            coap_method=method,
            block_size=block_size,
            payload_size=1700,
            message_count=2,
        )
    )

    assert {r.outcome for r in records} == {OK}
    assert runner.datagrams_sent == 2 * datagrams
    # Every datagram has at least a header, so the exchange's bytes exceed the body by
    # more than one datagram's overhead.
    assert all(r.wire_bytes > 1700 + datagrams * HEADER_BYTES for r in records)


@pytest.mark.parametrize("payload_size", [1, 65536])
def test_coap_roundtrip_carries_payloads_at_both_ends_of_the_range(payload_size: int) -> None:
    records, runner = run(spec(payload_size=payload_size, message_count=2))

    assert {r.outcome for r in records} == {OK}
    assert {r.app_bytes for r in records} == {payload_size}
    blocks = -(-payload_size // 1024)
    assert runner.datagrams_sent == 2 * (1 if blocks == 1 else 2 * blocks - 1)


@pytest.mark.parametrize(("security", "framed"), [("aes-128-cbc", 16 + 80), ("tea-cbc", 8 + 72)])
def test_coap_roundtrip_secures_the_payload_and_times_both_phases(
    security: str, framed: int
) -> None:
    records, _runner = run(spec(security=security, message_count=10))

    assert {r.outcome for r in records} == {OK}
    assert all(r.secure_ns is not None and r.secure_ns > 0 for r in records)
    assert all(r.unsecure_ns is not None and r.unsecure_ns > 0 for r in records)
    for r in records:
        assert r.t_recv_ns is not None
        assert r.t_recv_ns - r.t_send_ns > (r.secure_ns or 0) + (r.unsecure_ns or 0)
    # iv + CBC(PKCS#7(66 bytes)) on the wire instead of the 66 bytes.
    fixed = HEADER_BYTES + uri_path_bytes("echo") + 1 + framed
    assert all(fixed + 1 <= r.wire_bytes <= fixed + 8 for r in records)


def test_coap_roundtrip_records_the_harness_floor_beside_every_message_when_secured() -> None:
    records, _runner = run(spec(security="aes-128-cbc", message_count=10))

    assert {r.outcome for r in records} == {OK}
    for r in records:
        assert r.floor_secure_ns is not None
        assert r.floor_unsecure_ns is not None
        assert r.floor_secure_ns > 0
        assert r.floor_unsecure_ns > 0


def test_coap_roundtrip_leaves_the_floor_empty_when_the_run_has_no_mechanism() -> None:
    records, _runner = run(spec(message_count=3))

    assert {r.outcome for r in records} == {OK}
    assert {(r.floor_secure_ns, r.floor_unsecure_ns) for r in records} == {(None, None)}


def test_coap_roundtrip_uses_an_external_server_when_coap_url_is_given() -> None:
    with CoapEchoServer() as server:
        records, runner = run(spec(coap_url=server.url, message_count=5))

    assert runner.server is None  # no local server of its own
    assert {r.outcome for r in records} == {OK}


def test_coap_roundtrip_fails_the_run_when_the_server_answers_an_error_code() -> None:
    with CoapEchoServer() as server, pytest.raises(DataPlaneError, match=r"4\.04"):
        run(spec(coap_url=server.url.replace("/echo", "/nothing-here")))


def test_coap_roundtrip_fails_the_run_when_nothing_listens_on_the_port() -> None:
    # The kernel answers with ICMP port unreachable, which aiocoap reports.
    with pytest.raises(DataPlaneError, match=r"NetworkError.*Errno 111"):  # ECONNREFUSED
        run(spec(coap_url=f"coap://127.0.0.1:{free_port()}/echo"))


def test_coap_roundtrip_waits_the_interval_between_messages() -> None:
    records, _runner = run(spec(message_count=3, interval_ms=30))

    gaps = [b.t_send_ns - a.t_send_ns for a, b in zip(records, records[1:])]
    assert all(gap >= 30_000_000 for gap in gaps)


def test_coap_roundtrip_stops_between_messages_when_stop_is_set() -> None:
    stop = threading.Event()
    stop.set()

    with pytest.raises(RunAborted):
        run(spec(), stop=stop)


# -- against the peer from the RFC -------------------------------------------------------------


@pytest.mark.parametrize(("coap_type", "type_bits"), [("con", CON), ("non", NON)])
def test_coap_wire_bytes_equal_the_coap_message_size_when_one_put_is_sent(
    echo_peer: RawCoapPeer, coap_type: str, type_bits: int
) -> None:
    records, _runner = run(
        spec(coap_url=echo_peer.url, coap_type=coap_type, message_count=1, payload_size=100)
    )

    (record,) = records
    (datagram,) = echo_peer.received
    assert record.outcome == OK
    assert (datagram.type, datagram.code) == (type_bits, PUT_CODE)
    assert datagram.options == [(URI_PATH, b"echo")]
    assert len(datagram.payload) == 100
    expected = HEADER_BYTES + len(datagram.token) + uri_path_bytes("echo") + 1 + 100
    assert record.wire_bytes == expected == len(datagram.raw)


def test_coap_roundtrip_records_decrypt_error_when_the_response_does_not_decrypt() -> None:
    # The peer echoes the frame one byte short: no longer a whole number of AES blocks.
    peer = RawCoapPeer(answer=lambda payload: payload[:-1])
    try:
        records, _runner = run(spec(coap_url=peer.url, security="aes-128-cbc", message_count=3))
    finally:
        peer.close()

    assert {r.outcome for r in records} == {DECRYPT_ERROR}
    assert all(r.t_recv_ns is not None and r.unsecure_ns is not None for r in records)


def test_coap_non_records_lost_when_the_server_never_answers(silent_peer: RawCoapPeer) -> None:
    records, _runner = run(
        spec(coap_url=silent_peer.url, coap_type="non", message_count=3, timeout_ms=100)
    )

    assert [(r.seq, r.outcome, r.t_recv_ns, r.unsecure_ns) for r in records] == [
        (0, LOST, None, None),
        (1, LOST, None, None),
        (2, LOST, None, None),
    ]
    # Sent once each, and counted.
    assert [d.type for d in silent_peer.received] == [NON] * 3
    assert [r.wire_bytes for r in records] == [len(d.raw) for d in silent_peer.received]


def test_coap_roundtrip_floors_only_securing_when_the_server_never_answers(
    silent_peer: RawCoapPeer,
) -> None:
    records, _runner = run(
        spec(
            coap_url=silent_peer.url,
            coap_type="non",
            security="null",
            message_count=2,
            timeout_ms=100,
        )
    )

    assert {r.outcome for r in records} == {LOST}
    for r in records:
        # As unsecure_ns: nothing came back to unsecure, so no floor for it either.
        assert (r.unsecure_ns, r.floor_unsecure_ns) == (None, None)
        assert r.floor_secure_ns is not None
        assert r.floor_secure_ns > 0


def test_coap_con_records_lost_after_its_retransmissions_when_the_server_never_answers(
    silent_peer: RawCoapPeer,
) -> None:
    started = time.monotonic()
    records, _runner = run(
        spec(
            coap_url=silent_peer.url,
            coap_type="con",
            message_count=1,
            timeout_ms=5000,
            coap_ack_timeout_ms=20,
            coap_max_retransmit=2,
        )
    )
    elapsed = time.monotonic() - started

    (record,) = records
    assert (record.outcome, record.t_recv_ns) == (LOST, None)
    # The first transmission and 2 retransmissions of the same message (same MID),
    # each counted; given up after the last ACK timeout (at most 20 ms x 1.5 x (1+2+4)),
    # well before timeout_ms.
    assert len(silent_peer.received) == 3
    assert {(d.type, d.mid, d.raw) for d in silent_peer.received} == {
        (CON, silent_peer.received[0].mid, silent_peer.received[0].raw)
    }
    assert record.wire_bytes == 3 * len(silent_peer.received[0].raw)
    assert elapsed < 4.0


# -- spec checks -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"coap_type": "confirmable"}, r"spec\.coap_type 'confirmable' is not supported"),
        ({"coap_method": "delete"}, r"spec\.coap_method 'delete' is not supported"),
        ({"block_size": 1000}, r"spec\.block_size must be a power of two in 16\.\.1024"),
        ({"block_size": 2048}, r"spec\.block_size must be a power of two"),
        ({"block_size": True}, r"spec\.block_size must be a power of two"),
        ({"block_size": 1024.0}, r"spec\.block_size must be a power of two"),
        ({"payload_size": 0}, r"spec\.payload_size must be an integer in 1\.\.65536"),
        ({"payload_size": 65537}, r"spec\.payload_size must be an integer in 1\.\.65536"),
        ({"coap_url": "http://127.0.0.1/echo"}, r"spec\.coap_url must be a coap://"),
        ({"coap_url": "coaps://127.0.0.1/echo"}, r"coaps:// is not supported"),
        ({"coap_url": "coap:///echo"}, r"spec\.coap_url must be a coap://"),
        ({"coap_url": "coap://127.0.0.1:99999/echo"}, r"spec\.coap_url must be a coap://"),
        ({"coap_url": 5683}, r"spec\.coap_url must be a coap://"),
        ({"coap_ack_timeout_ms": 0}, r"spec\.coap_ack_timeout_ms must be a number >= 1"),
        ({"coap_max_retransmit": 21}, r"spec\.coap_max_retransmit must be an integer in 0\.\.20"),
        ({"security": "aes-512-gcm"}, r"spec\.security 'aes-512-gcm' is not supported"),
        ({"security_key": "not hex"}, r"spec\.security_key must be a hex string"),
        ({"tls_version": "1.3"}, r"spec\.tls_version: coap runs over plain UDP \(no DTLS\)"),
        ({"timeout_ms": 0}, r"spec\.timeout_ms must be a number >= 1"),
        ({"measurement": "one_way"}, r"measurement 'one_way' is not supported for coap"),
    ],
)
def test_coap_runner_rejects_spec_as_unsupported_when_values_are_out_of_range(
    overrides: dict[str, Any], message: str
) -> None:
    bad = spec(**overrides)
    with pytest.raises(JobSpecError, match=message):
        runner_for("messaging", bad).validate_spec(bad)


def test_coap_runner_refuses_a_key_the_mechanism_cannot_use() -> None:
    with pytest.raises(JobSpecError, match="16-byte key"):
        run(spec(security="aes-128-cbc", security_key="00" * 8))


def test_coap_runner_ignores_the_mqtt_fields_the_platform_sends_with_every_job() -> None:
    records, _runner = run(
        spec(
            message_count=2,
            broker_url="mqtt://127.0.0.1:1883",
            topic="iotsecbench/data/x",
            mqtt_version="3.1.1",
            qos=1,
        )
    )

    assert {r.outcome for r in records} == {OK}


def test_importing_the_runners_and_the_agent_leaves_aiocoap_to_the_coap_runners_setup() -> None:
    # runners/base.py: a runner imports its protocol library in ``setup``.
    code = (
        "import sys\n"
        "import iotsecbench_agent.cli.main, iotsecbench_agent.runners\n"
        "print(any(name.split('.')[0] == 'aiocoap' for name in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )

    assert result.stdout.strip() == "False"


class FirstSilentPeer(RawCoapPeer):
    """Echoes every request but the first, which it only keeps (a lost request)."""

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                raw, address = self.sock.recvfrom(65535)
            except socket.timeout:
                continue
            request = Datagram.parse(raw)
            self.received.append(request)
            if len(self.received) == 1:
                continue
            header = bytes([0x40 | ACK << 4 | len(request.token), CHANGED_CODE]) + request.mid
            self.sock.sendto(
                header + request.token + bytes([PAYLOAD_MARKER]) + request.payload, address
            )


def test_coap_con_sends_the_next_message_at_once_when_the_previous_one_timed_out() -> None:
    # timeout_ms (300) ends message 0 long before its first retransmission (ACK timeout
    # 2 s): its exchange must stop, or aiocoap (NSTART = 1) holds messages 1 and 2 back
    # and they are recorded lost with wire_bytes 0.
    peer = FirstSilentPeer()
    try:
        records, runner = run(
            spec(
                coap_url=peer.url,
                coap_type="con",
                message_count=3,
                timeout_ms=300,
                coap_ack_timeout_ms=2000,
                coap_max_retransmit=4,
            )
        )
        time.sleep(3.5)  # past message 0's first retransmission time, had it not stopped
        received = list(peer.received)
    finally:
        peer.close()

    assert [(r.seq, r.outcome) for r in records] == [(0, LOST), (1, OK), (2, OK)]
    # Each message sent once, in order, three different Message IDs: message 0 was
    # never retransmitted, not even after the run.
    assert [d.type for d in received] == [CON] * 3
    assert len({d.mid for d in received}) == 3
    assert [r.wire_bytes for r in records] == [len(d.raw) for d in received]
    assert runner.unattributed_bytes == 0
