"""Running accepted jobs: failure reporting, upload, and resume after a restart."""

from __future__ import annotations

import dataclasses
import json
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from Crypto.PublicKey.ECC import EccKey

from iotsecbench_agent.platform.api import PlatformApi, RetryPolicy
from iotsecbench_agent.platform.controlplane import Topics
from iotsecbench_agent.platform.events import EventPublisher
from iotsecbench_agent.platform.jobs import Job, JobVerifier, SeqStore
from iotsecbench_agent.platform.progress import DONE, FAILED, Progress
from iotsecbench_agent.platform.uploader import Uploader
from iotsecbench_agent.runtime.executor import JobExecutor
from iotsecbench_agent.storage.recordlog import (
    OK,
    Record,
    RecordLog,
    RunFiles,
    RunMeta,
    read_records,
)
from testkit import TOKEN, Broker, FakeControlPlane, FakePlatform, make_job, sign_envelope

DEVICE = "6f1c1a52-3c1e-4a8e-9a57-1d0c2b7e9f10"
FAST = RetryPolicy(attempts=2, base_delay_s=0.01)


class Setup:
    def __init__(self, platform: FakePlatform, state_dir: Path, key: EccKey) -> None:
        self.state_dir = state_dir
        self.key = key
        self.platform = platform
        self.transport = FakeControlPlane()
        self.progress = Progress()
        self.stop = threading.Event()
        api = PlatformApi(server_url=platform.url, api_token=TOKEN, retry=FAST)
        self.executor = JobExecutor(
            state_dir=state_dir,
            device_id=DEVICE,
            api=api,
            uploader=Uploader(api, device_id=DEVICE, retry=FAST),
            events=EventPublisher(self.transport, Topics(f"iotsecbench/agents/{DEVICE}")),
            progress=self.progress,
            stop=self.stop,
        )

    def job(self, seq: int = 1, chunk_records: int = 5000, **spec: Any) -> Job:
        run_id = str(uuid.uuid4())
        raw = make_job(
            device_id=DEVICE,
            seq=seq,
            run_id=run_id,
            upload_url=self.platform.records_url(run_id),
            chunk_records=chunk_records,
            **spec,
        )
        verifier = JobVerifier(
            public_key=self.key.public_key().export_key(format="raw"),
            device_id=DEVICE,
            seq_store=SeqStore(self.state_dir),
        )
        return verifier.accept(sign_envelope(self.key, raw))


@pytest.fixture
def setup(platform: FakePlatform, tmp_path: Path, key: EccKey) -> Setup:
    return Setup(platform, tmp_path, key)


def test_executor_reports_job_failed_when_protocol_is_unsupported(setup: Setup) -> None:
    job = setup.job(protocol="amqp")
    setup.executor.execute(job)

    (event,) = setup.transport.on("/events")
    assert event["event"] == "job_failed"
    assert (event["job_id"], event["run_id"]) == (job.job_id, job.run_id)
    assert "protocol 'amqp' is not supported" in event["message"]
    (fail,) = setup.platform.to(f"/api/agent/runs/{job.run_id}/fail/")
    assert fail.json() == {"message": event["message"]}
    assert fail.headers["authorization"] == f"Device {TOKEN}"
    assert setup.progress.phase == FAILED
    assert RunMeta.load(RunFiles.of(setup.state_dir, job.run_id).meta).status == "failed"


def test_executor_refuses_run_when_run_id_already_ran_on_device(setup: Setup) -> None:
    job = setup.job(protocol="amqp")
    setup.executor.execute(job)
    setup.executor.execute(job)

    second = setup.transport.on("/events")[1]
    assert "already run on this device" in second["message"]


