"""How the agent writes and reads a target's address (IPv4, names and bracketed IPv6
literals): the serving side's ``host:port`` report, and the client side's
``mqttsn_gateway`` and ``coap_url`` fields (docs/mqttsn.md, docs/coap.md)."""

from __future__ import annotations

from typing import Any

import pytest

from iotsecbench_agent.brokerurl import host_port, parse_mqtt_url
from iotsecbench_agent.errors import ConfigError, UnsupportedJob
from iotsecbench_agent.runners.coap_roundtrip import _coap_url
from iotsecbench_agent.runners.mqttsn_roundtrip import _gateway_field
from iotsecbench_agent.runtime.serving import advertised_host


@pytest.mark.parametrize(
    ("host", "written"),
    [
        ("10.0.0.5", "10.0.0.5:10000"),
        ("pi-2.lab", "pi-2.lab:10000"),
        ("::1", "[::1]:10000"),
        ("2001:db8::5", "[2001:db8::5]:10000"),
    ],
)
def test_a_served_address_puts_an_ipv6_host_in_brackets(host: str, written: str) -> None:
    assert host_port(host, 10000) == written
    # What the serving agent reports is what a client reads back.
    assert _gateway_field({"mqttsn_gateway": written}) == (host, 10000)
    assert _coap_url(f"coap://{written}/echo") == f"coap://{written}/echo"


def test_a_designs_ipv6_target_host_is_advertised_in_brackets() -> None:
    advertised = advertised_host({"advertise_host": "2001:db8::5"}, "::1")
    assert host_port(advertised, 5683) == "[2001:db8::5]:5683"
    assert host_port(advertised_host({}, "::1"), 5683) == "[::1]:5683"


@pytest.mark.parametrize(
    "spec",
    [
        {"mqttsn_gateway": "::1:1884"},  # no brackets: where does the port start?
        {"mqttsn_gateway": "[::1]"},
        {"mqttsn_gateway": "[::1]:70000"},
    ],
)
def test_an_unbracketed_or_portless_ipv6_gateway_is_refused(spec: dict[str, Any]) -> None:
    with pytest.raises(UnsupportedJob, match=r"\[addr\]:port"):
        _gateway_field(spec)


@pytest.mark.parametrize("url", ["coap://[pi-2]:5683/echo", "coap://::1:5683/echo"])
def test_a_coap_url_with_a_bad_ipv6_host_is_refused_not_raised(url: str) -> None:
    with pytest.raises(UnsupportedJob, match=r"spec\.coap_url must be"):
        _coap_url(url)


def test_a_broker_url_takes_a_bracketed_ipv6_host_and_refuses_a_bad_one() -> None:
    assert parse_mqtt_url("mqtt://[::1]:1883").host == "::1"
    with pytest.raises(ConfigError, match="in brackets") as refused:
        parse_mqtt_url("mqtt://u:secret@[pi-2]:1883")
    assert "secret" not in str(refused.value)
