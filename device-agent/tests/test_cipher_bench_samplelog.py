"""The append-only samples log of a cipher-bench (§7) or throughput (§8) run: format, crash
safety, old 7-column logs, and its upload through the record uploader with the samples
header and idempotency scope."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from iotsecbench_agent.platform.api import PlatformApi, RetryPolicy
from iotsecbench_agent.platform.uploader import Uploader
from iotsecbench_agent.storage.recordlog import UploadCursor
from iotsecbench_agent.storage.samplelog import (
    HEADER,
    SAMPLES_UPLOAD,
    Sample,
    SampleLog,
    iter_sample_lines,
    read_samples,
)
from testkit import TOKEN, FakePlatform

DEVICE = "6f1c1a52-3c1e-4a8e-9a57-1d0c2b7e9f10"
RUN = "2d3b0c4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e"


def sample(rep: int, operation: str = "encrypt") -> Sample:
    return Sample("aes-128-cbc", operation, 1024, rep, 15_000 + rep, 14_000 + rep, 22_552)


def test_sample_log_writes_the_contract_header_then_one_line_per_sample(tmp_path: Path) -> None:
    path = tmp_path / "runs" / f"{RUN}.samples.csv"
    with SampleLog(path) as log:
        log.append(sample(0))
        log.append(sample(0, "decrypt"))

    lines = path.read_text().splitlines()
    expected = "mechanism,operation,data_bytes,repetition,wall_ns,cpu_ns,peak_rss_kb,packets,calls"
    assert lines[0] == HEADER == expected
    assert lines[1:] == [  # no packets (cipher bench), no calls given: empty fields
        "aes-128-cbc,encrypt,1024,0,15000,14000,22552,,",
        "aes-128-cbc,decrypt,1024,0,15000,14000,22552,,",
    ]
    assert read_samples(path) == [sample(0), sample(0, "decrypt")]


def test_sample_log_writes_packets_when_a_throughput_window_has_them(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    window = Sample("present-80-cbc", "send", 1280, 2, 2_000_104_000, 1_990_000_000, 27340, 5612)
    with SampleLog(path) as log:
        log.append(window)

    assert path.read_text().splitlines()[1] == (
        "present-80-cbc,send,1280,2,2000104000,1990000000,27340,5612,"
    )
    assert read_samples(path) == [window]


def test_sample_log_writes_the_calls_a_repetition_timed_and_reads_them_back(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.csv"
    grouped = Sample("aes-128-cbc", "encrypt", 16, 7, 2_950, 2_940, 22_000, calls=34)
    with SampleLog(path) as log:
        log.append(grouped)

    assert path.read_text().splitlines()[1] == "aes-128-cbc,encrypt,16,7,2950,2940,22000,,34"
    assert read_samples(path) == [grouped]


def test_a_sample_with_no_calls_is_refused() -> None:
    with pytest.raises(ValueError, match="calls must be at least 1"):
        Sample("aes-128-cbc", "encrypt", 16, 0, 2_950, 2_940, 22_000, calls=0)


def test_an_eight_field_line_of_an_agent_before_calls_reads_with_no_calls() -> None:
    line = "present-80-cbc,send,1280,2,2000104000,1990000000,27340,5612\n"

    assert Sample.from_line(line) == Sample(
        "present-80-cbc", "send", 1280, 2, 2_000_104_000, 1_990_000_000, 27340, 5612
    )


def test_sample_log_reads_an_old_7_column_log_with_empty_packets(tmp_path: Path) -> None:
    path = tmp_path / "old.samples.csv"
    path.write_text(
        "mechanism,operation,data_bytes,repetition,wall_ns,cpu_ns,peak_rss_kb\n"
        "aes-128-cbc,encrypt,1024,0,15000,14000,22552\n"
        "aes-128-cbc,decrypt,1024,0,15000,14000,22552\n"
    )

    assert list(iter_sample_lines(path)) == [
        "aes-128-cbc,encrypt,1024,0,15000,14000,22552,,\n",
        "aes-128-cbc,decrypt,1024,0,15000,14000,22552,,\n",
    ]
    assert read_samples(path) == [sample(0), sample(0, "decrypt")]


def test_sample_log_keeps_every_appended_sample_when_process_is_killed(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    script = textwrap.dedent(
        f"""
        import os, signal
        from pathlib import Path
        from iotsecbench_agent.storage.samplelog import Sample, SampleLog
        log = SampleLog(Path({str(path)!r}))
        for rep in range(100):
            log.append(Sample("ed25519", "sign", 16, rep, 110000, 111000, 22600))
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    result = subprocess.run([sys.executable, "-c", script], check=False, timeout=30)

    assert result.returncode == -signal.SIGKILL
    assert [s.repetition for s in read_samples(path)] == list(range(100))


