from core.exceptions import ApplicationError


class ChunkFormatError(ApplicationError):
    """An uploaded chunk is not in the record CSV format (docs/control-plane.md §6)."""

    code = "chunk_format_invalid"
    status_code = 400


class ChunkConflict(ApplicationError):
    """A chunk index was uploaded before under another idempotency key."""

    code = "chunk_conflict"
    status_code = 409


class ChunkTooLarge(ApplicationError):
    """An uploaded chunk is larger than a chunk may be; the agent should send smaller ones."""

    code = "chunk_too_large"
    status_code = 413
