"""Issue #17, nothing measured is lost: however a run ends, what it logged reaches the
platform (upload first), and then the reason is reported; a restart finishes the job under
the same idempotency keys. The runner is scripted here (it logs n records, then ends as
asked), the platform is the fake HTTP server."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest
from Crypto.PublicKey.ECC import EccKey

from iotsecbench_agent.errors import DataPlaneError, RunAborted
from iotsecbench_agent.jobkinds import runner_for
from iotsecbench_agent.platform.api import PlatformApi, RetryPolicy, upload_policy
from iotsecbench_agent.platform.controlplane import Topics
from iotsecbench_agent.platform.events import EventPublisher
from iotsecbench_agent.platform.jobs import Job, JobVerifier, SeqStore
from iotsecbench_agent.platform.progress import DONE, FAILED, UPLOADING, Progress
from iotsecbench_agent.platform.uploader import Uploader
from iotsecbench_agent.runners import RunContext, Runner
from iotsecbench_agent.runtime.executor import JobExecutor
from iotsecbench_agent.storage.recordlog import OK, Record, RunFiles, RunMeta
from testkit import TOKEN, FakeControlPlane, FakePlatform, Request, make_job, sign_envelope

DEVICE = "6f1c1a52-3c1e-4a8e-9a57-1d0c2b7e9f10"
FAST = RetryPolicy(attempts=2, base_delay_s=0.01)


class ScriptedRunner(Runner):
    """Logs ``spec["log"]`` records, then does what ``spec["end"]`` says."""

    protocol: ClassVar[str] = "scripted"
    measurements: ClassVar[tuple[str, ...]] = ("round_trip",)

    def __init__(self, spec: Mapping[str, Any], context: RunContext) -> None:
        super().__init__(spec, context)
        self.spec = spec

    @classmethod
    def validate_spec(cls, spec: Mapping[str, Any]) -> None:
        pass

    def setup(self) -> None:
        pass

    def run(self) -> None:
        for seq in range(int(self.spec["log"])):
            self.context.emit(Record(seq, 1000 + seq, 2000 + seq, 66, 161, OK))
        end = self.spec["end"]
        if end == "data_plane":
            raise DataPlaneError("data-plane connection failed during read")
        if end == "crash":
            raise ValueError("boom")
        if end == "abort":
            raise RunAborted(f"stopped after {self.spec['log']} of {self.spec['message_count']}")

    def cleanup(self) -> None:
        pass


class Device:
    """One agent process's executor on a state directory; a second one on the same
    directory is the agent after a restart."""

    def __init__(
        self,
        platform: FakePlatform,
        state_dir: Path,
        key: EccKey,
        *,
        upload_retry: RetryPolicy = FAST,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        self.platform = platform
        self.state_dir = state_dir
        self.key = key
        self.transport = FakeControlPlane()
        self.progress = Progress()
        self.stop = threading.Event()
        api = PlatformApi(server_url=platform.url, api_token=TOKEN, retry=FAST)
        self.executor = JobExecutor(
            state_dir=state_dir,
            device_id=DEVICE,
            api=api,
            uploader=Uploader(api, device_id=DEVICE, retry=upload_retry, sleep=sleep),
            events=EventPublisher(self.transport, Topics(f"iotsecbench/agents/{DEVICE}")),
            progress=self.progress,
            stop=self.stop,
        )

    def job(self, *, log: int, end: str, planned: int = 2000, chunk_records: int = 5000) -> Job:
        run_id = str(uuid.uuid4())
        raw = make_job(
            device_id=DEVICE,
            seq=int(time.time() * 1000),
            run_id=run_id,
            upload_url=self.platform.records_url(run_id),
            chunk_records=chunk_records,
            protocol="scripted",
            message_count=planned,
            log=log,
            end=end,
        )
        verifier = JobVerifier(
            public_key=self.key.public_key().export_key(format="raw"),
            device_id=DEVICE,
            seq_store=SeqStore(self.state_dir),
        )
        return verifier.accept(sign_envelope(self.key, raw))

    def status(self, run_id: str) -> RunMeta:
        return RunMeta.load(RunFiles.of(self.state_dir, run_id).meta)


@pytest.fixture(autouse=True)
def scripted_runner(monkeypatch: pytest.MonkeyPatch) -> None:
    def scripted_or_real(kind: str, spec: Mapping[str, Any]) -> type[Runner]:
        return ScriptedRunner if spec.get("protocol") == "scripted" else runner_for(kind, spec)

    monkeypatch.setattr("iotsecbench_agent.runtime.executor.runner_for", scripted_or_real)


@pytest.fixture
def device(platform: FakePlatform, tmp_path: Path, key: EccKey) -> Device:
    return Device(platform, tmp_path, key)


def records_of(chunks: list[Request]) -> list[str]:
    return [line for c in chunks for line in c.body.decode().splitlines()[1:]]


def upload_then_report(platform: FakePlatform, run_id: str) -> tuple[list[Request], str]:
    """The run's chunks and its one failure message, checking the chunks came first."""
    chunks = platform.to(f"/api/agent/runs/{run_id}/records/")
    (fail,) = platform.to(f"/api/agent/runs/{run_id}/fail/")
    assert max(platform.requests.index(c) for c in chunks) < platform.requests.index(fail)
    return chunks, str(fail.json()["message"])


