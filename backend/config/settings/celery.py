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
CELERY_TASK_ALWAYS_EAGER = False

# The controller of a one-way run sends for the run's whole schedule (minutes): it goes to
# a queue of its own, served by a worker of its own (`celery worker -Q controllers`: the
# `controller` process of `make up`, the e2e stack and docker-compose), so that it never
# holds a slot the default worker needs for ingest, health checks and scheduling.
CONTROLLER_QUEUE = "controllers"
CELERY_TASK_ROUTES = {"experiments.tasks.run_oneway_send_task": {"queue": CONTROLLER_QUEUE}}
