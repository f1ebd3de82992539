from core.exceptions import ApplicationError


class NetworkProfileReadOnly(ApplicationError):
    """The profile is a built-in catalogue entry (a paper's condition or a measured table):
    nobody can change or delete it. Copy it into the workspace and change the copy."""

    code = "network_profile_read_only"
    status_code = 403