def test_a_run_whose_data_plane_fails_mid_run_uploads_its_records_then_says_why(
    device: Device,
) -> None:
    job = device.job(log=812, end="data_plane", chunk_records=500)

    device.executor.execute(job)

    chunks, message = upload_then_report(device.platform, job.run_id)
    assert [c.headers["x-chunk-index"] for c in chunks] == ["0", "1"]
    assert chunks[-1].headers["x-final-chunk"] == "true"
    assert chunks[-1].headers["x-record-total"] == "812"
    assert len(records_of(chunks)) == 812
    assert message == (
        "data-plane connection failed during read (812 of 2000 messages measured and uploaded)"
    )
    (event,) = device.transport.on("/events")
    assert (event["event"], event["message"]) == ("job_failed", message)
    assert device.status(job.run_id).status == "uploaded"
    assert device.progress.phase == FAILED


def test_a_run_that_crashes_mid_run_uploads_its_records_then_says_why(device: Device) -> None:
    job = device.job(log=7, end="crash", planned=10)

    device.executor.execute(job)

    chunks, message = upload_then_report(device.platform, job.run_id)
    assert chunks[-1].headers["x-record-total"] == "7"
    assert (
        message
        == "internal agent error: ValueError('boom') (7 of 10 messages measured and uploaded)"
    )


def test_a_cancelled_run_uploads_its_records_then_says_why(device: Device) -> None:
    job = device.job(log=3, end="abort", planned=10)

    device.executor.execute(job)

    chunks, message = upload_then_report(device.platform, job.run_id)
    assert chunks[-1].headers["x-record-total"] == "3"
    assert message == (
        "agent stopped during the run: cancelled from the platform (stopped after 3 of 10) "
        "(3 of 10 messages measured and uploaded)"
    )


def test_a_finished_run_is_uploaded_and_not_reported(device: Device) -> None:
    job = device.job(log=10, end="finish", planned=10)

    device.executor.execute(job)

    (chunk,) = device.platform.to(f"/api/agent/runs/{job.run_id}/records/")
    assert chunk.headers["x-record-total"] == "10"
    assert device.platform.to(f"/api/agent/runs/{job.run_id}/fail/") == []
    assert device.progress.phase == DONE


def test_a_run_that_failed_before_logging_anything_is_only_reported(device: Device) -> None:
    job = device.job(log=0, end="data_plane")

    device.executor.execute(job)

    assert device.platform.to(f"/api/agent/runs/{job.run_id}/records/") == []
    (fail,) = device.platform.to(f"/api/agent/runs/{job.run_id}/fail/")
    assert fail.json()["message"] == "data-plane connection failed during read"
    assert device.status(job.run_id).status == "failed"


def test_an_upload_the_platform_rejects_still_reports_why_the_run_ended(
    device: Device,
) -> None:
    job = device.job(log=4, end="data_plane", planned=10)
    device.platform.script[f"/api/agent/runs/{job.run_id}/records/"] = [400]

    device.executor.execute(job)

    (fail,) = device.platform.to(f"/api/agent/runs/{job.run_id}/fail/")
    assert fail.json()["message"] == (
        "data-plane connection failed during read (4 of 10 messages measured; "
        "the platform refused them: HTTP 400: scripted 400 (scripted))"
    )
    assert device.status(job.run_id).status == "failed"
    assert device.progress.phase == FAILED


