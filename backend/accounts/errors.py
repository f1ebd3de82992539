from core.exceptions import ApplicationError


class InvalidCredentials(ApplicationError):
    """The username or password is wrong (or the account is disabled)."""

    code = "invalid_credentials"
    status_code = 400


class NoWorkspace(ApplicationError):
    """The signed-in user belongs to no workspace, so there is nothing to show or create."""

    code = "no_workspace"
    status_code = 409


class LoginThrottled(ApplicationError):
    """Too many wrong passwords for this account, or from this address, in a short time:
    sign-in is refused, even with the right password, until `Retry-After` seconds pass."""

    code = "login_throttled"
    status_code = 429
