"""CoAP round-trip runner (protocol ``coap``; job fields and decisions in docs/coap.md).

Each message is one CoAP request to an echo resource whose response carries the request's
(secured) body back: PUT or POST, or GET carrying the body (the MQTT/CoAP paper timed
CoAP GETs; see docs/coap.md for why GET carries it). Confirmable (``con``) or
non-confirmable (``non``); bodies larger than ``block_size`` go block-wise (Block1 for the
request, Block2 for the response, RFC 7959). Without ``coap_url`` the agent runs the echo
server itself (``coap_server.CoapEchoServer``, its own event loop in its own thread);
with it, a server elsewhere answers. ``coap_path`` (segments without a leading /, as in a
URI) is the resource's path: it replaces ``coap_url``'s path, and the local echo server
serves its resource there; without it, ``coap_url``'s path, else ``echo``.

Measurement choices, and why:

- The client is aiocoap on the measuring thread's own asyncio event loop: ``run`` runs one
  coroutine that sends, awaits and records message after message, so nothing is handed
  between threads inside a round trip. The local server's loop runs in another thread, as
  a real peer would run in another process.
- ``t_send`` is taken just BEFORE ``secure``, ``t_recv`` just AFTER the response has been
  received (all its blocks) and ``unsecure``d, as the MQTT/CoAP paper measures it;
  ``secure_ns``/``unsecure_ns`` are the time inside each (``timing.time_secure`` /
  ``time_unsecure``). A response that does not unsecure is ``decrypt_error``
  (``rejected_signature`` for a MAC or signature). The mechanism is built in ``setup``;
  the server's address is resolved there too, and the ``null`` mechanism timed after each
  round trip as the record's harness floor (``timing.HarnessFloor``) is built there.
- No response within ``timeout_ms`` → ``lost`` and the request is cancelled: a CON
  request stops being retransmitted and the next message goes out at once
  (``coap_wire.abandon_exchanges``; aiocoap alone would retransmit it and, NSTART being
  1, hold every later CON back until it gave up); a CON request whose retransmissions
  (``coap_max_retransmit``, every ``coap_ack_timeout_ms`` doubling, RFC 7252 §4.2) all go
  unanswered is ``lost`` too, when the last one times out.
- ``wire_bytes`` is every UDP payload byte the client's socket sent while the message was
  in flight: the request, its retransmissions, every Block1 and Block2 request, empty ACKs
  (``coap_wire.py``; docs/wire-bytes.md). Anything sent between two messages is counted in
  ``unattributed_bytes``, not in a record.
- A response with an error code (4.xx, 5.xx) fails the run: the server is not an echo
  resource, and a record cannot say so.
- Measurement ``ack`` (the MQTT/CoAP paper's CON → ACK): the same exchange, but the
  record's ``t_recv`` is the reading taken when the client socket read the ACK carrying the
  request's Message ID (``coap_wire.CountingDatagramSocket.take_ack``; a piggybacked
  response or an empty ACK before a separate response), before aiocoap parses it; nothing
  is unsecured in the timed window (``unsecure_ns`` empty). The response is still awaited
  before the next message, so one exchange is in flight at a time. Only ``con`` requests
  whose secured body fits one block are accepted (one CON, one ACK per message); no ACK
  within ``timeout_ms`` → ``lost``.
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
import time
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from iotsecbench_contract.interleave import parse_interleave
from iotsecbench_contract.jobspec import (
    ACK,
    ROUND_TRIP,
    Schedule,
    choice_field,
    hex_field,
    int_field,
    number_field,
)
from iotsecbench_contract.mechanisms import describe as mechanism_info

from iotsecbench_agent.errors import DataPlaneError, UnsupportedJob
from iotsecbench_agent.links.mqtt_wire import SEQ_BYTES
from iotsecbench_agent.runners.base import Runner, message_seqs, register, require
from iotsecbench_agent.runners.interleave import Rotation, rotation_of
from iotsecbench_agent.runners.mqtt_roundtrip import SECURITY_NONE, filler_for, payload_of
from iotsecbench_agent.runners.resources import Traffic
from iotsecbench_agent.runners.target_watch import TargetWatch
from iotsecbench_agent.runners.timing import (
    HarnessFloor,
    ack_record,
    refusal_outcome,
    round_trip_record,
    time_secure,
    time_unsecure,
)
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import Mechanism, MechanismError
from iotsecbench_agent.storage.recordlog import LOST, OK

if TYPE_CHECKING:
    # aiocoap and the modules over it are imported in ``setup`` (runners/base.py), so
    # importing the runners does not load aiocoap.
    from iotsecbench_agent.runners.coap_server import CoapEchoServer
    from iotsecbench_agent.runners.coap_wire import CountingDatagramSocket

logger = logging.getLogger(__name__)

TYPES = ("con", "non")
METHODS = ("put", "post", "get")
# RFC 7959: block sizes 16..1024 bytes (SZX 0..6); 1024 is also what fits one datagram
# comfortably (RFC 7252 §4.6: messages up to 1152 bytes, payloads up to 1024).
MIN_BLOCK_SIZE = 16
MAX_BLOCK_SIZE = 1024
BLOCK_SIZES = tuple(2**e for e in range(4, 11))
# 64 KiB: the largest body the echo server reassembles for one message; far beyond what a
# constrained device sends, and few block exchanges per message even at 16-byte blocks.
MAX_PAYLOAD_BYTES = 64 * 1024
MIN_PAYLOAD_BYTES = 1
# RFC 7252 §4.8 defaults.
DEFAULT_ACK_TIMEOUT_MS = 2000.0
DEFAULT_MAX_RETRANSMIT = 4
MAX_RETRANSMIT_LIMIT = 20
COAP_SCHEME = "coap"
DEFAULT_PORT = 5683
# Fields of MQTT runs: the platform sends broker_url, topic, mqtt_version and qos with
# every messaging job, and they say nothing about CoAP, so they are ignored. TLS fields
# would promise a protection this runner does not give (no DTLS), so they are refused.
TLS_FIELDS = ("tls_version", "ca_cert", "client_cert", "client_key")
# The options a request URL sets (aiocoap's Message.set_request_uri); Uri-Host only for a
# host name, not for an IP literal (RFC 7252 §6.4).
URI_OPTIONS = ("uri_host", "uri_port", "uri_path", "uri_query")
# RFC 3986 pchar (unreserved, sub-delims, ":" and "@", %XX) segments separated by "/".
_PCHARS = r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})+"
_PATH = re.compile(rf"{_PCHARS}(?:/{_PCHARS})*")
# Between messages the interval wait wakes this often to see a stop (ms → s).
STOP_POLL_S = 0.1
NS_PER_S = 1_000_000_000


@dataclass(frozen=True)
class CoapSpec:
    schedule: Schedule
    coap_type: str = "con"
    method: str = "put"
    block_size: int = MAX_BLOCK_SIZE
    # None: the agent's own echo server on 127.0.0.1.
    url: str | None = None
    # None: the URL's own path (the local server's: echo).
    path: str | None = None
    ack_timeout_ms: float = DEFAULT_ACK_TIMEOUT_MS
    max_retransmit: int = DEFAULT_MAX_RETRANSMIT
    security: str = SECURITY_NONE
    security_key: bytes | None = field(default=None, repr=False)
    # Measurement ``ack``: time each CON request until its ACK (not the response's body).
    ack: bool = False
    # An interleaved run's mechanisms (runners/interleave.py); None: ``security`` alone.
    interleave: tuple[str, ...] | None = None

    @classmethod
    def parse(cls, spec: Mapping[str, Any]) -> CoapSpec:
        given_tls = [name for name in TLS_FIELDS if spec.get(name) is not None]
        if given_tls:
            raise UnsupportedJob(
                f"spec.{given_tls[0]}: coap runs over plain UDP (no DTLS); "
                "protect the payload with spec.security instead"
            )
        block_size = spec.get("block_size", MAX_BLOCK_SIZE)
        if (
            not isinstance(block_size, int)
            or isinstance(block_size, bool)
            or (block_size not in BLOCK_SIZES)
        ):
            raise UnsupportedJob(
                f"spec.block_size must be a power of two in {MIN_BLOCK_SIZE}..{MAX_BLOCK_SIZE} "
                f"({', '.join(map(str, BLOCK_SIZES))}), got {block_size!r}"
            )
        url = spec.get("coap_url")
        if url is not None:
            url = _coap_url(url)
        path = spec.get("coap_path")
        if path is not None:
            path = check_coap_path(path)
            url = None if url is None else _with_path(url, path)
        parsed = cls(
            schedule=Schedule.parse(
                spec, min_payload=MIN_PAYLOAD_BYTES, max_payload=MAX_PAYLOAD_BYTES
            ),
            coap_type=choice_field(spec, "coap_type", TYPES, "con"),
            method=choice_field(spec, "coap_method", METHODS, "put"),
            block_size=int(block_size),
            url=url,
            path=path,
            ack_timeout_ms=(
                number_field(spec, "coap_ack_timeout_ms", minimum=1.0)
                if "coap_ack_timeout_ms" in spec
                else DEFAULT_ACK_TIMEOUT_MS
            ),
            max_retransmit=(
                int_field(spec, "coap_max_retransmit", 0, MAX_RETRANSMIT_LIMIT)
                if "coap_max_retransmit" in spec
                else DEFAULT_MAX_RETRANSMIT
            ),
            security=choice_field(spec, "security", tuple(registry.names()), SECURITY_NONE),
            security_key=hex_field(spec, "security_key"),
            ack=spec.get("measurement") == ACK,
            interleave=rotation_of(parse_interleave(spec)),
        )
        if parsed.ack:
            _check_ack(parsed)
        return parsed

    @property
    def size_exponent(self) -> int:
        """RFC 7959's SZX: block size = 2 ** (SZX + 4)."""
        return int(math.log2(self.block_size)) - 4


