from core.exceptions import ApplicationError


class ShareNotFound(ApplicationError):
    """The shared link does not exist, was revoked by its owner or has expired. The three
    answer alike, so a link tells nothing about what it once showed."""

    code = "share_not_found"
    status_code = 404
