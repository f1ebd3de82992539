"""Celery tasks of the measurements app: interfaces that take ids and call one service."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from celery.app.task import Task
from django.db import OperationalError

from measurements.services import chunk_ingest, chunks_requeue_stale

INGEST_MAX_RETRIES = 5


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=INGEST_MAX_RETRIES)
def chunk_ingest_task(self: Task[Any, Any], chunk_id: int) -> int:
    try:
        return chunk_ingest(chunk_id=chunk_id)
    except OperationalError as exc:  # database restart or network blip: transient
        raise self.retry(exc=exc, countdown=2**self.request.retries) from exc


@shared_task
def chunks_requeue_stale_task() -> int:
    return chunks_requeue_stale()
