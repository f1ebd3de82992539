"""The contract's errors: a job or a profile that does not follow it. Each message is meant
for the user and names the offending field; the agent reports it as the run's failure, the
backend as a 400."""

from __future__ import annotations


class ContractError(Exception):
    """Base class of every error the contract raises."""


class JobSpecError(ContractError):
    """A job's ``spec`` is missing a field or has one this contract does not allow.
    ``field``, when known, is the spec field at fault (``window_ms``), so the platform can
    answer its 400 under that field."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class BrokerUrlError(ContractError):
    """An ``mqtt://`` or ``mqtts://`` URL is not one (scheme, port or host)."""


class ProfileError(ContractError):
    """A network profile is invalid. ``field`` is the dotted path of the offending value
    (``egress.loss_pct``), and the message says what is wrong and what is allowed."""

    def __init__(self, field: str, problem: str, allowed: str) -> None:
        super().__init__(f"{field}: {problem}; allowed: {allowed}")
        self.field = field
        self.problem = problem
        self.allowed = allowed


class TableError(ContractError):
    """A delay distribution table is missing or not in netem's ``maketable`` format."""