@pytest.mark.integration
def test_executor_measures_and_uploads_records_when_broker_echoes(
    setup: Setup, broker: Broker
) -> None:
    job = setup.job(broker_url=broker.url, message_count=12, qos=2, chunk_records=5)

    setup.executor.execute(job)

    chunks = setup.platform.to(f"/api/agent/runs/{job.run_id}/records/")
    assert [c.headers["x-chunk-index"] for c in chunks] == ["0", "1", "2"]
    assert chunks[-1].headers["x-record-total"] == "12"
    files = RunFiles.of(setup.state_dir, job.run_id)
    assert {r.outcome for r in read_records(files.csv)} == {OK}
    assert files.uploaded.read_text() == "2\n"
    assert RunMeta.load(files.meta).status == "uploaded"
    assert setup.progress.snapshot() == {
        "run_id": job.run_id,
        "job_id": job.job_id,
        "phase": DONE,
        "sent": 12,
        "received": 12,
        "total": 12,
    }


def write_run(setup: Setup, *, status: str, records: int, total: int) -> RunMeta:
    run_id = str(uuid.uuid4())
    files = RunFiles.of(setup.state_dir, run_id)
    with RecordLog(files.csv) as log:
        for seq in range(records):
            log.append(Record(seq, 1000 + seq, 2000 + seq, 66, 161, OK))
    meta = RunMeta(
        run_id=run_id,
        job_id=str(uuid.uuid4()),
        upload_url=setup.platform.records_url(run_id),
        chunk_records=5,
        total=total,
        status=status,
    )
    meta.save(files.meta)
    return meta


def test_executor_resumes_upload_after_last_acked_chunk_when_restarted(setup: Setup) -> None:
    meta = write_run(setup, status="measured", records=12, total=12)
    RunFiles.of(setup.state_dir, meta.run_id).uploaded.write_text("0\n")

    setup.executor.resume_pending()

    chunks = setup.platform.to(f"/api/agent/runs/{meta.run_id}/records/")
    assert [c.headers["x-chunk-index"] for c in chunks] == ["1", "2"]
    assert RunMeta.load(RunFiles.of(setup.state_dir, meta.run_id).meta).status == "uploaded"


def test_a_run_killed_mid_run_is_uploaded_then_reported_when_the_agent_restarts(
    setup: Setup,
) -> None:
    meta = write_run(setup, status="running", records=3, total=50)
    with RunFiles.of(setup.state_dir, meta.run_id).csv.open("a") as log:
        log.write("3,1003,20")  # the kill tore the last line: it is not a record

    setup.executor.resume_pending()

    (chunk,) = setup.platform.to(f"/api/agent/runs/{meta.run_id}/records/")
    assert chunk.headers["x-final-chunk"] == "true"
    assert chunk.headers["x-record-total"] == "3"
    assert len(chunk.body.decode().splitlines()) == 1 + 3
    (fail,) = setup.platform.to(f"/api/agent/runs/{meta.run_id}/fail/")
    assert fail.json()["message"] == (
        "agent stopped during the run (3 of 50 messages measured; "
        "uploaded after the agent restarted)"
    )
    # Upload first, then the reason.
    assert setup.platform.requests.index(chunk) < setup.platform.requests.index(fail)
    (event,) = setup.transport.on("/events")
    assert (event["event"], event["run_id"]) == ("job_failed", meta.run_id)
    assert json.loads(RunFiles.of(setup.state_dir, meta.run_id).meta.read_text())["status"] == (
        "uploaded"
    )
    assert setup.progress.phase == FAILED


def test_executor_reports_job_failed_when_it_expired_while_queued(setup: Setup) -> None:
    job = dataclasses.replace(setup.job(), expires_at=time.time() - 1)

    setup.executor.execute(job)

    (fail,) = setup.platform.to(f"/api/agent/runs/{job.run_id}/fail/")
    assert fail.json() == {"message": "job expired while queued"}


