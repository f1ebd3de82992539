"""Runs accepted jobs, one at a time, on one worker thread; uploads their logs; and on
start finishes what a previous agent process left behind (upload resume, crash reports).

Per run, the files under ``<state-dir>/runs/`` move through the statuses of ``RunMeta``:
``running`` (being measured) → ``measured`` (log complete, upload pending) → ``uploaded``,
or ``failed``. Nothing measured is lost: however a run ends (finished, cancelled, SIGTERM,
an AgentError such as a broken data-plane connection, a crash), what it logged is uploaded
first and then, if it ended early, the reason is reported (``_conclude``, the one path for
all of these). A run found ``running`` at start-up was cut short by a kill: its log (less a
torn last line) is uploaded and reported the same way. A run found ``measured`` resumes its
upload after the last acknowledged chunk. An upload retries for hours
(``upload_retry_s``); a stop ends the wait and leaves the run ``measured`` for the next start.

A cipher-bench run (§7) goes through the same statuses with the same ``RunMeta``; its log
is ``samplelog``'s ``<run_id>.samples.csv`` (the runner's ``log`` is ``SAMPLES``), and the
existence of that file is what selects the samples upload, also when resuming.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import queue
import threading
import time
from functools import partial
from pathlib import Path
from typing import Any

from iotsecbench_contract.errors import ContractError
from iotsecbench_contract.jobspec import HEALTH_CHECK, SERVE, LinkSpec
from iotsecbench_contract.resources import RunResources

from iotsecbench_agent.errors import (
    RUN_ERRORS,
    AgentError,
    PlatformError,
    PlatformRejected,
    PlatformUnavailable,
    RunAborted,
    UnsupportedJob,
)
from iotsecbench_agent.jobkinds import runner_for
from iotsecbench_agent.platform.api import PlatformApi, RetryPolicy
from iotsecbench_agent.platform.events import EventPublisher
from iotsecbench_agent.platform.identity import BrokerIdentity
from iotsecbench_agent.platform.jobs import Job
from iotsecbench_agent.platform.progress import DONE, FAILED, UPLOADING, Progress
from iotsecbench_agent.platform.uploader import Uploader
from iotsecbench_agent.runners import RunClock, RunContext, Runner
from iotsecbench_agent.runners.base import SAMPLES
from iotsecbench_agent.runtime.enforcement import AUTO, FIELD, NetworkProfileSpec, enforced
from iotsecbench_agent.runtime.health import health_report
from iotsecbench_agent.runtime.serving import Serving
from iotsecbench_agent.storage.csvlog import RUNS_DIR
from iotsecbench_agent.storage.fsutil import atomic_write_text
from iotsecbench_agent.storage.recordlog import (
    OK,
    RUN_FAILED,
    RUN_MEASURED,
    RUN_RUNNING,
    RUN_UPLOADED,
    Record,
    RecordLog,
    RunFiles,
    RunMeta,
    UploadCursor,
)
from iotsecbench_agent.storage.samplelog import (
    SAMPLES_UPLOAD,
    Sample,
    SampleFiles,
    SampleLog,
)
from iotsecbench_agent.storage.uploadformat import RECORDS, UploadFormat

logger = logging.getLogger(__name__)

# While shutting down, one quick try to tell the platform; the systemd stop timeout is short.
SHUTDOWN_REPORT_POLICY = RetryPolicy(attempts=1)
# ... and two quick tries per chunk to upload what a stopped run measured; what is not sent
# stays on disk and goes up when the agent starts again.
SHUTDOWN_UPLOAD_POLICY = RetryPolicy(attempts=2, base_delay_s=0.2)


CANCEL = "cancel"
# The reason of a run that ended because the agent stopped (SIGTERM, cancel, or a kill found
# at the next start).
STOPPED = "agent stopped during the run"


class RunStop(threading.Event):
    """One run's stop flag: set by a cancel job for that run, and set whenever the agent's
    own stop is (SIGTERM). Runners only ask ``is_set()`` between messages."""

    def __init__(self, agent_stop: threading.Event) -> None:
        super().__init__()
        self._agent_stop = agent_stop

    def is_set(self) -> bool:
        return super().is_set() or self._agent_stop.is_set()


class JobExecutor:
    def __init__(
        self,
        *,
        state_dir: Path,
        device_id: str,
        api: PlatformApi,
        uploader: Uploader,
        events: EventPublisher,
        progress: Progress,
        stop: threading.Event,
        network_backend: str = AUTO,
        identity: BrokerIdentity | None = None,
    ) -> None:
        self._state_dir = state_dir
        self._identity = identity or BrokerIdentity()
        self._network_backend = network_backend  # enforcement.choose_backend's setting
        self._device_id = device_id
        self._api = api
        self._uploader = uploader
        self._events = events
        self._progress = progress
        self._stop = stop
        self._queue: queue.Queue[Job | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        # The run in progress and its own stop (set by a cancel job or by the agent's).
        self._lock = threading.Lock()
        self._current: tuple[str, RunStop] | None = None
        self._cancelled: set[str] = set()
        # Serve jobs (runtime/serving.py): beside the runs, each in its own thread.
        self.serving = Serving(self._serving_report, stop)

    def submit(self, job: Job) -> None:
        """Queue a run's job; a ``cancel`` job (spec.job_id: the run's job) acts at once.
        The device's broker identity joins the spec here, never on the wire."""
        context = f"{job.run_id}/{self._device_id}"
        job = dataclasses.replace(job, spec=self._identity.apply(job.spec, context=context))
        if job.kind == CANCEL:
            self.cancel(str(job.spec.get("job_id", "")))
            return
        if job.kind == HEALTH_CHECK:
            # Beside a run, not behind it: the answer says whether the device can take one.
            threading.Thread(
                target=self._health_check, args=(job,), name="agent-health", daemon=True
            ).start()
            return
        if job.kind == SERVE:
            self.serving.start(job)
            return
        self._queue.put(job)

    def _serving_report(self, fields: dict[str, Any], job: Job) -> None:
        self._events.run_event(fields, job_id=job.job_id, run_id=job.run_id)

    def _health_check(self, job: Job) -> None:
        try:
            report = health_report(
                job.spec,
                device_id=self._device_id,
                time_url=str(job.spec.get("time_url", "")),
                token=self._api.api_token,
            )
        except Exception as exc:
            logger.exception("agent.health_check_crashed job_id=%s", job.job_id)
            report = {"status": "failed", "checks": [], "error": f"internal agent error: {exc!r}"}
        logger.info("agent.health_checked job_id=%s status=%s", job.job_id, report["status"])
        self._events.health_report(job_id=job.job_id, report=report)

    def cancel(self, job_id: str) -> None:
        """Stop the job's run between two messages (what it measured is uploaded), or skip
        it if it has not started yet (docs/control-plane.md, cancel jobs). A serve job
        stops serving."""
        if self.serving.cancel(job_id):
            logger.info("agent.serve_cancelled job_id=%s", job_id)
            return
        with self._lock:
            if self._current is not None and self._current[0] == job_id:
                self._current[1].set()
                logger.info("agent.run_cancelled job_id=%s", job_id)
            else:
                self._cancelled.add(job_id)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._work, name="agent-executor", daemon=True)
        self._thread.start()

    def shutdown(self, timeout: float) -> None:
        """Stop after the current step (the caller has set ``stop``) and wait for it."""
        self._queue.put(None)
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                logger.warning("agent.executor_still_running timeout_s=%g", timeout)

    def _work(self) -> None:
        try:
            self.resume_pending()
        except Exception:
            logger.exception("agent.resume_failed")
        while not self._stop.is_set():
            job = self._queue.get()
            if job is None or self._stop.is_set():
                break
            try:
                self.execute(job)
            except Exception:
                # Never let one job kill the worker: later jobs must still run.
                logger.exception("agent.job_crashed job_id=%s", job.job_id)

    # -- one job --------------------------------------------------------------------

    def execute(self, job: Job) -> None:
        files = RunFiles.of(self._state_dir, job.run_id)
        if files.meta.exists():
            self._report_failure(
                job.job_id, job.run_id, f"run {job.run_id} was already run on this device"
            )
            return
        with self._lock:
            cancelled = job.job_id in self._cancelled
            self._cancelled.discard(job.job_id)
        if cancelled:
            self._report_failure(job.job_id, job.run_id, "cancelled before it started")
            return
        if job.expires_at <= time.time():
            # Accepted in time, but queued behind another run until after its expiry.
            self._report_failure(job.job_id, job.run_id, "job expired while queued")
            return
        upload = job.upload
        if upload is None:
            self._report_failure(job.job_id, job.run_id, f"a {job.kind} job measures nothing")
            return
        meta = RunMeta(
            run_id=job.run_id,
            job_id=job.job_id,
            upload_url=upload.url,
            chunk_records=upload.chunk_records,
            total=_planned_total(job),
            status=RUN_RUNNING,
        )
        run_stop = RunStop(self._stop)
        with self._lock:
            self._current = (job.job_id, run_stop)
        try:
            self._execute(job, files, meta, run_stop)
        finally:
            with self._lock:
                self._current = None

    def _execute(self, job: Job, files: RunFiles, meta: RunMeta, run_stop: RunStop) -> None:
        self._progress.start(job_id=job.job_id, run_id=job.run_id, total=meta.total)
        logger.info("agent.run_started job_id=%s run_id=%s", job.job_id, job.run_id)
        sink: _LoggedRun | None = None
        ended: str | None = None  # why the run ended early; None: it finished
        try:
            runner_cls = runner_for(job.kind, job.spec)
            network = NetworkProfileSpec.parse(job.spec)
            if network is not None and not runner_cls.network_profiles:
                raise UnsupportedJob(
                    f"spec.{FIELD} is not supported for {job.kind} runs "
                    "(only MQTT and SRUP round trips go through an emulated link)"
                )
            samples = None
            if runner_cls.log == SAMPLES:
                samples = SampleFiles.of(self._state_dir, job.run_id)
            with _LoggedRun(files, meta, self._progress, samples) as sink:
                context = RunContext(
                    run_id=job.run_id,
                    device_id=self._device_id,
                    clock=RunClock(),
                    emit=sink.emit,
                    stop=run_stop,
                    emit_sample=sink.emit_sample,
                    publish_event=partial(
                        self._events.run_event, job_id=job.job_id, run_id=job.run_id
                    ),
                    api_token=self._api.api_token,
                    report_resources=partial(self._save_resources, files),
                )
                if network is None:
                    runner_cls(job.spec, context).execute()
                else:
                    self._run_enforced(job, runner_cls, context, network)
        except RunAborted as exc:
            why = str(exc) if self._stop.is_set() else f"cancelled from the platform ({exc})"
            ended = f"{STOPPED}: {why}"
        except RUN_ERRORS as exc:
            ended = str(exc)
        except Exception as exc:
            logger.exception("agent.run_crashed run_id=%s", job.run_id)
            ended = f"internal agent error: {exc!r}"
        measured = sink.count if sink is not None else 0
        if ended is not None and measured == 0:
            # Nothing logged (e.g. a spec this device cannot run): nothing to upload.
            self._fail(meta, ended)
            return
        meta = meta.with_status(RUN_MEASURED, ended=ended)
        meta.save(files.meta)
        logger.info(
            "agent.run_measured run_id=%s records=%d ended_early=%s",
            job.run_id,
            measured,
            ended is not None,
        )
        self._conclude(meta)

    def _run_enforced(
        self,
        job: Job,
        runner_cls: type[Runner],
        context: RunContext,
        network: NetworkProfileSpec,
    ) -> None:
        """Run through an emulated link (enforcement.py): the spec is checked first, so a
        bad spec fails without a link; the link is verified before the runner connects;
        the runner runs with this thread in the device namespace, and comes back out of it
        (and the link is torn down) whatever happens, SIGTERM's RunAborted included."""
        runner_cls.validate_spec(job.spec)
        broker = LinkSpec.parse(job.spec).broker

        def report(proof: dict[str, Any]) -> None:
            self._network_enforced(job, proof)

        with enforced(
            network,
            run_id=job.run_id,
            device_id=self._device_id,
            broker=broker,
            report=report,
            backend=self._network_backend,
        ) as path:
            context.broker_via = path.via
            runner = runner_cls(job.spec, context)
            with path.inside():
                runner.execute()

    def _network_enforced(self, job: Job, proof: dict[str, Any]) -> None:
        """Keep the proof beside the run's log and send it as a ``network_enforced``
        event (§3); the run goes on whether or not either works."""
        try:
            atomic_write_text(
                RunFiles.of(self._state_dir, job.run_id).network, json.dumps(proof) + "\n"
            )
        except OSError as exc:
            logger.error("agent.network_proof_not_saved run_id=%s error=%s", job.run_id, exc)
        self._events.network_enforced(job_id=job.job_id, run_id=job.run_id, network=proof)
        verification = proof["verification"]
        logger.info(
            "agent.network_enforced run_id=%s profile=%s median_ms=%s expected_ms=%.2f",
            job.run_id,
            proof["profile"]["name"],
            verification["measured_median_ms"],
            verification["expected_median_ms"],
        )

    def _save_resources(self, files: RunFiles, resources: RunResources) -> None:
        """Keep a messaging run's resources beside its log until its final chunk carries
        them (also across a restart); the run goes on if they cannot be saved."""
        try:
            atomic_write_text(files.resources, resources.to_header() + "\n")
        except OSError as exc:
            logger.error("agent.resources_not_saved run_id=%s error=%s", files.run_id, exc)

    def _resources_of(self, run_id: str) -> RunResources | None:
        """The run's saved resources; None without them (a benchmark run, a run killed
        before its window closed, or an agent before them)."""
        path = RunFiles.of(self._state_dir, run_id).resources
        try:
            return RunResources.from_header(path.read_text(encoding="ascii").strip())
        except FileNotFoundError:
            return None
        except (OSError, ValueError, ContractError) as exc:
            logger.error("agent.resources_unreadable run_id=%s error=%s", run_id, exc)
            return None

    def _conclude(self, meta: RunMeta, *, resumed: bool = False) -> None:
        """Upload a ``measured`` run's log, then, if it ended early (``meta.ended``), report
        why, saying how much was measured. Upload first: the platform settles the device's
        part from the upload, the report gives the reason.

        The upload retries 5xx answers and connection errors for ``upload_retry_s``; a stop
        ends its wait at once. While stopping (SIGTERM) there are only two quick tries per
        chunk. An upload that does not get through leaves the run ``measured``, and the
        next start resumes it after the last acknowledged chunk.
        """
        meta_path = RunFiles.of(self._state_dir, meta.run_id).meta
        csv_path, cursor_path, log_format = self._log_of(meta.run_id)
        stopping = self._stop.is_set()
        self._progress.set_phase(UPLOADING)
        try:
            result = self._uploader.upload(
                run_id=meta.run_id,
                url=meta.upload_url,
                csv_path=csv_path,
                chunk_records=meta.chunk_records,
                cursor=UploadCursor(cursor_path),
                stop=None if stopping else self._stop,
                log_format=log_format,
                retry=SHUTDOWN_UPLOAD_POLICY if stopping else None,
                resources=self._resources_of(meta.run_id),
            )
        except PlatformRejected as exc:
            meta.with_status(RUN_FAILED).save(meta_path)
            self._progress.set_phase(FAILED)
            if meta.ended is None:
                self._report_failure(
                    meta.job_id, meta.run_id, f"upload rejected by the platform: {exc}"
                )
            else:
                note = f"; the platform refused them: {exc}"
                self._report_failure(meta.job_id, meta.run_id, self._ended_message(meta, note))
            return
        except (PlatformUnavailable, RunAborted) as exc:
            # The log and the cursor stay on disk; the next agent start resumes the upload.
            logger.error("agent.upload_incomplete run_id=%s error=%s", meta.run_id, exc)
            self._progress.set_phase(FAILED)
            if meta.ended is not None and not meta.reported:
                note = "; they upload when the agent restarts"
                message = self._ended_message(meta, note)
                if self._report_failure(meta.job_id, meta.run_id, message):
                    meta.with_status(RUN_MEASURED, reported=True).save(meta_path)
            return
        logger.info(
            "agent.run_uploaded run_id=%s records=%d chunks_sent=%d",
            meta.run_id,
            result.records,
            result.chunks_sent,
        )
        if meta.ended is None:
            meta.with_status(RUN_UPLOADED).save(meta_path)
            self._progress.set_phase(DONE)
            return
        self._progress.set_phase(FAILED)
        if not meta.reported:
            # Reported before the status is saved: a kill in between repeats the report
            # (the upload then sends nothing new) rather than losing it.
            note = "; uploaded after the agent restarted" if resumed else " and uploaded"
            self._report_failure(meta.job_id, meta.run_id, self._ended_message(meta, note))
        meta.with_status(RUN_UPLOADED, reported=True).save(meta_path)

    def _ended_message(self, meta: RunMeta, note: str) -> str:
        """``<why> (<n> of <planned> messages measured<note>)``, n being the lines of the
        log, as the upload's ``X-Record-Total`` says."""
        csv_path, _, log_format = self._log_of(meta.run_id)
        measured = sum(1 for _ in log_format.lines(csv_path))
        unit = "samples" if log_format is SAMPLES_UPLOAD else "messages"
        return f"{meta.ended} ({measured} of {meta.total} {unit} measured{note})"

    # -- restart ----------------------------------------------------------------------

    def resume_pending(self) -> None:
        """Finish runs left by an earlier process: a run killed mid-run (``running``) is
        marked measured and concluded like one that ended early; ``measured`` ones resume
        their upload (and the report of why they ended, if it did not get through)."""
        runs_dir = self._state_dir / RUNS_DIR
        if not runs_dir.is_dir():
            return
        for meta_path in sorted(runs_dir.glob("*.json")):
            if self._stop.is_set():
                return
            try:
                meta = RunMeta.load(meta_path)
            except (OSError, ValueError, KeyError) as exc:
                logger.error("agent.run_meta_unreadable path=%s error=%s", meta_path, exc)
                continue
            if meta.status == RUN_RUNNING:
                logger.info("agent.killed_run_found run_id=%s", meta.run_id)
                meta = meta.with_status(RUN_MEASURED, ended=STOPPED)
                meta.save(meta_path)
            elif meta.status != RUN_MEASURED:
                continue
            logger.info("agent.upload_resumed run_id=%s", meta.run_id)
            self._progress.start(
                job_id=meta.job_id, run_id=meta.run_id, total=meta.total, phase=UPLOADING
            )
            self._conclude(meta, resumed=True)

    def _log_of(self, run_id: str) -> tuple[Path, Path, UploadFormat]:
        """A run's log, upload cursor and upload format: its samples if it has a samples
        log (a cipher-bench run), else its records."""
        samples = SampleFiles.of(self._state_dir, run_id)
        if samples.csv.exists():
            return samples.csv, samples.uploaded, SAMPLES_UPLOAD
        files = RunFiles.of(self._state_dir, run_id)
        return files.csv, files.uploaded, RECORDS

    # -- failures ---------------------------------------------------------------------

    def _fail(self, meta: RunMeta, message: str) -> None:
        meta.with_status(RUN_FAILED).save(RunFiles.of(self._state_dir, meta.run_id).meta)
        self._progress.set_phase(FAILED)
        self._report_failure(meta.job_id, meta.run_id, message)

    def _report_failure(self, job_id: str, run_id: str, message: str) -> bool:
        """Send ``job_failed`` and POST the failure; True when the platform took it."""
        logger.error("agent.job_failed job_id=%s run_id=%s message=%s", job_id, run_id, message)
        self._events.job_failed(job_id=job_id, run_id=run_id, message=message)
        policy = SHUTDOWN_REPORT_POLICY if self._stop.is_set() else None
        try:
            self._api.report_failure(run_id, message, policy=policy, stop=self._stop)
        except (PlatformError, RunAborted) as exc:
            logger.error("agent.failure_report_failed run_id=%s error=%s", run_id, exc)
            return False
        return True


