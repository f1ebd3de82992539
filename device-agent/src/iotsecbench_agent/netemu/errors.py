"""The link emulator's errors, in the agent's one family (``iotsecbench_agent.errors``).

A profile that cannot be enforced must fail a run loudly (docs/network-emulation.md), so
every way it can fail has its own class and a message that says what to do.
"""

from __future__ import annotations

from iotsecbench_agent.errors import AgentError


class NetemuError(AgentError):
    """Base class of the link emulator's errors."""


class ProfileError(NetemuError):
    """A network profile is invalid. ``field`` is the dotted path of the offending value
    (``egress.loss_pct``), and the message says what is wrong and what is allowed."""

    def __init__(self, field: str, problem: str, allowed: str) -> None:
        super().__init__(f"{field}: {problem}; allowed: {allowed}")
        self.field = field
        self.problem = problem
        self.allowed = allowed


class TableError(NetemuError):
    """A delay distribution table is missing or not in netem's ``maketable`` format."""


class LinkError(NetemuError):
    """Setting up, running or tearing down an emulated link failed."""


class BackendUnavailable(LinkError):
    """This host cannot run the backend at all (not root, no /dev/net/tun, no netns)."""
