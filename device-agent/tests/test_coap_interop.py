"""Interoperability: libcoap's ``coap-client`` (Debian's libcoap3-bin; ``make coap-client``
installs it) drives the agent's CoAP echo server, so the server is checked against a CoAP
implementation that is not aiocoap."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from iotsecbench_agent.runners.coap_server import CoapEchoServer

# Debian's libcoap3-bin installs the client per TLS library; any of them speaks plain
# coap://. Other distributions (and libcoap's own build) name it coap-client.
CLIENT_NAMES = ("coap-client", "coap-client-notls", "coap-client-openssl", "coap-client-gnutls")
MISSING = "coap-client not found: apt-get install libcoap3-bin (make coap-client)"
CLIENT_TIMEOUT_S = 5  # coap-client -B: give up waiting for a response after this long


def coap_client() -> str:
    for name in CLIENT_NAMES:
        found = shutil.which(name)
        if found:
            return found
    # Fail, not skip: a green run without the interop test would hide that it never ran.
    pytest.fail(MISSING)


@pytest.fixture(scope="module")
def server() -> Iterator[CoapEchoServer]:
    with CoapEchoServer() as echo:
        yield echo


def exchange(server: CoapEchoServer, tmp_path: Path, *args: str, body: bytes | None) -> bytes:
    """Run coap-client against the echo resource; the response body it wrote (-o)."""
    out = tmp_path / "response.bin"
    command = [coap_client(), "-B", str(CLIENT_TIMEOUT_S), "-o", str(out), *args]
    if body is not None:
        source = tmp_path / "request.bin"
        source.write_bytes(body)
        command += ["-f", str(source)]
    result = subprocess.run(
        [*command, server.url], capture_output=True, timeout=CLIENT_TIMEOUT_S * 3, check=False
    )
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    return out.read_bytes()


@pytest.mark.parametrize("method", ["get", "put", "post"])
@pytest.mark.parametrize("confirmable", [True, False])
def test_echo_server_answers_coap_client_with_the_request_body(
    server: CoapEchoServer, tmp_path: Path, method: str, confirmable: bool
) -> None:
    body = os.urandom(66)
    flags = ["-m", method] + ([] if confirmable else ["-N"])

    assert exchange(server, tmp_path, *flags, body=body) == body


@pytest.mark.parametrize("method", ["put", "get"])
@pytest.mark.parametrize("block_size", ["1024", "64"])
def test_echo_server_echoes_a_blockwise_request_from_coap_client(
    server: CoapEchoServer, tmp_path: Path, method: str, block_size: str
) -> None:
    body = os.urandom(3000)  # Block1 up, Block2 down

    assert exchange(server, tmp_path, "-m", method, "-b", block_size, body=body) == body


def test_echo_server_answers_a_get_without_body_with_its_query(
    server: CoapEchoServer, tmp_path: Path
) -> None:
    out = tmp_path / "response.bin"
    subprocess.run(
        [coap_client(), "-B", str(CLIENT_TIMEOUT_S), "-o", str(out), "-m", "get",
         f"{server.url}?hello"],
        capture_output=True, timeout=CLIENT_TIMEOUT_S * 3, check=True,
    )  # fmt: skip

    assert out.read_bytes() == b"hello"
