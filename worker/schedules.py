"""Periodic tasks, as code. Celery beat reads BEAT_SCHEDULE."""

from __future__ import annotations

from typing import Any

# Runs whose devices went silent are failed with a message that names the device; without
# this a run whose agent died would show "running" forever.
STALE_RUN_CHECK_SECONDS = 15.0

# Queued runs start as soon as their devices are free (a finished run asks at once); this
# tick also starts what was queued while no worker ran.
SCHEDULE_RUNS_SECONDS = 5.0

# Chunks a dead worker left `received` are queued again (CHUNK_REQUEUE_AFTER_SECONDS old):
# ingestion resumes within a minute, not after Redis's visibility timeout.
REQUEUE_CHUNKS_SECONDS = 15.0

BEAT_SCHEDULE: dict[str, dict[str, Any]] = {
    "schedule-queued-runs": {
        "task": "experiments.tasks.runs_schedule_task",
        "schedule": SCHEDULE_RUNS_SECONDS,
    },
    "requeue-stale-chunks": {
        "task": "measurements.tasks.chunks_requeue_stale_task",
        "schedule": REQUEUE_CHUNKS_SECONDS,
    },
    "fail-stale-runs": {
        "task": "experiments.tasks.runs_fail_stale_task",
        "schedule": STALE_RUN_CHECK_SECONDS,
    },
}
