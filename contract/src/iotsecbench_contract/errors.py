"""The contract's errors: a job or a profile that does not follow it. Each message is meant
for the user and names the offending field; the agent reports it as the run's failure, the
backend as a 400."""

from __future__ import annotations


class ContractError(Exception):
    """Base class of every error the contract raises."""


class JobSpecError(ContractError):
    """A job's ``spec`` is missing a field or has one this contract does not allow."""


class BrokerUrlError(ContractError):
    """An ``mqtt://`` or ``mqtts://`` URL is not one (scheme, port or host)."""
