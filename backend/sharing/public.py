"""What leaves the platform through a shared link: the same answers as the signed-in API,
with every id replaced by the share's alias of it and infrastructure details left out."""

from __future__ import annotations

import re
import uuid
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sharing.models import Share

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)

# Keys that describe the platform's infrastructure, not the experiment: the broker's address
# and CA certificate in a run's spec, a device's host name among its facts, the emulated
# link's namespace, addresses and relay endpoints in a device's proof of enforcement.
HIDDEN_KEYS = frozenset(
    {
        "broker_url",
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


def scrub(share: Share, data: Any) -> Any:
    """`data` (a serialized answer) with every UUID, also inside text such as the methods
    paragraph, replaced by its alias and the HIDDEN_KEYS removed from every object."""
    if isinstance(data, dict):
        return {key: scrub(share, value) for key, value in data.items() if key not in HIDDEN_KEYS}
    if isinstance(data, list | tuple):
        return [scrub(share, item) for item in data]
    if isinstance(data, uuid.UUID):
        return str(alias(share, data))
    if isinstance(data, str):
        return _UUID.sub(lambda match: str(alias(share, match.group(0))), data)
    return data