@pytest.mark.integration
def test_executor_stops_between_messages_uploads_what_it_measured_and_reports_failure(
    setup: Setup, broker: Broker
) -> None:
    job = setup.job(broker_url=broker.url, message_count=1000, interval_ms=50)
    threading.Timer(0.3, setup.stop.set).start()  # SIGTERM arrives mid-run

    started = time.monotonic()
    setup.executor.execute(job)

    assert time.monotonic() - started < 2.0  # the 50 ms interval wait ends on stop
    measured = read_records(RunFiles.of(setup.state_dir, job.run_id).csv)
    assert 0 < len(measured) < 1000
    # What was measured goes up, its final chunk declaring fewer records than planned ...
    chunks = setup.platform.to(f"/api/agent/runs/{job.run_id}/records/")
    uploaded = [line for c in chunks for line in c.body.decode().splitlines()[1:]]
    assert len(uploaded) == len(measured)
    assert chunks[-1].headers["x-final-chunk"] == "true"
    assert chunks[-1].headers["x-record-total"] == str(len(measured))
    # ... and then the failure, saying how much.
    (fail,) = setup.platform.to(f"/api/agent/runs/{job.run_id}/fail/")
    message = fail.json()["message"]
    assert message.startswith("agent stopped during the run: stopped after")
    assert message.endswith(f"({len(measured)} of 1000 messages measured and uploaded)")
    assert RunMeta.load(RunFiles.of(setup.state_dir, job.run_id).meta).status == "uploaded"


@pytest.mark.integration
def test_a_stopped_run_whose_upload_fails_keeps_its_log_for_the_next_start(
    setup: Setup, broker: Broker
) -> None:
    job = setup.job(broker_url=broker.url, message_count=1000, interval_ms=50)
    setup.platform.script[f"/api/agent/runs/{job.run_id}/records/"] = [503] * 10
    threading.Timer(0.3, setup.stop.set).start()

    setup.executor.execute(job)

    meta = RunMeta.load(RunFiles.of(setup.state_dir, job.run_id).meta)
    assert meta.status == "measured"  # resume_pending uploads it on the next start
    (event,) = setup.transport.on("/events")
    assert event["message"].endswith("they upload when the agent restarts)")


def _cancel_job(setup: Setup, target: Job, seq: int) -> Job:
    return dataclasses.replace(
        setup.job(seq=seq), kind="cancel", run_id=target.run_id, spec={"job_id": target.job_id}
    )


@pytest.mark.integration
def test_a_cancel_job_stops_the_run_uploads_what_it_measured_and_the_agent_runs_on(
    setup: Setup, broker: Broker
) -> None:
    job = setup.job(broker_url=broker.url, message_count=1000, interval_ms=50)
    cancel = _cancel_job(setup, job, seq=2)
    threading.Timer(0.3, setup.executor.submit, args=(cancel,)).start()

    started = time.monotonic()
    setup.executor.execute(job)

    assert time.monotonic() - started < 2.0
    assert not setup.stop.is_set()  # only the run stopped, not the agent
    measured = read_records(RunFiles.of(setup.state_dir, job.run_id).csv)
    assert 0 < len(measured) < 1000
    chunks = setup.platform.to(f"/api/agent/runs/{job.run_id}/records/")
    assert chunks[-1].headers["x-record-total"] == str(len(measured))
    (fail,) = setup.platform.to(f"/api/agent/runs/{job.run_id}/fail/")
    assert fail.json()["message"].startswith(
        "agent stopped during the run: cancelled from the platform (stopped after"
    )
    # The next job runs as usual.
    after = setup.job(seq=3, broker_url=broker.url, message_count=3)
    setup.executor.execute(after)
    assert len(read_records(RunFiles.of(setup.state_dir, after.run_id).csv)) == 3


def test_a_job_cancelled_before_it_starts_is_skipped(setup: Setup) -> None:
    job = setup.job()
    setup.executor.submit(_cancel_job(setup, job, seq=2))

    setup.executor.execute(job)

    (fail,) = setup.platform.to(f"/api/agent/runs/{job.run_id}/fail/")
    assert fail.json() == {"message": "cancelled before it started"}
    assert not RunFiles.of(setup.state_dir, job.run_id).csv.exists()
