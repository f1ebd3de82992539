"""A CoAP run's resource path (``coap_path``, docs/coap.md): the request carries one Uri-Path
option per segment, to an external server or to the agent's own echo server, which then
serves its resource at that path."""

from __future__ import annotations

from typing import Any

import pytest

from iotsecbench_agent.errors import UnsupportedJob
from iotsecbench_agent.runners.coap_roundtrip import CoapSpec
from iotsecbench_agent.storage.recordlog import OK
from test_coap_roundtrip import HEADER_BYTES, URI_PATH, RawCoapPeer, run, spec


@pytest.fixture
def echo_peer() -> Any:
    peer = RawCoapPeer(answer=lambda payload: payload)
    yield peer
    peer.close()


def test_coap_path_replaces_the_urls_path_with_one_uri_path_option_per_segment(
    echo_peer: RawCoapPeer,
) -> None:
    base = echo_peer.url.rsplit("/", 1)[0]
    records, _runner = run(
        spec(coap_url=base, coap_path="sensors/a%20b", message_count=1, payload_size=10)
    )

    (record,) = records
    (datagram,) = echo_peer.received
    assert record.outcome == OK
    assert datagram.options == [(URI_PATH, b"sensors"), (URI_PATH, b"a b")]
    # Uri-Path "sensors" (1 + 7), then "a b" with delta 0 (1 + 3), marker, payload.
    expected = HEADER_BYTES + len(datagram.token) + (1 + 7) + (1 + 3) + 1 + 10
    assert record.wire_bytes == expected == len(datagram.raw)


def test_the_agents_own_echo_server_serves_its_resource_at_the_runs_coap_path() -> None:
    records, runner = run(spec(coap_path="bench/temperature-sensor", message_count=3))

    assert {r.outcome for r in records} == {OK}
    assert runner.url.endswith("/bench/temperature-sensor")
    # "bench" 1 + 5; "temperature-sensor" (18 bytes) needs the extended length: 1 + 1 + 18.
    fixed = HEADER_BYTES + (1 + 5) + (1 + 1 + 18) + 1 + 66
    assert all(fixed + 1 <= r.wire_bytes <= fixed + 8 for r in records)


@pytest.mark.parametrize("path", ["/echo", "echo/", "a//b", "echo?x=1", "e#f", "sp ace", 7])
def test_a_coap_path_that_is_not_a_uri_path_is_refused(path: object) -> None:
    with pytest.raises(UnsupportedJob, match=r"spec\.coap_path must be a resource path"):
        CoapSpec.parse(spec(coap_path=path))
