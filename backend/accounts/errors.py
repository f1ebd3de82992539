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


class OwnerRequired(ApplicationError):
    """Only an owner of the workspace may do this (invite, remove a member)."""

    code = "owner_required"
    status_code = 403


class InvitationInvalid(ApplicationError):
    """The invitation link is unknown, already used or expired: ask an owner for a new one.
    `extra.reason` says which (`unknown`, `used`, `expired`)."""

    code = "invitation_invalid"
    status_code = 410


class AlreadyMember(ApplicationError):
    """The user already belongs to this workspace."""

    code = "already_member"
    status_code = 409


class LastOwner(ApplicationError):
    """The workspace would be left without an owner: make someone else owner first."""

    code = "last_owner"
    status_code = 409


class UsernameTaken(ApplicationError):
    """Another account already has this username: choose another, or sign in first."""

    code = "username_taken"
    status_code = 409


class CurrentPasswordWrong(ApplicationError):
    """The current password given to change it is wrong."""

    code = "current_password_wrong"
    status_code = 400


class SessionRequired(ApplicationError):
    """This is done in the web UI, signed in: an API token cannot change passwords or
    create more tokens (a leaked token must not take the account over)."""

    code = "session_required"
    status_code = 403
