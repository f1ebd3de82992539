from core.exceptions import ApplicationError


class EnrollmentTokenInvalid(ApplicationError):
    """The enrollment token is unknown, already used or expired: create a new one."""

    code = "enrollment_token_invalid"
    status_code = 400


class DeviceAuthenticationFailed(ApplicationError):
    """The agent's API token is missing or unknown: enroll the agent again."""

    code = "device_authentication_failed"
    status_code = 401


class DeviceOffline(ApplicationError):
    """The device's agent is offline: it cannot be checked or given a job."""

    code = "device_offline"
    status_code = 409


class DeviceBusy(ApplicationError):
    """The device has queued or active runs."""

    code = "device_busy"
    status_code = 409
