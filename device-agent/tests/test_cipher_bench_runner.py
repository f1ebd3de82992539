"""A cipher_bench job end to end through the executor (§7): verified job, samples log,
upload of the samples to a fake platform over real HTTP, progress, failure and resume."""

from __future__ import annotations

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
from iotsecbench_agent.platform.jobs import Job, JobRejected, JobVerifier, SeqStore
from iotsecbench_agent.platform.progress import DONE, FAILED, Progress
from iotsecbench_agent.platform.uploader import Uploader
from iotsecbench_agent.runtime.executor import JobExecutor
from iotsecbench_agent.storage.recordlog import RunFiles, RunMeta
from iotsecbench_agent.storage.samplelog import HEADER, Sample, SampleFiles, SampleLog, read_samples
from testkit import TOKEN, FakeControlPlane, FakePlatform, Request, sign_envelope

DEVICE = "6f1c1a52-3c1e-4a8e-9a57-1d0c2b7e9f10"
FAST = RetryPolicy(attempts=2, base_delay_s=0.01)


def serve_samples(platform: FakePlatform) -> None:
    """Make the fake platform store `/samples/` chunks once per Idempotency-Key, as it does
    for `/records/` (testkit's FakePlatform predates the samples endpoint)."""
    original = platform.handle

    def handle(req: Request) -> tuple[int, dict[str, Any]]:
        if not req.path.endswith("/samples/"):
            return original(req)
        with platform.changed:
            platform.requests.append(req)
            platform.changed.notify_all()
            if req.headers.get("authorization") != f"Device {TOKEN}":
                return 401, {"message": "bad token", "code": "not_authenticated", "extra": {}}
            key = req.headers["idempotency-key"]
            duplicate = key in platform.chunks
            platform.chunks.setdefault(key, req)
            index = int(req.headers["x-chunk-index"])
            samples = req.body.decode().count("\n") - 1
            return (200 if duplicate else 201), {
                "chunk": index,
                "records": samples,
                "duplicate": duplicate,
            }

    platform.handle = handle  # type: ignore[method-assign]


class Bench:
    def __init__(self, platform: FakePlatform, state_dir: Path, key: EccKey) -> None:
        serve_samples(platform)
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
            uploader=Uploader(api, device_id=DEVICE, retry=FAST),
            events=EventPublisher(self.transport, Topics(f"iotsecbench/agents/{DEVICE}")),
            progress=self.progress,
            stop=self.stop,
        )

    def samples_url(self, run_id: str) -> str:
        return f"{self.platform.url}/api/agent/runs/{run_id}/samples/"

    def job(self, *, chunk_samples: int = 5000, **spec: Any) -> Job:
        """A signed cipher_bench job as the platform sends it, verified as the agent does."""
        run_id = str(uuid.uuid4())
        now = time.time()
        raw = {
            "v": 1,
            "device_id": DEVICE,
            "seq": 1,
            "issued_at": now,
            "expires_at": now + 300,
            "job_id": str(uuid.uuid4()),
            "run_id": run_id,
            "kind": "cipher_bench",
            "spec": spec,
            "upload": {"url": self.samples_url(run_id), "chunk_samples": chunk_samples},
        }
        verifier = JobVerifier(
            public_key=self.key.public_key().export_key(format="raw"),
            device_id=DEVICE,
            seq_store=SeqStore(self.state_dir),
        )
        return verifier.accept(sign_envelope(self.key, raw))


@pytest.fixture
def bench(platform: FakePlatform, tmp_path: Path, key: EccKey) -> Bench:
    return Bench(platform, tmp_path, key)


def test_cipher_bench_job_measures_and_uploads_samples_in_chunks(bench: Bench) -> None:
    job = bench.job(
        mechanisms=["aes-128-cbc", "ed25519"],
        data_sizes=[16, 1024],
        repetitions=3,
        chunk_samples=5,
    )

    bench.executor.execute(job)

    total = 2 * 2 * 2 * 3
    chunks = bench.platform.to(f"/api/agent/runs/{job.run_id}/samples/")
    assert [c.headers["x-chunk-index"] for c in chunks] == ["0", "1", "2", "3", "4"]
    assert [c.headers["idempotency-key"] for c in chunks] == [
        f"{job.run_id}:{DEVICE}:samples:{i}" for i in range(5)
    ]
    assert [c.headers["x-final-chunk"] for c in chunks] == ["false"] * 4 + ["true"]
    assert "x-record-total" not in chunks[0].headers
    assert chunks[-1].headers["x-record-total"] == str(total)
    assert {c.headers["content-type"] for c in chunks} == {"text/csv"}
    assert {c.headers["authorization"] for c in chunks} == {f"Device {TOKEN}"}
    bodies = [c.body.decode("ascii").splitlines() for c in chunks]
    assert {lines[0] for lines in bodies} == {HEADER}
    uploaded = [Sample.from_line(line) for lines in bodies for line in lines[1:]]
    files = SampleFiles.of(bench.state_dir, job.run_id)
    assert uploaded == read_samples(files.csv)
    assert len(uploaded) == total
    assert [(s.mechanism, s.operation, s.data_bytes, s.repetition) for s in uploaded[:4]] == [
        ("aes-128-cbc", "encrypt", 16, 0),
        ("aes-128-cbc", "decrypt", 16, 0),
        ("aes-128-cbc", "encrypt", 16, 1),
        ("aes-128-cbc", "decrypt", 16, 1),
    ]
    assert {(s.mechanism, s.operation) for s in uploaded} >= {("ed25519", "verify")}
    assert all(s.wall_ns > 0 and s.peak_rss_kb > 0 for s in uploaded)
    assert files.uploaded.read_text() == "4\n"
    assert not RunFiles.of(bench.state_dir, job.run_id).csv.exists()  # no record log
    assert RunMeta.load(RunFiles.of(bench.state_dir, job.run_id).meta).status == "uploaded"
    assert bench.progress.snapshot() == {
        "run_id": job.run_id,
        "job_id": job.job_id,
        "phase": DONE,
        "sent": total,
        "received": total,
        "total": total,
    }


