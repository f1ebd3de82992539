"""Celery tasks of the results app: interfaces that take ids and call one service."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from celery.app.task import Task
from django.db import OperationalError

from results.services.round_trips import run_round_trips_warm
from results.services.run_replicates import run_replicates_warm

WARM_MAX_RETRIES = 3


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=WARM_MAX_RETRIES)
def run_round_trips_warm_task(self: Task[Any, Any], run_id: str) -> int:
    """A completed run's round trips into their cache and, for a messaging run, its
    figures for the experiment's results (stage 2 of the bootstrap): its pages' and its
    experiment's first views read them instead of computing them."""
    try:
        loaded = run_round_trips_warm(run_id=run_id)
        if loaded:
            run_replicates_warm(run_id=run_id)
        return loaded
    except OperationalError as exc:  # database restart or network blip: transient
        raise self.retry(exc=exc, countdown=2**self.request.retries) from exc
