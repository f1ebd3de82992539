from core.exceptions import ApplicationError


class InvalidCredentials(ApplicationError):
    """The username or password is wrong (or the account is disabled)."""

    code = "invalid_credentials"
    status_code = 400


class NoWorkspace(ApplicationError):
    """The signed-in user belongs to no workspace, so there is nothing to show or create."""

    code = "no_workspace"
    status_code = 409
