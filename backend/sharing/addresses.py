"""Which fields of a design and a run are the lab's addresses, and how a shared page names
them (docs/sharing.md, "What a visitor can and cannot see").

A shared link is read by people outside the workspace: it shows *that* a run talked to an
external broker, CoAP server, MQTT-SN gateway or UDP receiver, never where (host, port,
path) nor with which credentials (an old design's broker_url may hold user:password).
Every public answer goes through `public_fields` (sharing.public.scrub) and, for text
such as a run's error or a description, through `AddressText`; a run's methods paragraph is
written with `public_address_words` (results.services.methods.AddressWords).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import SplitResult, urlsplit

# Field (of a design, a run's spec or a run's target) -> the neutral label a shared page
# shows instead of its value; None: the value is left out (null) instead. An empty value
# stays empty: it says the run used the platform's own broker or the agent's own server.
ADDRESS_FIELDS: Mapping[str, str | None] = {
    "broker_url": "external MQTT broker",
    "coap_url": "external CoAP server",
    "mqttsn_gateway": "external MQTT-SN gateway",
    "target_url": "UDP receiver",
    # A throughput run's spec carries the design's target_url as `target` (contract
    # benchspec); a run's `target` object (its target device) is no string and is walked.
    "target": "UDP receiver",
    # The host the clients reach a target device at; the device itself is shown by name.
    "target_host": "target device's host",
    # A run's target device's reported "host:port": its name and role say enough.
    "address": None,
}

# What stands in text for the value of a field left out (None above).
LEFT_OUT_IN_TEXT = "the target device's address"

# Fields that look like addresses (see sharing/tests/test_addresses.py) but are shown as
# they are, each with the reason.
NOT_ADDRESSES: Mapping[str, str] = {
    "coap_path": "the CoAP resource's path (echo, sensors/temp): a condition of the run that "
    "sets the request's size, no host or port",
    "target_device": "an id, shown as the share's alias of it; the device is shown by name",
}


def public_fields(data: Mapping[str, Any]) -> dict[str, Any]:
    """One object of an answer with its address fields as a shared page shows them: a
    non-empty string replaced by its label (or None); anything else as it is."""
    return {key: _public_value(key, value) for key, value in data.items()}


def _public_value(key: str, value: Any) -> Any:
    if key in ADDRESS_FIELDS and isinstance(value, str) and value:
        return ADDRESS_FIELDS[key]
    return value


def public_address_words(field: str, value: str) -> str:
    """How a shared page's methods paragraph names the address a run used: "the external
    MQTT broker" where the owner's reads "the external broker at mqtt://…"."""
    label = ADDRESS_FIELDS[field]
    return f"the {label}" if label else LEFT_OUT_IN_TEXT


# A host alone that is the device itself says nothing about the lab (and methods paragraphs
# name 127.0.0.1 for the agent's own servers).
_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
_SHORTEST_FORM = 3


def _split(value: str) -> SplitResult | None:
    """The URL's parts; "host:port" (a gateway) read as a URL without scheme."""
    try:
        return urlsplit(value if "://" in value else f"//{value}")
    except ValueError:  # a bracketed host that is no IP address
        return None


def _forms(value: str) -> set[str]:
    """Every way `value` can stand in a text: the whole, its user and password, its
    "host:port" and its host (errors name a host alone: "could not resolve lab-broker")."""
    forms = {value}
    parts = _split(value)
    if parts is not None:
        netloc = parts.netloc
        forms.add(netloc)
        if "@" in netloc:
            userinfo, hostport = netloc.rsplit("@", 1)
            forms.add(hostport)
            user, _, password = userinfo.partition(":")
            forms.update((user, password, value.replace(f"{userinfo}@", "")))
            # As the contract's brokerurl.redact_url writes it: the user, no password.
            forms.add(value.replace(f"{userinfo}@", f"{user}:***@"))
        if parts.hostname and parts.hostname not in _LOOPBACK:
            forms.add(parts.hostname)
            forms.add(f"[{parts.hostname}]")
    # A piece shorter than that (a user "pi") would garble ordinary words ("pi-a") and
    # reveals next to nothing on its own.
    return {form for form in forms if len(form) >= _SHORTEST_FORM}


class AddressText:
    """Replaces, inside any text, every address a share's designs and runs hold with its
    label: the net under `public_fields` for what free text carries (an agent's error
    naming the gateway it could not reach, a description naming the broker)."""

    def __init__(self, addresses: Iterable[tuple[str, str]]) -> None:
        """`addresses`: (field, value) pairs; fields not in ADDRESS_FIELDS are ignored."""
        labels: dict[str, str] = {}
        for field, value in addresses:
            if field in ADDRESS_FIELDS and isinstance(value, str) and value:
                label = ADDRESS_FIELDS[field] or LEFT_OUT_IN_TEXT
                for form in _forms(value):
                    labels.setdefault(form, label)
        self._labels = labels
        # Longest first, so that a URL is replaced whole before its host; not inside a
        # longer name or number (10.9.8.7 is not a part of 110.9.8.71).
        alternatives = "|".join(re.escape(form) for form in sorted(labels, key=len, reverse=True))
        self._pattern = (
            re.compile(rf"(?<![A-Za-z0-9]){'(?:' + alternatives + ')'}(?![A-Za-z0-9])")
            if labels
            else None
        )

    def __call__(self, text: str) -> str:
        if self._pattern is None:
            return text
        return self._pattern.sub(lambda match: self._labels[match.group(0)], text)


def object_addresses(obj: Any) -> list[tuple[str, str]]:
    """The (field, value) pairs of an object's (a design's) address fields."""
    return [(field, str(getattr(obj, field, "") or "")) for field in ADDRESS_FIELDS]


def mapping_addresses(data: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The (field, value) pairs of a mapping's (a run's spec or target) address fields."""
    return [(field, data[field]) for field in ADDRESS_FIELDS if isinstance(data.get(field), str)]
