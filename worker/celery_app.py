"""The Celery application. Task bodies live in backend/<app>/tasks.py (autodiscovered).

Run from the repository root with backend/ on the path (the Makefile does this):
    PYTHONPATH=backend celery -A worker.celery_app worker
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

_BACKEND = Path(__file__).resolve().parent.parent / "backend"
if str(_BACKEND) not in sys.path:
    sys.path.insert(0, str(_BACKEND))

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.django.base")

from celery import Celery  # noqa: E402

from worker.schedules import BEAT_SCHEDULE  # noqa: E402

app = Celery("iotsecbench")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.beat_schedule = BEAT_SCHEDULE
app.autodiscover_tasks()

# The per-task INFO lines: the worker's "Task … received" and "Task … succeeded in …", and
# beat's "Scheduler: Sending due task …". Celery logs them on these loggers with the task
# name among the record's arguments.
TASK_EVENT_LOGGERS = ("celery.worker.strategy", "celery.app.trace", "celery.beat")
QUIET_TASKS = frozenset(entry["task"] for entry in BEAT_SCHEDULE.values())


class PeriodicTaskNoise(logging.Filter):
    """Drops the INFO "received", "succeeded" and "sending due task" lines of the beat's
    periodic tasks (the scheduler's tick every 5 s buried every useful line of the log). Their
    failures (ERROR) and what the tasks log themselves (e.g. experiments.run_started)
    still show; LOG_LEVEL=DEBUG shows everything."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.INFO or logging.getLogger().isEnabledFor(logging.DEBUG):
            return True
        args = record.args
        values = args.values() if isinstance(args, dict) else (args or ())
        return not any(isinstance(value, str) and value in QUIET_TASKS for value in values)


for _name in TASK_EVENT_LOGGERS:
    logging.getLogger(_name).addFilter(PeriodicTaskNoise())
