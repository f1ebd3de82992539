"""Periodic tasks, as code. Celery beat reads BEAT_SCHEDULE."""

from __future__ import annotations

from typing import Any

# Runs whose devices went silent are failed with a message that names the device; without
# this a run whose agent died would show "running" forever.
STALE_RUN_CHECK_SECONDS = 15.0

BEAT_SCHEDULE: dict[str, dict[str, Any]] = {
    "fail-stale-runs": {
        "task": "experiments.tasks.runs_fail_stale_task",
        "schedule": STALE_RUN_CHECK_SECONDS,
    },
}
