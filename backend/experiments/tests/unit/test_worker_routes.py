"""Which queue each task goes to: one-way controllers never take the default worker's slots."""

from __future__ import annotations

from worker.celery_app import app


def _queue(task: str) -> str:
    route = app.amqp.router.route({}, task, args=(), kwargs={})
    return str(route["queue"].name)


def test_a_one_way_runs_controller_goes_to_the_controllers_queue() -> None:
    assert _queue("experiments.tasks.run_oneway_send_task") == "controllers"


def test_ingest_scheduling_and_health_checks_stay_on_the_default_queue() -> None:
    default = app.conf.task_default_queue
    for task in (
        "measurements.tasks.chunk_ingest_task",
        "experiments.tasks.runs_schedule_task",
        "experiments.tasks.run_prepare_task",
    ):
        assert _queue(task) == default == "celery"