NON_HAS_NO_ACK = (
    "spec.coap_type 'non': a non-confirmable request has no ACK to time; measurement 'ack' "
    "needs coap_type 'con'"
)
ACK_NEEDS_ONE_BLOCK = (
    "spec.payload_size: measurement 'ack' times one CON request and its ACK, and {security} "
    "makes {size} bytes a {frame}-byte body, over block_size {block}: use at most {fits} bytes"
)


def _check_ack(spec: CoapSpec) -> None:
    """An ``ack`` run needs one confirmable request per message (one CON, one ACK)."""
    if spec.coap_type != "con":
        raise UnsupportedJob(NON_HAS_NO_ACK)
    info = mechanism_info(spec.security)
    size = spec.schedule.payload_size
    frame = size + info.overhead(size)
    if frame > spec.block_size:
        raise UnsupportedJob(
            ACK_NEEDS_ONE_BLOCK.format(
                security=spec.security,
                size=size,
                frame=frame,
                block=spec.block_size,
                fits=info.largest_payload(spec.block_size),
            )
        )


def _coap_url(value: object) -> str:
    """``coap://host[:port]/path`` checked (an IPv6 host in brackets: ``coap://[::1]:5683``);
    UnsupportedJob with what is wrong."""
    if not isinstance(value, str):
        raise UnsupportedJob("spec.coap_url must be a coap://host:port/path URL")
    try:
        parsed = urllib.parse.urlsplit(value)
        port = parsed.port
    except ValueError:  # a bad port, or a bracketed host that is no IP address
        parsed, port = None, -1
    if parsed is None or parsed.scheme != COAP_SCHEME or not parsed.hostname or port in (-1, 0):
        raise UnsupportedJob(
            f"spec.coap_url must be a coap://host:port/path URL (coaps:// is not supported), "
            f"got {value!r}"
        )
    return value


