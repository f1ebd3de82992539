"""results' answers to the signals of the apps below it (connected in apps.py)."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db import transaction

from results.tasks import run_round_trips_warm_task


def run_round_trips_warm_soon(*, run_id: Any, **_: Any) -> None:
    """experiments.signals.run_done: the results pages read a completed run's round trips
    from a cache; fill it once the run's end commits rather than on the first view
    (docs/results.md)."""
    transaction.on_commit(partial(run_round_trips_warm_task.delay, str(run_id)))
