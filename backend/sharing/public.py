"""What leaves the platform through a shared link: the same answers as the signed-in API,
with every id replaced by the share's alias of it, infrastructure details left out and the
lab's addresses replaced by neutral labels (sharing.addresses)."""

from __future__ import annotations

import re
import uuid
from typing import TYPE_CHECKING, Any

from sharing.addresses import AddressText, public_fields

if TYPE_CHECKING:
    from sharing.models import Share

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)

# Keys that describe the platform's infrastructure, not the experiment: the broker's CA
# certificate in a run's spec, a device's host name among its facts, the emulated link's
# namespace, addresses and relay endpoints in a device's proof of enforcement. (The platform's
# own broker_url is taken out of a run's spec before: sharing.apis._public_run; the lab's
# addresses a design names are labelled: sharing.addresses.)
HIDDEN_KEYS = frozenset(
    {
        "ca_cert",
        "hostname",
        "job_id",
        "netns",
        "root_ip",
        "device_ip",
        "listen",
        "upstream",
    }
)


def alias(share: Share, real_id: uuid.UUID | str) -> uuid.UUID:
    """The id a shared page shows for `real_id`: stable within the share, unrelated to the
    real id and to the same object's alias in any other share."""
    return uuid.uuid5(share.alias_key, str(real_id).lower())


def scrub(share: Share, data: Any, *, addresses: AddressText) -> Any:
    """`data` (a serialized answer) with every UUID, also inside text such as the methods
    paragraph, replaced by its alias, the HIDDEN_KEYS removed from every object, every
    address field labelled (sharing.addresses.public_fields) and every one of the share's
    `addresses` replaced by its label inside text."""
    if isinstance(data, dict):
        return {
            key: scrub(share, value, addresses=addresses)
            for key, value in public_fields(data).items()
            if key not in HIDDEN_KEYS
        }
    if isinstance(data, list | tuple):
        return [scrub(share, item, addresses=addresses) for item in data]
    if isinstance(data, uuid.UUID):
        return str(alias(share, data))
    if isinstance(data, str):
        return addresses(_UUID.sub(lambda match: str(alias(share, match.group(0))), data))
    return data
