"""Load the Celery app (worker/celery_app.py) with Django, so `task.delay()` uses it."""

import sys
from pathlib import Path

_REPO_DIR = str(Path(__file__).resolve().parents[2])
if _REPO_DIR not in sys.path:
    sys.path.append(_REPO_DIR)

from worker.celery_app import app as celery_app  # noqa: E402

__all__ = ("celery_app",)
