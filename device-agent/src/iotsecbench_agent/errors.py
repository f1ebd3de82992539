"""The agent's own exception hierarchy.

Library errors (paho, urllib, pycryptodome, OSError) are caught at the module that talks
to the library and re-raised as one of these, so callers handle one family of errors and
the CLI can print one readable line for each. A job that breaks the contract
(iotsecbench_contract.errors, e.g. a bad spec field) is caught beside them: RUN_ERRORS.
"""

from __future__ import annotations

from iotsecbench_contract.errors import ContractError, JobSpecError


class AgentError(Exception):
    """Base class of every error the agent raises on purpose."""


class ConfigError(AgentError):
    """The state directory or a setting is missing or invalid; the user must fix it."""


class EnrollmentError(AgentError):
    """The platform refused the enrollment (e.g. a used or expired token)."""


class PlatformError(AgentError):
    """An HTTP call to the platform failed."""


class PlatformRejected(PlatformError):
    """The platform answered 4xx: the request is wrong and retrying will not help."""

    def __init__(self, status: int, message: str, code: str | None) -> None:
        super().__init__(f"HTTP {status}: {message}" + (f" ({code})" if code else ""))
        self.status = status
        self.code = code
        self.detail = message


class PlatformUnavailable(PlatformError):
    """The platform answered 5xx or could not be reached, after every retry."""


class ControlPlaneError(AgentError):
    """The control-plane MQTT connection failed or was refused."""


class DataPlaneError(AgentError):
    """The data-plane connection of a run (the traffic being measured) failed."""


class UnsupportedJob(AgentError, JobSpecError):
    """A verified job asks for something this agent cannot run (e.g. an unknown protocol);
    a JobSpecError as the contract's own spec checks raise."""


class RunAborted(AgentError):
    """The run was stopped before it finished (agent shutdown)."""


# What a run or a check ends with, on purpose: the agent's errors and the contract's.
RUN_ERRORS = (AgentError, ContractError)