def _planned_total(job: Job) -> int:
    """The progress total of a job; 0 when it cannot run (that is reported when it starts)."""
    try:
        return runner_for(job.kind, job.spec).planned_total(job.spec)
    except RUN_ERRORS:
        return 0


class _LoggedRun:
    """Opens the run's meta file and its log: the record log, or the sample log when
    ``samples`` is given. ``emit``/``emit_sample`` append one line and count it."""

    def __init__(
        self,
        files: RunFiles,
        meta: RunMeta,
        progress: Progress,
        samples: SampleFiles | None = None,
    ) -> None:
        self._files = files
        self._meta = meta
        self._progress = progress
        self._samples = samples
        self._log: RecordLog | None = None
        self._sample_log: SampleLog | None = None
        self.count = 0

    def __enter__(self) -> _LoggedRun:
        self._meta.save(self._files.meta)
        if self._samples is None:
            self._log = RecordLog(self._files.csv)
        else:
            self._sample_log = SampleLog(self._samples.csv)
        return self

    def emit(self, record: Record) -> None:
        if self._log is None:
            raise AgentError("this run logs samples, not message records")
        self._log.append(record)
        self.count += 1
        self._progress.count(sent=1, received=1 if record.outcome == OK else 0)

    def emit_sample(self, sample: Sample) -> None:
        if self._sample_log is None:
            raise AgentError("this run logs message records, not samples")
        self._sample_log.append(sample)
        self.count += 1
        # Every logged sample's operation checked out (a failed decrypt/verify fails the
        # run), so it counts as both done and received.
        self._progress.count(sent=1, received=1)

    def __exit__(self, *exc: object) -> None:
        if self._log is not None:
            self._log.close()
        if self._sample_log is not None:
            self._sample_log.close()