def test_a_restart_resends_each_chunk_under_the_same_key_and_reports_once(
    platform: FakePlatform, tmp_path: Path, key: EccKey
) -> None:
    first = Device(platform, tmp_path, key)
    job = first.job(log=12, end="data_plane", planned=20, chunk_records=5)
    records = f"/api/agent/runs/{job.run_id}/records/"
    # Chunk 0 is acknowledged, then the platform goes away for longer than the retries.
    platform.script[records] = []
    original = platform.handle

    def handle(req: Request) -> tuple[int, dict[str, Any]]:
        if req.path == records and req.headers["x-chunk-index"] != "0":
            platform.script[records] = [503]
        return original(req)

    platform.handle = handle  # type: ignore[method-assign]

    first.executor.execute(job)

    assert first.status(job.run_id).status == "measured"
    assert RunFiles.of(tmp_path, job.run_id).uploaded.read_text() == "0\n"
    (fail,) = platform.to(f"/api/agent/runs/{job.run_id}/fail/")
    assert fail.json()["message"].endswith(
        "(12 of 20 messages measured; they upload when the agent restarts)"
    )
    assert first.progress.phase == FAILED

    platform.handle = original  # type: ignore[method-assign]
    restarted = Device(platform, tmp_path, key)
    restarted.executor.resume_pending()

    sent = platform.to(records)
    keys = {(r.headers["x-chunk-index"], r.headers["idempotency-key"]) for r in sent}
    assert keys == {(str(i), f"{job.run_id}:{DEVICE}:{i}") for i in range(3)}
    # 0 acked, 1 failed twice (the first process), then 1 and 2 (after the restart).
    assert [r.headers["x-chunk-index"] for r in sent] == ["0", "1", "1", "1", "2"]
    stored = [platform.chunks[f"{job.run_id}:{DEVICE}:{i}"] for i in range(3)]
    assert len(records_of(stored)) == 12
    assert stored[-1].headers["x-record-total"] == "12"
    # The reason got through before the restart: it is not sent again.
    assert len(platform.to(f"/api/agent/runs/{job.run_id}/fail/")) == 1
    assert restarted.status(job.run_id).status == "uploaded"
    assert restarted.progress.phase == FAILED


def test_a_reason_not_delivered_before_the_restart_is_reported_after_the_upload(
    platform: FakePlatform, tmp_path: Path, key: EccKey
) -> None:
    first = Device(platform, tmp_path, key)
    job = first.job(log=6, end="data_plane", planned=20)
    platform.script["/api/agent/runs/"] = [503] * 4  # records and fail: both out of tries

    first.executor.execute(job)

    assert platform.chunks == {}
    assert first.status(job.run_id).status == "measured"
    Device(platform, tmp_path, key).executor.resume_pending()

    (chunk,) = platform.chunks.values()
    assert chunk.headers["x-record-total"] == "6"
    *_refused, fail = platform.to(f"/api/agent/runs/{job.run_id}/fail/")
    assert platform.requests.index(chunk) < platform.requests.index(fail)
    assert fail.json()["message"] == (
        "data-plane connection failed during read "
        "(6 of 20 messages measured; uploaded after the agent restarted)"
    )


def test_an_upload_rides_out_a_platform_outage_longer_than_the_old_45_s(
    platform: FakePlatform, tmp_path: Path, key: EccKey
) -> None:
    phases: list[str] = []
    waited: list[float] = []
    device: Device

    def sleep(seconds: float) -> None:
        phases.append(device.progress.phase)
        waited.append(seconds)

    device = Device(platform, tmp_path, key, upload_retry=upload_policy(21600), sleep=sleep)
    job = device.job(log=5, end="finish", planned=5)
    platform.script[f"/api/agent/runs/{job.run_id}/records/"] = [503] * 12

    device.executor.execute(job)

    assert sum(waited) > 45  # what the old 8 tries lasted
    assert max(waited) == 60  # the backoff is capped at a minute
    assert set(phases) == {UPLOADING}  # heartbeats say so while it retries
    (chunk,) = platform.chunks.values()
    assert chunk.headers["x-record-total"] == "5"
    assert device.status(job.run_id).status == "uploaded"
    assert device.progress.phase == DONE


def test_a_stop_during_the_retry_wait_returns_at_once_and_keeps_the_log_for_the_next_start(
    platform: FakePlatform, tmp_path: Path, key: EccKey
) -> None:
    device = Device(platform, tmp_path, key, upload_retry=upload_policy(21600))
    job = device.job(log=5, end="finish", planned=5)
    platform.script[f"/api/agent/runs/{job.run_id}/records/"] = [503] * 1000
    worker = threading.Thread(target=device.executor.execute, args=(job,))
    worker.start()
    # Once the backoff is at 2 s, SIGTERM.
    platform.wait_for(lambda: len(platform.requests) >= 3)
    stopped_at = time.monotonic()
    device.stop.set()
    worker.join(10)

    assert not worker.is_alive()
    assert time.monotonic() - stopped_at < 1.0
    assert device.status(job.run_id).status == "measured"
    assert device.progress.phase == FAILED
