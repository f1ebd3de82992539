"""The link emulator's errors, in the agent's one family (``iotsecbench_agent.errors``).

A profile that cannot be enforced must fail a run loudly (docs/network-emulation.md), so
every way it can fail has its own class and a message that says what to do. A profile or
delay table that is invalid in itself raises the contract's ProfileError or TableError
(iotsecbench_contract.errors).
"""

from __future__ import annotations

from iotsecbench_agent.errors import AgentError


class NetemuError(AgentError):
    """Base class of the link emulator's errors."""


class LinkError(NetemuError):
    """Setting up, running or tearing down an emulated link failed."""


class BackendUnavailable(LinkError):
    """This host cannot run the backend at all (not root, no /dev/net/tun, no netns)."""
