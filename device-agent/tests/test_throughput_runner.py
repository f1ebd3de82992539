"""A throughput job end to end through the executor (§8): verified job, samples log with
`packets`, upload of the samples to a fake platform over real HTTP, progress counting
windows, failures before anything is measured, and stop."""

from __future__ import annotations

import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from Crypto.PublicKey.ECC import EccKey

from iotsecbench_agent.jobkinds import runner_for
from iotsecbench_agent.platform.api import PlatformApi, RetryPolicy
from iotsecbench_agent.platform.controlplane import Topics
from iotsecbench_agent.platform.events import EventPublisher
from iotsecbench_agent.platform.jobs import Job, JobVerifier, SeqStore
from iotsecbench_agent.platform.progress import DONE, FAILED, Progress
from iotsecbench_agent.platform.uploader import Uploader
from iotsecbench_agent.runtime.executor import JobExecutor
from iotsecbench_agent.storage.recordlog import RunFiles, RunMeta
from iotsecbench_agent.storage.samplelog import HEADER, Sample, SampleFiles, read_samples
from test_cipher_bench_runner import serve_samples
from testkit import TOKEN, FakeControlPlane, FakePlatform, sign_envelope

DEVICE = "6f1c1a52-3c1e-4a8e-9a57-1d0c2b7e9f10"
FAST = RetryPolicy(attempts=2, base_delay_s=0.01)
WINDOW_MS = 100  # ±20 % is 20 ms: room for a scheduler slice on a busy host


class Agent:
    """The executor of an agent, wired to a fake platform and a fake control plane."""

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

    def job(self, *, chunk_samples: int = 5000, **spec: Any) -> Job:
        """A signed throughput job as the platform sends it, verified as the agent does."""
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
            "kind": "throughput",
            "spec": spec,
            "upload": {
                "url": f"{self.platform.url}/api/agent/runs/{run_id}/samples/",
                "chunk_samples": chunk_samples,
            },
        }
        verifier = JobVerifier(
            public_key=self.key.public_key().export_key(format="raw"),
            device_id=DEVICE,
            seq_store=SeqStore(self.state_dir),
        )
        return verifier.accept(sign_envelope(self.key, raw))

    def status(self, job: Job) -> str:
        return RunMeta.load(RunFiles.of(self.state_dir, job.run_id).meta).status


@pytest.fixture
def agent(platform: FakePlatform, tmp_path: Path, key: EccKey) -> Agent:
    return Agent(platform, tmp_path, key)


def test_throughput_job_measures_windows_and_uploads_their_samples(agent: Agent) -> None:
    job = agent.job(
        mechanisms=["none", "aes-128-cbc"],
        data_sizes=[1, 1280],
        repetitions=1,
        window_ms=WINDOW_MS,
        chunk_samples=3,
    )

    agent.executor.execute(job)

    total = 2 * 2 * 2 * 1
    chunks = agent.platform.to(f"/api/agent/runs/{job.run_id}/samples/")
    assert [c.headers["x-chunk-index"] for c in chunks] == ["0", "1", "2"]
    assert [c.headers["idempotency-key"] for c in chunks] == [
        f"{job.run_id}:{DEVICE}:samples:{i}" for i in range(3)
    ]
    assert [c.headers["x-final-chunk"] for c in chunks] == ["false", "false", "true"]
    assert "x-record-total" not in chunks[0].headers
    assert chunks[-1].headers["x-record-total"] == str(total)
    assert {c.headers["content-type"] for c in chunks} == {"text/csv"}
    assert {c.headers["authorization"] for c in chunks} == {f"Device {TOKEN}"}
    bodies = [c.body.decode("ascii").splitlines() for c in chunks]
    assert {lines[0] for lines in bodies} == {
        "mechanism,operation,data_bytes,repetition,wall_ns,cpu_ns,peak_rss_kb,packets,calls"
    }
    assert bodies[0][0] == HEADER
    lines = [line for body in bodies for line in body[1:]]
    assert all(len(line.split(",")) == 9 for line in lines)
    uploaded = [Sample.from_line(line) for line in lines]
    assert uploaded == read_samples(SampleFiles.of(agent.state_dir, job.run_id).csv)
    assert [(s.mechanism, s.operation, s.data_bytes, s.repetition) for s in uploaded[:4]] == [
        ("none", "secure", 1, 0),
        ("none", "send", 1, 0),
        ("none", "secure", 1280, 0),
        ("none", "send", 1280, 0),
    ]
    mechanisms, operations, sizes = ("none", "aes-128-cbc"), ("secure", "send"), (1, 1280)
    assert {(s.mechanism, s.operation, s.data_bytes) for s in uploaded} == {
        (m, op, size) for m in mechanisms for op in operations for size in sizes
    }
    for s in uploaded:
        assert s.packets is not None
        assert s.packets > 0
        assert 0.8 * WINDOW_MS * 1e6 <= s.wall_ns <= 1.2 * WINDOW_MS * 1e6
        assert s.cpu_ns > 0
        assert s.peak_rss_kb > 0
    assert agent.status(job) == "uploaded"
    assert not RunFiles.of(agent.state_dir, job.run_id).csv.exists()  # no record log
    assert agent.progress.snapshot() == {
        "run_id": job.run_id,
        "job_id": job.job_id,
        "phase": DONE,
        "sent": total,
        "received": total,
        "total": total,
    }


