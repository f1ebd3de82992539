"""A broker URL as the agent reads it: the contract's parser, failing with ConfigError.

Below every subpackage that takes a broker URL (the runtime's settings, the control plane's
identity, the MQTT-SN runner and CLI), so none of them imports another for it.
"""

from __future__ import annotations

from iotsecbench_contract.brokerurl import BrokerAddress
from iotsecbench_contract.brokerurl import parse_mqtt_url as contract_parse_mqtt_url
from iotsecbench_contract.errors import BrokerUrlError

from iotsecbench_agent.errors import ConfigError


def parse_mqtt_url(url: str, *, what: str = "MQTT URL") -> BrokerAddress:
    """The contract's ``parse_mqtt_url``, failing with ConfigError (a setting to fix)."""
    try:
        return contract_parse_mqtt_url(url, what=what)
    except BrokerUrlError as exc:
        raise ConfigError(str(exc)) from None


def host_port(host: str, port: int) -> str:
    """``host:port`` as URLs and ``mqttsn_gateway`` write it: an IPv6 literal in brackets
    (``[::1]:10000``, RFC 3986 §3.2.2), so the port stays apart from the address's colons."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