def check_coap_path(value: object) -> str:
    """``a/b`` checked: non-empty segments of RFC 3986 path characters (the backend's rule,
    experiments/addressing.py); UnsupportedJob with what is wrong."""
    if not isinstance(value, str) or not _PATH.fullmatch(value):
        raise UnsupportedJob(
            "spec.coap_path must be a resource path without a leading / (e.g. echo or "
            f"sensors/temp): non-empty segments, no query or fragment, got {value!r}"
        )
    return value


def _with_path(url: str, path: str) -> str:
    return urllib.parse.urlunsplit(urllib.parse.urlsplit(url)._replace(path=f"/{path}"))


def message_payload(seq: int, filler: bytes, size: int) -> bytes:
    """The round-trip payload (§5): ``seq`` big-endian, then the filler; below 8 bytes the
    low-order bytes of ``seq`` (CoAP matches responses by token, not by payload)."""
    if size >= SEQ_BYTES:
        return payload_of(seq, filler)
    return (seq % (1 << (8 * size))).to_bytes(size, "big")


@register
class CoapRoundTripRunner(Runner):
    protocol = "coap"
    measurements = (ROUND_TRIP, ACK)
    spec_type = CoapSpec

    def __init__(self, spec: Mapping[str, Any], context: Any) -> None:
        super().__init__(spec, context)
        self.spec = CoapSpec.parse(spec)
        self.server: CoapEchoServer | None = None
        self.url = self.spec.url or ""
        self.unattributed_bytes = 0  # sent between two messages (not in any record)
        self.datagrams_sent = 0  # by the client, in the records' exchanges
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: Any = None
        self._sock: CountingDatagramSocket | None = None
        self._template: Any = None  # the request every message copies (setup)
        self._mechanism: Mechanism | None = None
        self._floor: HarnessFloor | None = None
        self._tuning: Any = None  # aiocoap's TransportTuning (setup)
        self._new_message: Any = None  # aiocoap's Message (setup)

    def setup(self) -> None:
        from aiocoap import Message

        from iotsecbench_agent.runners.coap_server import CoapEchoServer
        from iotsecbench_agent.runners.coap_wire import open_client_context

        spec = self.spec
        self._new_message = Message
        self._tuning = _tuning(spec)
        try:
            self._mechanism = (
                Rotation(spec.interleave)
                if spec.interleave
                else registry.create(spec.security, key=spec.security_key)
            )
        except MechanismError as exc:
            raise UnsupportedJob(str(exc)) from None
        self._floor = HarnessFloor.for_security(spec.security)
        if spec.url is None:
            server = CoapEchoServer(path=spec.path) if spec.path else CoapEchoServer()
            self.server = server.start()
            self.url = self.server.url
        self._loop = asyncio.new_event_loop()
        self._client, self._sock = self._loop.run_until_complete(open_client_context(self._loop))
        self._loop.run_until_complete(self._resolve())
        self.socket.watch_acks = spec.ack

    def run(self) -> None:
        require(self._loop).run_until_complete(self._run())

    def cleanup(self) -> None:
        self._mechanism = None
        self._floor = None
        loop, self._loop = self._loop, None
        client, self._client = self._client, None
        try:
            if loop is not None:
                try:
                    if client is not None:
                        loop.run_until_complete(client.shutdown())
                    loop.run_until_complete(loop.shutdown_asyncgens())
                finally:
                    loop.close()
        finally:
            server, self.server = self.server, None
            if server is not None:
                server.stop()

    @property
    def socket(self) -> CountingDatagramSocket:
        """The client's (metered) UDP socket, after ``setup``."""
        return require(self._sock)

    def traffic(self) -> Traffic:
        """The client's UDP socket (the CoAP messages: requests, their retransmissions and
        Block-wise requests, ACKs of separate responses, and all it read); the echo server
        the runner may start itself is the other end, not counted."""
        sock = self._sock
        return Traffic() if sock is None else Traffic(sock.sent_so_far(), sock.received_total)

    def _message(self, payload: bytes) -> Any:
        """One request: the URL's options and the resolved server copied from the
        template ``_resolve`` made, not parsed again (parsing the URL took ~15 µs, inside
        the round trip)."""
        template = self._template
        message = self._new_message(
            code=template.code, payload=payload, transport_tuning=self._tuning
        )
        message.mtype = template.mtype
        message.remote = template.remote
        opt, given = message.opt, template.opt
        for name in URI_OPTIONS:
            value = getattr(given, name)
            if value:
                setattr(opt, name, value)
        if given.block2 is not None:
            opt.block2 = given.block2
        return message

    async def _resolve(self) -> None:
        """The request template: the URL parsed and the server's address resolved once,
        before anything is timed; the remote carries the block size for Block1 (aiocoap
        reads it there)."""
        from aiocoap import CON, GET, NON, POST, PUT
        from aiocoap import error as coap_error

        codes = {"get": GET, "put": PUT, "post": POST}
        template = self._new_message(
            code=codes[self.spec.method], uri=self.url, transport_tuning=self._tuning
        )
        if not _has_reliability():
            template.mtype = CON if self.spec.coap_type == "con" else NON
        if self.spec.block_size < MAX_BLOCK_SIZE:
            # Early negotiation (RFC 7959 §2.4): the response's blocks at our size too.
            template.opt.block2 = (0, False, self.spec.size_exponent)
        try:
            await self._client.find_remote_and_interface(template)
        except (coap_error.Error, OSError) as exc:
            raise DataPlaneError(f"cannot resolve the CoAP server {self.url}: {exc}") from None
        template.remote.maximum_block_size_exp = self.spec.size_exponent
        self._template = template

    async def _run(self) -> None:
        from aiocoap import error as coap_error

        from iotsecbench_agent.runners.coap_wire import abandon_exchanges

        spec = self.spec
        schedule = spec.schedule
        mechanism = self._require_mechanism()
        secure = mechanism.secure
        unsecure = mechanism.unsecure
        rotation = mechanism if isinstance(mechanism, Rotation) else None
        name: str | None = None
        floor = self._floor
        sock = self.socket
        clock = self.context.clock
        stop = self.context.stop
        emit = self.context.emit
        timeout_s = schedule.timeout_ms / 1000
        next_interval_ns = schedule.interval_sampler()
        filler = filler_for(max(schedule.payload_size, SEQ_BYTES))
        size = schedule.payload_size
        # A named server (coap_url) is watched; the agent's own echo server is not.
        watch = TargetWatch("CoAP server", spec.url)
        for seq in message_seqs(schedule.message_count, stop):
            payload = message_payload(seq, filler, size)
            self.unattributed_bytes += sock.take()[0]
            sock.take_ack()  # an ACK read between two messages belongs to neither
            if rotation is not None:
                name = rotation.select(seq)
                floor = rotation.floor()
            wire, t_send, t_secured = time_secure(secure, payload)
            request = self._client.request(self._message(wire))
            outcome = OK
            t_recv = unsecure_ns = None
            try:
                response = await asyncio.wait_for(request.response, timeout_s)
            except asyncio.TimeoutError:
                # Given up at timeout_ms: wait_for cancelled the response; the CON's
                # exchange is stopped too, or aiocoap would retransmit it and hold the
                # next messages back (coap_wire.abandon_exchanges).
                outcome = LOST
                abandon_exchanges(self._client, self._template.remote)
            except coap_error.TimeoutError:
                outcome = LOST
            except coap_error.Error as exc:
                raise DataPlaneError(f"CoAP request to {self.url} failed: {exc!r}") from None
            else:
                if not response.code.is_successful():
                    raise DataPlaneError(
                        f"the CoAP server answered {response.code} to "
                        f"{spec.method.upper()} {self.url}: not an echo resource"
                    )
                _, error, t_unsecure, t_recv = time_unsecure(unsecure, response.payload)
                unsecure_ns = t_recv - t_unsecure
                if error is not None:
                    outcome = refusal_outcome(error)
            wire_bytes, datagrams = sock.take()
            self.datagrams_sent += datagrams
            if spec.ack:
                # The ACK's reading, taken when the socket read it (coap_wire); the
                # response it carried (or that followed it) was awaited all the same, so
                # one exchange is in flight at a time.
                t_ack = sock.take_ack()
                times = (t_send, t_secured, t_ack)
                emit(ack_record(clock, floor, seq, payload, times, wire_bytes, OK))
            else:
                # The round trip is over (t_recv taken): the floor beside it, same size.
                times = (t_send, t_secured, t_recv)
                emit(
                    round_trip_record(
                        clock, floor, seq, payload, times, wire_bytes, outcome, unsecure_ns, name
                    )
                )
            watch.record(lost=outcome == LOST)
            interval_ns = next_interval_ns()
            if interval_ns and seq + 1 < schedule.message_count:
                await _wait(interval_ns, stop)

    def _require_mechanism(self) -> Mechanism:
        return require(self._mechanism)


