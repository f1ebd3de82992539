"""Chunked, idempotent upload (§6) against a real local HTTP server standing in for the
platform."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from pathlib import Path

import pytest

from iotsecbench_agent.errors import PlatformRejected, PlatformUnavailable, RunAborted
from iotsecbench_agent.platform.api import PlatformApi, RetryPolicy, upload_policy
from iotsecbench_agent.platform.uploader import Uploader
from iotsecbench_agent.storage.recordlog import HEADER, OK, Record, RecordLog, UploadCursor
from testkit import TOKEN, FakePlatform, free_port

DEVICE = "6f1c1a52-3c1e-4a8e-9a57-1d0c2b7e9f10"
RUN = "2d3b0c4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e"
FAST = RetryPolicy(attempts=4, base_delay_s=0.01, max_delay_s=0.02)


def write_log(path: Path, count: int) -> Path:
    with RecordLog(path) as log:
        for seq in range(count):
            log.append(Record(seq, 1000 + seq, 2000 + seq, 66, 161, OK))
    return path


class Run:
    def __init__(self, platform: FakePlatform, tmp_path: Path, records: int) -> None:
        self.sleeps: list[float] = []
        api = PlatformApi(server_url=platform.url, api_token=TOKEN, retry=FAST)
        self.uploader = Uploader(api, device_id=DEVICE, retry=FAST, sleep=self.sleeps.append)
        self.csv = write_log(tmp_path / f"{RUN}.csv", records)
        self.cursor = UploadCursor(tmp_path / f"{RUN}.uploaded")
        self.url = platform.records_url(RUN)

    def upload(self, chunk_records: int) -> None:
        self.uploader.upload(
            run_id=RUN,
            url=self.url,
            csv_path=self.csv,
            chunk_records=chunk_records,
            cursor=self.cursor,
        )


def test_uploader_sends_chunks_with_idempotency_keys_when_log_exceeds_chunk_size(
    platform: FakePlatform, tmp_path: Path
) -> None:
    run = Run(platform, tmp_path, records=12)
    run.upload(chunk_records=5)

    sent = platform.to(f"/api/agent/runs/{RUN}/records/")
    assert [r.headers["idempotency-key"] for r in sent] == [
        f"{RUN}:{DEVICE}:0",
        f"{RUN}:{DEVICE}:1",
        f"{RUN}:{DEVICE}:2",
    ]
    assert [r.headers["x-chunk-index"] for r in sent] == ["0", "1", "2"]
    assert [r.headers["x-final-chunk"] for r in sent] == ["false", "false", "true"]
    assert [r.headers.get("x-record-total") for r in sent] == [None, None, "12"]
    assert {r.headers["content-type"] for r in sent} == {"text/csv"}
    assert {r.headers["authorization"] for r in sent} == {f"Device {TOKEN}"}
    bodies = [r.body.decode().splitlines() for r in sent]
    assert [b[0] for b in bodies] == [HEADER] * 3
    assert [len(b) - 1 for b in bodies] == [5, 5, 2]
    assert bodies[2][-1].startswith("11,")
    assert run.cursor.last_acked() == 2


def test_uploader_retries_chunk_with_backoff_when_platform_answers_503(
    platform: FakePlatform, tmp_path: Path
) -> None:
    platform.script["/api/agent/runs/"] = [503, 503]
    run = Run(platform, tmp_path, records=3)
    run.upload(chunk_records=5)

    sent = platform.to("/api/agent/runs/")
    assert len(sent) == 3
    assert {r.headers["idempotency-key"] for r in sent} == {f"{RUN}:{DEVICE}:0"}
    assert run.sleeps == [0.01, 0.02]
    assert run.cursor.last_acked() == 0


def test_uploader_does_not_retry_when_platform_answers_400(
    platform: FakePlatform, tmp_path: Path
) -> None:
    platform.script["/api/agent/runs/"] = [400]
    run = Run(platform, tmp_path, records=3)

    with pytest.raises(PlatformRejected) as excinfo:
        run.upload(chunk_records=5)

    assert excinfo.value.status == 400
    assert excinfo.value.code == "scripted"
    assert len(platform.to("/api/agent/runs/")) == 1
    assert run.sleeps == []
    assert run.cursor.last_acked() is None


def test_uploader_gives_up_after_retries_when_platform_is_unreachable(tmp_path: Path) -> None:
    closed = f"http://127.0.0.1:{free_port()}"
    sleeps: list[float] = []
    api = PlatformApi(server_url=closed, api_token=TOKEN, retry=FAST)
    uploader = Uploader(api, device_id=DEVICE, retry=FAST, sleep=sleeps.append)

    with pytest.raises(PlatformUnavailable, match="after 4 attempts"):
        uploader.upload(
            run_id=RUN,
            url=f"{closed}/api/agent/runs/{RUN}/records/",
            csv_path=write_log(tmp_path / "r.csv", 2),
            chunk_records=5,
            cursor=UploadCursor(tmp_path / "r.uploaded"),
        )
    assert len(sleeps) == 3


def test_uploader_resumes_after_last_acked_chunk_when_restarted(
    platform: FakePlatform, tmp_path: Path
) -> None:
    run = Run(platform, tmp_path, records=12)
    run.cursor.ack(0)  # a previous process got chunk 0 acknowledged, then died

    run.upload(chunk_records=5)

    assert [r.headers["x-chunk-index"] for r in platform.to("/api/agent/runs/")] == ["1", "2"]


def test_reupload_stores_nothing_twice_when_cursor_was_lost(
    platform: FakePlatform, tmp_path: Path
) -> None:
    run = Run(platform, tmp_path, records=7)
    run.upload(chunk_records=5)
    run.cursor.path.unlink()  # e.g. the sidecar was lost: everything is sent again

    run.upload(chunk_records=5)

    assert len(platform.to("/api/agent/runs/")) == 4
    assert len(platform.chunks) == 2  # same keys, so the platform kept one copy each


def test_uploader_sends_one_empty_final_chunk_when_log_has_no_records(
    platform: FakePlatform, tmp_path: Path
) -> None:
    run = Run(platform, tmp_path, records=0)
    run.upload(chunk_records=5)

    (sent,) = platform.to("/api/agent/runs/")
    assert sent.headers["x-final-chunk"] == "true"
    assert sent.headers["x-record-total"] == "0"
    assert sent.body.decode() == HEADER + "\n"


def test_uploader_uses_run_and_device_in_key_when_runs_differ(
    platform: FakePlatform, tmp_path: Path
) -> None:
    other_run = str(uuid.uuid4())
    api = PlatformApi(server_url=platform.url, api_token=TOKEN, retry=FAST)
    Uploader(api, device_id=DEVICE, retry=FAST).upload(
        run_id=other_run,
        url=platform.records_url(other_run),
        csv_path=write_log(tmp_path / "o.csv", 1),
        chunk_records=5,
        cursor=UploadCursor(tmp_path / "o.uploaded"),
    )

    assert list(platform.chunks) == [f"{other_run}:{DEVICE}:0"]


class FakeClock:
    """Monotonic time that only moves when the uploader waits."""

    def __init__(self) -> None:
        self.now = 0.0
        self.waits: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds


def deadline_upload(
    platform: FakePlatform, tmp_path: Path, deadline_s: float, clock: FakeClock
) -> None:
    api = PlatformApi(server_url=platform.url, api_token=TOKEN)
    uploader = Uploader(
        api, device_id=DEVICE, retry=upload_policy(deadline_s), sleep=clock.sleep, clock=clock
    )
    uploader.upload(
        run_id=RUN,
        url=platform.records_url(RUN),
        csv_path=write_log(tmp_path / f"{RUN}.csv", 3),
        chunk_records=5,
        cursor=UploadCursor(tmp_path / f"{RUN}.uploaded"),
    )


def test_uploader_rides_out_503s_for_longer_than_45_s_when_the_deadline_allows(
    platform: FakePlatform, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    platform.script["/api/agent/runs/"] = [503] * 15
    clock = FakeClock()

    with caplog.at_level(logging.INFO, logger="iotsecbench_agent"):
        deadline_upload(platform, tmp_path, 21600, clock)

    assert clock.now > 8 * 60  # 15 refusals: 0.5 s, 1 s, ... capped at a minute each
    assert clock.waits[:8] == [0.5, 1, 2, 4, 8, 16, 32, 60]
    assert max(clock.waits) == 60
    (stored,) = platform.chunks.values()
    assert stored.headers["x-record-total"] == "3"
    retries = [r for r in caplog.records if "agent.http_retry" in r.getMessage()]
    assert len(retries) == 15
    assert {r.levelname for r in retries} == {"WARNING"}  # each retry is no error
    assert "delay_s=60.0" in retries[-1].getMessage()


def test_uploader_gives_up_when_the_platform_is_down_past_the_deadline(
    platform: FakePlatform, tmp_path: Path
) -> None:
    platform.script["/api/agent/runs/"] = [503] * 1000
    clock = FakeClock()

    with pytest.raises(PlatformUnavailable, match=r"retry limit 300 s\): HTTP 503"):
        deadline_upload(platform, tmp_path, 300, clock)

    assert 240 < clock.now <= 300  # no wait ends past the deadline


def test_uploader_ends_its_retry_wait_at_once_when_the_agent_stops(
    platform: FakePlatform, tmp_path: Path
) -> None:
    platform.script["/api/agent/runs/"] = [503] * 1000
    api = PlatformApi(server_url=platform.url, api_token=TOKEN)
    uploader = Uploader(api, device_id=DEVICE, retry=upload_policy(21600))  # the real waits
    stop = threading.Event()
    threading.Timer(1.0, stop.set).start()  # SIGTERM, during the second wait (1 s .. 2.5 s)

    started = time.monotonic()
    with pytest.raises(RunAborted, match="interrupted by shutdown"):
        uploader.upload(
            run_id=RUN,
            url=platform.records_url(RUN),
            csv_path=write_log(tmp_path / f"{RUN}.csv", 3),
            chunk_records=5,
            cursor=UploadCursor(tmp_path / f"{RUN}.uploaded"),
            stop=stop,
        )

    assert time.monotonic() - started < 1.5
    assert UploadCursor(tmp_path / f"{RUN}.uploaded").last_acked() is None
