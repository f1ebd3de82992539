"""Celery tasks of the results app: interfaces that take ids and call one service."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from celery.app.task import Task
from django.db import OperationalError

from results.services.warm import run_results_warm

WARM_MAX_RETRIES = 3


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=WARM_MAX_RETRIES)
def run_round_trips_warm_task(self: Task[Any, Any], run_id: str) -> int:
    """A completed run's round trips, statistics and figures for its experiment's results
    into their caches (results.services.warm): first views read them."""
    try:
        return run_results_warm(run_id=run_id)
    except OperationalError as exc:  # database restart or network blip: transient
        raise self.retry(exc=exc, countdown=2**self.request.retries) from exc