def test_cipher_bench_job_fails_cleanly_when_a_mechanism_is_unknown(bench: Bench) -> None:
    job = bench.job(mechanisms=["aes-128-cbc", "rot13"], data_sizes=[16], repetitions=3)

    bench.executor.execute(job)

    (event,) = bench.transport.on("/events")
    assert (event["event"], event["job_id"], event["run_id"]) == (
        "job_failed",
        job.job_id,
        job.run_id,
    )
    assert event["message"].startswith(
        "spec.mechanisms: unknown mechanism 'rot13' (known: none, null, aes-128-cbc"
    )
    (fail,) = bench.platform.to(f"/api/agent/runs/{job.run_id}/fail/")
    assert fail.json() == {"message": event["message"]}
    assert bench.platform.to(f"/api/agent/runs/{job.run_id}/samples/") == []
    assert bench.progress.phase == FAILED
    assert RunMeta.load(RunFiles.of(bench.state_dir, job.run_id).meta).status == "failed"


def write_sample_run(bench: Bench, *, status: str, samples: int, total: int) -> RunMeta:
    run_id = str(uuid.uuid4())
    with SampleLog(SampleFiles.of(bench.state_dir, run_id).csv) as log:
        for i in range(samples):
            op = "encrypt" if i % 2 == 0 else "decrypt"
            log.append(Sample("aes-128-cbc", op, 16, i // 2, 5000 + i, 4000 + i, 22000))
    meta = RunMeta(
        run_id=run_id,
        job_id=str(uuid.uuid4()),
        upload_url=bench.samples_url(run_id),
        chunk_records=4,
        total=total,
        status=status,
    )
    meta.save(RunFiles.of(bench.state_dir, run_id).meta)
    return meta


def test_executor_resumes_a_samples_upload_after_the_last_acked_chunk(bench: Bench) -> None:
    meta = write_sample_run(bench, status="measured", samples=10, total=10)
    SampleFiles.of(bench.state_dir, meta.run_id).uploaded.write_text("0\n")

    bench.executor.resume_pending()

    chunks = bench.platform.to(f"/api/agent/runs/{meta.run_id}/samples/")
    assert [c.headers["idempotency-key"] for c in chunks] == [
        f"{meta.run_id}:{DEVICE}:samples:1",
        f"{meta.run_id}:{DEVICE}:samples:2",
    ]
    assert chunks[-1].headers["x-record-total"] == "10"
    assert chunks[-1].body.decode().splitlines()[0] == HEADER
    assert RunMeta.load(RunFiles.of(bench.state_dir, meta.run_id).meta).status == "uploaded"


def test_executor_reports_samples_measured_when_restarted_in_the_middle_of_a_bench(
    bench: Bench,
) -> None:
    meta = write_sample_run(bench, status="running", samples=3, total=24)

    bench.executor.resume_pending()

    (fail,) = bench.platform.to(f"/api/agent/runs/{meta.run_id}/fail/")
    assert "3 of 24 samples measured" in fail.json()["message"]
    # What the killed bench measured goes up first (issue #17: nothing measured is lost).
    (chunk,) = bench.platform.to(f"/api/agent/runs/{meta.run_id}/samples/")
    assert chunk.headers["x-record-total"] == "3"


def test_cipher_bench_job_is_rejected_as_malformed_when_chunk_samples_is_not_positive(
    bench: Bench,
) -> None:
    with pytest.raises(JobRejected, match=r"`upload.chunk_samples` is not a positive integer"):
        bench.job(mechanisms=["null"], data_sizes=[16], repetitions=1, chunk_samples=0)


def test_cipher_bench_job_with_openssl_cli_uploads_the_openssl_processes_samples(
    bench: Bench,
) -> None:
    job = bench.job(
        mechanisms=["aes-128-cbc", "3des-cbc"],
        data_sizes=[4096],
        repetitions=2,
        crypto_library="openssl-cli",
    )

    bench.executor.execute(job)

    chunks = bench.platform.to(f"/api/agent/runs/{job.run_id}/samples/")
    uploaded = [
        Sample.from_line(line) for c in chunks for line in c.body.decode("ascii").splitlines()[1:]
    ]
    assert [(s.mechanism, s.operation, s.data_bytes, s.repetition) for s in uploaded] == [
        (m, op, 4096, rep)
        for m in ("aes-128-cbc", "3des-cbc")
        for rep in range(2)
        for op in ("encrypt", "decrypt")
    ]
    # One openssl process per sample: its own time and memory, one call.
    assert all(s.calls == 1 and s.wall_ns > 100_000 for s in uploaded)
    assert all(500 < s.peak_rss_kb < 16_000 for s in uploaded)
    assert bench.progress.snapshot()["phase"] == DONE
