"""The agent's CoAP echo server: the peer of a CoAP round-trip run with no ``coap_url``.

One resource, ``/echo`` (``ECHO_PATH``; a run's ``coap_path`` puts it at another path),
answers every request with the request's body, as
it came (still secured: the server holds no key):

- PUT → 2.04 Changed, POST → 2.04 Changed, GET → 2.05 Content, each carrying the request
  body. A GET that carries no body gets its URI query back instead (``?hello`` → ``hello``,
  several joined by ``&``), so a plain ``coap-client -m get`` can check the server.
- Block-wise in both directions is aiocoap's (RFC 7959): the resource sees the whole
  request body (Block1 reassembled) and its response is served in Block2 blocks of the
  size the client asks for (early negotiation), else 1024 bytes.
- A CON request gets a piggybacked ACK, a NON request a NON response (aiocoap's choice).

It runs its own asyncio event loop in its own thread, so the measuring thread's loop only
runs the client (docs/coap.md). ``start`` returns once the socket is bound and the loop is
serving; ``stop`` shuts the context down and joins the thread.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
import urllib.parse
from typing import Any

from aiocoap import CHANGED, CONTENT, Context, Message, resource

from iotsecbench_agent.errors import DataPlaneError

logger = logging.getLogger(__name__)

ECHO_PATH = "echo"
START_TIMEOUT_S = 10.0


class EchoResource(resource.Resource):
    """Answers with the request's body (see the module doc)."""

    async def render_get(self, request: Any) -> Any:
        payload = request.payload or "&".join(request.opt.uri_query).encode("utf-8")
        return Message(code=CONTENT, payload=payload)

    async def render_put(self, request: Any) -> Any:
        return Message(code=CHANGED, payload=request.payload)

    async def render_post(self, request: Any) -> Any:
        return Message(code=CHANGED, payload=request.payload)

    async def render_fetch(self, request: Any) -> Any:
        return Message(code=CONTENT, payload=request.payload)


def echo_site(path: str = ECHO_PATH) -> Any:
    """A site with the echo resource at ``path`` (segments separated by /, %XX-escaped as in
    a URI: the resource sees the decoded Uri-Path options)."""
    site = resource.Site()
    site.add_resource([urllib.parse.unquote(s) for s in path.split("/")], EchoResource())
    return site


class CoapEchoServer:
    """``/echo`` (or ``/<path>``) on ``host`` (port 0: a free one, see ``port``) in a thread
    of its own."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, path: str = ECHO_PATH) -> None:
        self.host = host
        self.port = port
        self.path = path
        self._loop: asyncio.AbstractEventLoop | None = None
        self._context: Any = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    @property
    def url(self) -> str:
        """The echo resource's URL (after ``start``)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"coap://{host}:{self.port}/{self.path}"

    def start(self) -> CoapEchoServer:
        self._thread = threading.Thread(target=self._serve, name="coap-echo-server", daemon=True)
        self._thread.start()
        if not self._ready.wait(START_TIMEOUT_S):
            raise DataPlaneError("the local CoAP echo server did not start in time")
        if self._error is not None:
            self._thread.join()
            raise DataPlaneError(f"the local CoAP echo server cannot start: {self._error}")
        return self

    def stop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is not None and thread is not None and thread.is_alive():
            loop.call_soon_threadsafe(loop.stop)
            thread.join(START_TIMEOUT_S)
        self._thread = None

    def __enter__(self) -> CoapEchoServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _serve(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            asyncio.set_event_loop(loop)
            try:
                self._context = loop.run_until_complete(self._open())
            # Whatever stops it from starting is reported by start(), in the caller's thread.
            except Exception as exc:  # noqa: BLE001
                self._error = exc
                return
            finally:
                self._ready.set()
            loop.run_forever()  # until stop() calls loop.stop
            loop.run_until_complete(self._context.shutdown())
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    async def _open(self) -> Any:
        # Only udp6 (as the client): no TCP/WebSocket listeners beside it.
        context = await Context.create_server_context(
            echo_site(self.path), bind=(self.host, self.port), transports=["udp6"]
        )
        self.port = _bound_port(context)
        return context


def _bound_port(context: Any) -> int:
    """The UDP port the server context's udp6 transport is bound to (port 0 binds a free
    one; aiocoap does not report it)."""
    for interface in context.request_interfaces:
        messages = getattr(getattr(interface, "token_interface", None), "message_interface", None)
        transport = getattr(messages, "transport", None)
        sock = transport.get_extra_info("socket") if transport is not None else None
        if isinstance(sock, socket.socket):
            port: int = sock.getsockname()[1]
            return port
    raise DataPlaneError("cannot find the CoAP server's UDP port")
