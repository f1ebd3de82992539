"""The worker's log: the beat's periodic ticks do not bury the useful lines."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from celery.app import trace

from worker.celery_app import TASK_EVENT_LOGGERS

RUNS_SCHEDULE = "experiments.tasks.runs_schedule_task"


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.fixture
def worker_log() -> Iterator[_Lines]:
    """What the worker's task-event loggers let through at INFO, as `celery worker -l info`."""
    handler = _Lines()
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.INFO)
    for name in TASK_EVENT_LOGGERS:
        logging.getLogger(name).addHandler(handler)
    try:
        yield handler
    finally:
        root.setLevel(level)
        for name in TASK_EVENT_LOGGERS:
            logging.getLogger(name).removeHandler(handler)


def _received_and_succeeded(name: str) -> None:
    """The two lines Celery logs for each task, with its own format strings and loggers."""
    context = {"id": "abc", "name": name, "args": "()", "kwargs": "{}", "eta": None}
    logging.getLogger("celery.worker.strategy").info(trace.LOG_RECEIVED, context)
    done = {"id": "abc", "name": name, "return_value": "[]", "runtime": 0.01, "args": "()"}
    logging.getLogger("celery.app.trace").info(trace.LOG_SUCCESS, done)


def test_the_schedulers_tick_leaves_no_received_or_succeeded_lines(worker_log: _Lines) -> None:
    _received_and_succeeded("experiments.tasks.runs_schedule_task")
    _received_and_succeeded("experiments.tasks.runs_fail_stale_task")

    assert worker_log.lines == []


def test_beat_does_not_log_each_tick_it_sends(worker_log: _Lines) -> None:
    beat = logging.getLogger("celery.beat")
    beat.info("Scheduler: Sending due task %s (%s)", "schedule-queued-runs", RUNS_SCHEDULE)
    beat.info("beat: Starting...")

    assert worker_log.lines == ["beat: Starting..."]


def test_other_tasks_still_log_that_they_were_received_and_succeeded(worker_log: _Lines) -> None:
    _received_and_succeeded("measurements.tasks.chunk_ingest_task")

    assert worker_log.lines == [
        "Task measurements.tasks.chunk_ingest_task[abc] received",
        "Task measurements.tasks.chunk_ingest_task[abc] succeeded in 0.01s: []",
    ]


def test_a_periodic_task_that_fails_is_still_logged(worker_log: _Lines) -> None:
    context = {
        "id": "abc",
        "name": "experiments.tasks.runs_schedule_task",
        "description": "raised unexpected",
        "exc": "boom",
    }
    logging.getLogger("celery.app.trace").error(trace.LOG_FAILURE, context)

    assert worker_log.lines == [
        "Task experiments.tasks.runs_schedule_task[abc] raised unexpected: boom"
    ]
