"""The Celery application. Task bodies live in backend/<app>/tasks.py (autodiscovered).

Run from the repository root with backend/ on the path (the Makefile does this):
    PYTHONPATH=backend celery -A worker.celery_app worker
"""

from __future__ import annotations

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
