"""Celery tasks of the power app: interfaces that take ids and call one service."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from celery.app.task import Task
from django.db import OperationalError

from power.services import trace_parse, trace_parse_give_up

PARSE_MAX_RETRIES = 3


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=PARSE_MAX_RETRIES)
def trace_parse_task(self: Task[Any, Any], trace_id: str, token: str) -> bool:
    try:
        return trace_parse(trace_id=trace_id, token=token)
    except OperationalError as exc:  # database restart or network blip: transient
        if self.request.retries >= PARSE_MAX_RETRIES:
            trace_parse_give_up(trace_id=trace_id, token=token, error=str(exc))
            raise
        raise self.retry(exc=exc, countdown=2**self.request.retries) from exc
