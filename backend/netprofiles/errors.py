from core.exceptions import ApplicationError


class NetworkProfileReadOnly(ApplicationError):
    """The profile is a built-in catalogue entry (a paper's condition or a measured table):
    nobody can change or delete it. Copy it into the workspace and change the copy."""

    code = "network_profile_read_only"
    status_code = 403


class NetworkProfileInUse(ApplicationError):
    """Experiments measure their runs under the profile: deleting it would change what
    those runs meant. Delete the experiments first, or keep the profile."""

    code = "network_profile_in_use"
    status_code = 409
