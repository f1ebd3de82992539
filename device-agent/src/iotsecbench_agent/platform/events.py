"""The agent's own topics: job intake, events and heartbeats (§3–§4 of the contract)."""

from __future__ import annotations

import json
import logging
import time
from typing import Any, Callable

from iotsecbench_agent.errors import AgentError
from iotsecbench_agent.platform.controlplane import ControlPlane, Topics
from iotsecbench_agent.platform.jobs import MALFORMED, Job, JobRejected, JobVerifier
from iotsecbench_agent.platform.progress import Progress

logger = logging.getLogger(__name__)

EVENT_QOS = 1
HEARTBEAT_QOS = 0
JOBS_QOS = 1


class EventPublisher:
    """Publishes the ``events`` and ``heartbeat`` messages of one agent."""

    def __init__(self, transport: ControlPlane, topics: Topics) -> None:
        self._transport = transport
        self._topics = topics

    def job_rejected(self, reason: str, seq: int | None) -> None:
        self._event({"event": "job_rejected", "reason": reason, "seq": seq})

    def job_accepted(self, job: Job) -> None:
        self._event({"event": "job_accepted", "job_id": job.job_id, "seq": job.seq})

    def job_failed(self, *, job_id: str, run_id: str, message: str) -> None:
        self._event({"event": "job_failed", "job_id": job_id, "run_id": run_id, "message": message})

    def network_enforced(self, *, job_id: str, run_id: str, network: dict[str, Any]) -> None:
        """The proof that a run's network profile was enforced (runtime/enforcement.py)."""
        self._event(
            {"event": "network_enforced", "job_id": job_id, "run_id": run_id, "network": network}
        )

    def run_event(self, fields: dict[str, Any], *, job_id: str, run_id: str) -> None:
        """An event a runner publishes about its run (RunContext.publish_event)."""
        self._event({**fields, "job_id": job_id, "run_id": run_id})

    def health_report(self, *, job_id: str, report: dict[str, Any]) -> None:
        """The answer to a health_check job (runtime/health.py)."""
        self._event({"event": "health_report", "job_id": job_id, **report})

    def heartbeat(self, progress: Progress) -> None:
        payload = {"ts": time.time(), **progress.snapshot()}
        try:
            self._transport.publish(
                self._topics.heartbeat, _encode(payload), qos=HEARTBEAT_QOS, retain=False
            )
        except AgentError as exc:
            logger.debug("agent.heartbeat_not_sent error=%s", exc)

    def _event(self, fields: dict[str, Any]) -> None:
        payload = {"ts": time.time(), **fields}
        try:
            self._transport.publish(self._topics.events, _encode(payload), qos=EVENT_QOS)
        except AgentError as exc:
            # An event that cannot be sent must not stop the job flow; the log keeps it.
            logger.warning("agent.event_not_sent event=%s error=%s", fields["event"], exc)


class JobIntake:
    """Handles one raw message from the jobs topic: verify, report, hand over.

    Runs on the control-plane client's network thread; it only verifies (fast) and queues,
    the job itself runs on the executor's thread.
    """

    def __init__(
        self,
        *,
        verifier: JobVerifier,
        events: EventPublisher,
        submit: Callable[[Job], None],
    ) -> None:
        self._verifier = verifier
        self._events = events
        self._submit = submit

    def handle(self, raw: bytes) -> Job | None:
        try:
            job = self._verifier.accept(raw)
        except JobRejected as exc:
            logger.warning(
                "agent.job_rejected reason=%s seq=%s detail=%s", exc.reason, exc.seq, exc.detail
            )
            self._events.job_rejected(exc.reason, exc.seq)
            return None
        except AgentError as exc:
            # e.g. the seq file cannot be read or written: fail closed, run nothing.
            logger.error("agent.job_rejected reason=%s detail=%s", MALFORMED, exc)
            self._events.job_rejected(MALFORMED, None)
            return None
        logger.info(
            "agent.job_accepted job_id=%s run_id=%s seq=%d", job.job_id, job.run_id, job.seq
        )
        self._events.job_accepted(job)
        self._submit(job)
        return job


def _encode(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, separators=(",", ":")).encode("utf-8")
