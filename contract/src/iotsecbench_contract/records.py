"""A messaging run's record log (docs/control-plane.md §6): the columns of one record line,
as the agent writes them and the platform COPYs them, and the shorter column lists of older
agents' logs, still valid (the columns they lack are empty / NULL)."""

from __future__ import annotations

RECORD_COLUMNS = (
    "seq",
    "t_send_ns",
    "t_recv_ns",
    "app_bytes",
    "wire_bytes",
    "outcome",
    "secure_ns",
    "unsecure_ns",
    "floor_secure_ns",
    "floor_unsecure_ns",
    # The mechanism this message was secured with in an interleaved run (interleave.py);
    # empty in any other run, whose mechanism is the spec's ``security``.
    "mechanism",
)
# Logs of older agents: before security mechanisms (6 columns), before the harness floor
# (8), before interleaved runs (10). Each is a prefix of RECORD_COLUMNS.
LEGACY_RECORD_COLUMNS = (RECORD_COLUMNS[:6], RECORD_COLUMNS[:8], RECORD_COLUMNS[:10])
RECORD_HEADER = ",".join(RECORD_COLUMNS)
