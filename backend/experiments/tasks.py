"""Celery tasks of the experiments app: interfaces that take ids and call one service."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from celery import shared_task
from celery.app.task import Task

from core.exceptions import ApplicationError
from core.mqtt import BrokerUnavailable
from experiments.services.agent_events import runs_fail_stale
from experiments.services.jobs import run_dispatch, run_prepare
from experiments.services.oneway import run_oneway_send
from experiments.services.scheduling import run_fail, runs_schedule

logger = logging.getLogger(__name__)

DISPATCH_MAX_RETRIES = 3
DISPATCH_FAILED_MESSAGE = "Could not send the jobs to the devices: {error}"


def _publishing(task: Task[Any, Any], run_id: str, publish: Callable[..., int]) -> int:
    """Run a step that publishes to the broker; retry a broker failure with backoff, then
    fail the run saying why. Any other ApplicationError (e.g. a device without a broker
    identity, whose job cannot be built) fails the run at once with its message, rather than
    leaving it preparing."""
    try:
        return publish(run_id=run_id)
    except BrokerUnavailable as exc:
        if task.request.retries >= DISPATCH_MAX_RETRIES:
            run_fail(run_id=run_id, message=DISPATCH_FAILED_MESSAGE.format(error=exc.message))
            return 0
        logger.warning("experiments.dispatch_retry run=%s error=%s", run_id, exc.message)
        raise task.retry(exc=exc, countdown=2**task.request.retries) from exc
    except ApplicationError as exc:
        run_fail(run_id=run_id, message=DISPATCH_FAILED_MESSAGE.format(error=exc.message))
        return 0


@shared_task(
    bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=DISPATCH_MAX_RETRIES
)
def run_prepare_task(self: Task[Any, Any], run_id: str) -> int:
    """The run's health checks go out (run_prepare)."""
    return _publishing(self, run_id, run_prepare)


@shared_task(
    bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=DISPATCH_MAX_RETRIES
)
def run_dispatch_task(self: Task[Any, Any], run_id: str) -> int:
    """The run's jobs go out, once its devices passed their health checks."""
    return _publishing(self, run_id, run_dispatch)


@shared_task(acks_late=True)
def runs_fail_stale_task() -> int:
    return runs_fail_stale()


@shared_task(acks_late=True)
def runs_schedule_task() -> list[str]:
    return runs_schedule()


@shared_task(acks_late=False)
def run_oneway_send_task(run_id: str) -> int:
    """The controller of a one-way run: sends for the whole schedule (minutes). Not acked
    late: a redelivery after a worker crash would send the run's messages twice."""
    return run_oneway_send(run_id=run_id)
