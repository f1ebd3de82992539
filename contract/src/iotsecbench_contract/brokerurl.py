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
    bad, naming ``what`` and never the password. An IPv6 host is written in brackets
    (``mqtt://[::1]:1883``, RFC 3986 §3.2.2); ``host`` is then the address without them."""
    try:
        parts = urlsplit(url)
    except ValueError:  # a bracketed host that is no IP address (urllib checks it)
        raise BrokerUrlError(
            f"{what} has an invalid host (an IPv6 address goes in brackets, e.g. "
            f"mqtt://[::1]:1883): {redact_url(url)!r}"
        ) from None
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
    try:
        parts = urlsplit(url)
    except ValueError:  # unparseable: keep nothing before the host (it may hold a password)
        _, at, host = url.rpartition("@")
        return f"{REDACTED}@{host}" if at else url
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", f":{REDACTED}@", 1)
    return parts._replace(netloc=netloc).geturl()
