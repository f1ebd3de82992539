from core.exceptions import ApplicationError


class DeviceNotInWorkspace(ApplicationError):
    """An experiment named a device that is not in the user's workspace."""

    code = "device_not_in_workspace"
    status_code = 400


class DevicesOffline(ApplicationError):
    """A run cannot start because some of its devices are offline: start their agents."""

    code = "devices_offline"
    status_code = 409


class TlsBrokerNotConfigured(ApplicationError):
    """A run over TLS was asked for, but this platform has no TLS broker configured."""

    code = "tls_broker_not_configured"
    status_code = 400


class RunAlreadyActive(ApplicationError):
    """The experiment already has a run in progress; wait for it to finish."""

    code = "run_already_active"
    status_code = 409


class NetworkProfileNotEnforceable(ApplicationError):
    """The experiment measures its runs under a network profile, and some of its devices
    reported (in their facts) that they cannot enforce one: no backend works there."""

    code = "network_profile_not_enforceable"
    status_code = 409


class RunNotCancellable(ApplicationError):
    """The run already finished (done, partial, failed or cancelled): nothing to cancel."""

    code = "run_not_cancellable"
    status_code = 409


class RunNotRetryable(ApplicationError):
    """Only a failed, partial or cancelled run can be retried."""

    code = "run_not_retryable"
    status_code = 409


class DesignOutOfLimits(ApplicationError):
    """A design saved before its kind's limits changed no longer fits them (the agent would
    refuse its job): create the design again within the limits the message names."""

    code = "design_out_of_limits"
    status_code = 400
