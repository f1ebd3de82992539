"""MQTT broker URLs, as jobs and agent settings give them:
``mqtt://[user[:password]@]host[:port]`` or ``mqtts://…``."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

from iotsecbench_contract.errors import BrokerUrlError

REDACTED = "***"
DEFAULT_MQTT_PORT = 1883
DEFAULT_MQTTS_PORT = 8883


@dataclass(frozen=True)
class BrokerAddress:
    """An MQTT broker URL, split up."""

    host: str
    port: int
    tls: bool
    username: str | None = None
    password: str | None = field(default=None, repr=False)


def parse_mqtt_url(url: str, *, what: str = "MQTT URL") -> BrokerAddress:
    """Parse ``mqtt://[user[:password]@]host[:port]`` (or ``mqtts://``); BrokerUrlError if
    bad, naming ``what`` and never the password."""
    parts = urlsplit(url)
    if parts.scheme not in ("mqtt", "mqtts"):
        raise BrokerUrlError(f"{what} must start with mqtt:// or mqtts://, got {redact_url(url)!r}")
    try:
        port = parts.port
    except ValueError:
        raise BrokerUrlError(f"{what} has an invalid port: {redact_url(url)!r}") from None
    if not parts.hostname:
        raise BrokerUrlError(f"{what} has no host: {redact_url(url)!r}")
    tls = parts.scheme == "mqtts"
    return BrokerAddress(
        host=parts.hostname,
        port=port or (DEFAULT_MQTTS_PORT if tls else DEFAULT_MQTT_PORT),
        tls=tls,
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
    )


def redact_url(url: str) -> str:
    """Hide the password of ``scheme://user:password@host`` URLs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", f":{REDACTED}@", 1)
    return parts._replace(netloc=netloc).geturl()