def _has_reliability() -> bool:
    """aiocoap 0.4.8+ chooses CON/NON from the message's transport tuning (setting
    ``mtype`` is deprecated there); 0.4.7, the last release for Python 3.9, only from
    ``mtype``."""
    from aiocoap.numbers.constants import TransportTuning

    return hasattr(TransportTuning, "reliability")


def _tuning(spec: CoapSpec) -> Any:
    """RFC 7252's transmission parameters for this run's requests (aiocoap's
    ``TransportTuning``)."""
    from aiocoap.numbers.constants import TransportTuning

    tuning = TransportTuning()
    tuning.ACK_TIMEOUT = spec.ack_timeout_ms / 1000
    tuning.MAX_RETRANSMIT = spec.max_retransmit
    tuning.DEFAULT_BLOCK_SIZE_EXP = spec.size_exponent
    if _has_reliability():
        tuning.reliability = spec.coap_type == "con"
    return tuning


async def _wait(interval_ns: int, stop: Any) -> None:
    """The gap before the next message; the loop keeps serving the socket (late
    responses are dropped by aiocoap) and a stop ends it early. It starts after the
    response, as in the papers."""
    deadline = time.perf_counter_ns() + interval_ns
    while not stop.is_set():
        remaining_s = (deadline - time.perf_counter_ns()) / NS_PER_S
        if remaining_s <= 0:
            return
        await asyncio.sleep(min(remaining_s, STOP_POLL_S))
