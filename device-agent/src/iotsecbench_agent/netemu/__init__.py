"""The userspace link emulator: netem's semantics (delay from a distribution or a measured
table, rate, loss, duplication, reordering, corruption, queue limit) applied per direction
by a forwarder between two TUN devices in network namespaces, for hosts whose kernel has no
``sch_netem``. See docs/network-emulation.md.

    with open_link("dev1", LinkProfile.parse({"both": {"delay_ms": 20}})) as link:
        # LinkProfile: iotsecbench_contract.netprofile (profiles are part of the contract)
        verify(link).ok          # probe round trips match the profile
        link.counters()          # proof of enforcement, per direction

Linux-only parts (namespaces, TUN, ctypes ``setns``) are used only when a link is opened,
so the package imports anywhere.
"""

from __future__ import annotations

from iotsecbench_agent.netemu.errors import BackendUnavailable, LinkError, NetemuError
from iotsecbench_agent.netemu.link import Link, capability, open_link
from iotsecbench_agent.netemu.verify import Verification, verify

__all__ = [
    "BackendUnavailable",
    "Link",
    "LinkError",
    "NetemuError",
    "Verification",
    "capability",
    "open_link",
    "verify",
]
