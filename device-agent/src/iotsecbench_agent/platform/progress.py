"""What the agent is doing right now, as reported in heartbeats (§3)."""

from __future__ import annotations

import threading
from typing import Any, Callable

IDLE = "idle"
RUNNING = "running"
UPLOADING = "uploading"
DONE = "done"
FAILED = "failed"
ACTIVE_PHASES = (RUNNING, UPLOADING)


class Progress:
    """Thread-safe progress of the current (or last) job. ``on_change`` is called after
    every phase change, so the heartbeat loop can report it at once."""

    def __init__(self, on_change: Callable[[], None] | None = None) -> None:
        self._lock = threading.Lock()
        self._on_change = on_change
        self.phase = IDLE
        self.job_id: str | None = None
        self.run_id: str | None = None
        self.sent = 0
        self.received = 0
        self.total = 0

    def start(self, *, job_id: str, run_id: str, total: int, phase: str = RUNNING) -> None:
        """A new run (``phase`` UPLOADING: one whose upload resumes after a restart)."""
        with self._lock:
            self.phase = phase
            self.job_id = job_id
            self.run_id = run_id
            self.sent = 0
            self.received = 0
            self.total = total
        self._changed()

    def count(self, *, sent: int, received: int) -> None:
        """Add to the counters (called once per measured message, outside its timing)."""
        with self._lock:
            self.sent += sent
            self.received += received

    def set_phase(self, phase: str) -> None:
        with self._lock:
            self.phase = phase
        self._changed()

    @property
    def active(self) -> bool:
        with self._lock:
            return self.phase in ACTIVE_PHASES

    def snapshot(self) -> dict[str, Any]:
        """The heartbeat fields except ``ts``."""
        with self._lock:
            return {
                "run_id": self.run_id,
                "job_id": self.job_id,
                "phase": self.phase,
                "sent": self.sent,
                "received": self.received,
                "total": self.total,
            }

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change()
