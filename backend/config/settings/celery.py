"""Celery (worker/) reads every CELERY_* setting from here (namespace="CELERY")."""

from config.env import envstr

REDIS_URL = envstr("REDIS_URL", default="redis://127.0.0.1:6379/0")

CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = REDIS_URL
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Tasks are acknowledged after they ran (acks_late): a task whose worker was killed is
# delivered again once this timeout passes. Every acks-late task takes seconds (an ingest of
# 20,000 records ~1 s), so 10 minutes is generous; the one-way controller, which runs for a
# whole run, is acknowledged at once instead (experiments.tasks). Ingestion does not wait
# for it: beat re-queues chunks left `received` after CHUNK_REQUEUE_AFTER_SECONDS.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 600}
CELERY_TASK_ALWAYS_EAGER = False

# The controller of a one-way run sends for the run's whole schedule (minutes): it goes to
# a queue of its own, served by a worker of its own (`celery worker -Q controllers`: the
# `controller` process of `make up`, the e2e stack and docker-compose), so that it never
# holds a slot the default worker needs for ingest, health checks and scheduling.
CONTROLLER_QUEUE = "controllers"
CELERY_TASK_ROUTES = {"experiments.tasks.run_oneway_send_task": {"queue": CONTROLLER_QUEUE}}