def test_throughput_job_plans_two_windows_per_mechanism_size_and_repetition() -> None:
    spec = {"mechanisms": ["none", "aes-128-cbc", "present-80-cbc"], "data_sizes": [1, 1280],
            "repetitions": 10}  # fmt: skip

    assert runner_for("throughput", spec).planned_total(spec) == 2 * 3 * 2 * 10


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            {"mechanisms": ["none", "rot13"], "data_sizes": [1], "repetitions": 1},
            "spec.mechanisms: unknown mechanism 'rot13' (known: none, null, aes-128-cbc",
        ),
        (
            {"mechanisms": ["none", "aes-128-gcm"], "data_sizes": [1, 65500], "repetitions": 1},
            "aes-128-gcm makes a 65500-byte payload a 65528-byte frame, above the 65507-byte "
            "UDP limit",
        ),
        (
            {"mechanisms": ["none"], "data_sizes": [1], "repetitions": 1, "target": "tcp://x:1"},
            "spec.target 'tcp://x:1' is not udp://host:port",
        ),
    ],
)
def test_throughput_job_fails_cleanly_when_the_spec_cannot_run(
    agent: Agent, spec: dict[str, Any], message: str
) -> None:
    job = agent.job(**spec)

    agent.executor.execute(job)

    (event,) = agent.transport.on("/events")
    assert (event["event"], event["job_id"], event["run_id"]) == (
        "job_failed",
        job.job_id,
        job.run_id,
    )
    assert event["message"].startswith(message)
    (fail,) = agent.platform.to(f"/api/agent/runs/{job.run_id}/fail/")
    assert fail.json() == {"message": event["message"]}
    assert agent.platform.to(f"/api/agent/runs/{job.run_id}/samples/") == []
    assert agent.progress.phase == FAILED
    assert agent.status(job) == "failed"


def test_throughput_job_stops_within_one_window_when_the_agent_stops(agent: Agent) -> None:
    window_ms = 100
    job = agent.job(mechanisms=["none"], data_sizes=[1], repetitions=100, window_ms=window_ms)
    worker = threading.Thread(target=agent.executor.execute, args=(job,))
    worker.start()
    deadline = time.monotonic() + 10
    while agent.progress.snapshot()["sent"] < 1 and time.monotonic() < deadline:
        time.sleep(0.005)

    stopped_at = time.monotonic()
    agent.stop.set()  # what SIGTERM does
    worker.join(10)

    assert not worker.is_alive()
    # A window, the upload of what was measured and the report.
    assert time.monotonic() - stopped_at < window_ms / 1000 + 1.0
    measured = read_samples(SampleFiles.of(agent.state_dir, job.run_id).csv)
    assert 1 <= len(measured) < 200
    (fail,) = agent.platform.to(f"/api/agent/runs/{job.run_id}/fail/")
    message = fail.json()["message"]
    assert message.startswith("agent stopped during the run: stopped before a")
    assert message.endswith(f"({len(measured)} of 200 samples measured and uploaded)")
    chunks = agent.platform.to(f"/api/agent/runs/{job.run_id}/samples/")
    assert chunks[-1].headers["x-record-total"] == str(len(measured))
    assert agent.status(job) == "uploaded"