def test_sample_log_drops_a_torn_last_line_and_keeps_one_header_when_reopened(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.csv"
    with SampleLog(path) as log:
        log.append(sample(0))
    with open(path, "a") as f:
        f.write("aes-128-cbc,decr")  # the process died mid-write

    assert list(iter_sample_lines(path)) == [sample(0).to_line()]
    with SampleLog(path) as log:
        assert log.count == 1
        log.append(sample(1))
    assert path.read_text().count(HEADER) == 1
    assert read_samples(path) == [sample(0), sample(1)]


@pytest.mark.parametrize(
    ("mechanism", "operation"), [("aes,128", "encrypt"), ("", "encrypt"), ("rc4", "hash")]
)
def test_sample_refuses_fields_that_would_break_the_csv(mechanism: str, operation: str) -> None:
    with pytest.raises(ValueError, match=r"mechanism|operation"):
        Sample(mechanism, operation, 16, 0, 1, 1, 1)


def test_sample_refuses_a_negative_packet_count() -> None:
    with pytest.raises(ValueError, match="packets must not be negative"):
        Sample("none", "secure", 1, 0, 1, 1, 1, -1)


def test_samples_upload_uses_the_samples_header_and_idempotency_scope(
    platform: FakePlatform, tmp_path: Path
) -> None:
    path = tmp_path / "s.csv"
    with SampleLog(path) as log:
        for rep in range(3):
            log.append(sample(rep))
    api = PlatformApi(server_url=platform.url, api_token=TOKEN, retry=RetryPolicy(attempts=1))

    result = Uploader(api, device_id=DEVICE).upload(
        run_id=RUN,
        url=f"{platform.url}/api/agent/runs/{RUN}/samples/",
        csv_path=path,
        chunk_records=2,
        cursor=UploadCursor(tmp_path / "s.uploaded"),
        log_format=SAMPLES_UPLOAD,
    )

    sent = platform.to(f"/api/agent/runs/{RUN}/samples/")
    assert (result.records, result.chunks_sent) == (3, 2)
    assert [r.headers["idempotency-key"] for r in sent] == [
        f"{RUN}:{DEVICE}:samples:0",
        f"{RUN}:{DEVICE}:samples:1",
    ]
    assert sent[1].headers["x-record-total"] == "3"
    assert sent[0].body.decode() == HEADER + "\n" + sample(0).to_line() + sample(1).to_line()


def test_samples_upload_sends_an_old_7_column_log_in_the_8_column_format(
    platform: FakePlatform, tmp_path: Path
) -> None:
    path = tmp_path / "old.samples.csv"
    path.write_text(
        "mechanism,operation,data_bytes,repetition,wall_ns,cpu_ns,peak_rss_kb\n"
        "ed25519,sign,16,0,110000,111000,22600\n"
        "ed25519,verify,16,0,220000,221000,22600\n"
    )
    api = PlatformApi(server_url=platform.url, api_token=TOKEN, retry=RetryPolicy(attempts=1))

    Uploader(api, device_id=DEVICE).upload(
        run_id=RUN,
        url=f"{platform.url}/api/agent/runs/{RUN}/samples/",
        csv_path=path,
        chunk_records=10,
        cursor=UploadCursor(tmp_path / "s.uploaded"),
        log_format=SAMPLES_UPLOAD,
    )

    (sent,) = platform.to(f"/api/agent/runs/{RUN}/samples/")
    assert sent.body.decode() == (
        f"{HEADER}\n"
        "ed25519,sign,16,0,110000,111000,22600,,\n"
        "ed25519,verify,16,0,220000,221000,22600,,\n"
    )
    assert sent.headers["x-record-total"] == "2"
