"""The append-only record log and its upload cursor (§6): crash safety and resume."""

from __future__ import annotations

import dataclasses
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from iotsecbench_agent.storage.recordlog import (
    HEADER,
    LOST,
    OK,
    Record,
    RecordLog,
    RunMeta,
    UploadCursor,
    read_lines,
    read_records,
)


def record(seq: int, outcome: str = OK) -> Record:
    t_send = 1_763_770_000_000_000_000 + seq * 1000
    return Record(
        seq=seq,
        t_send_ns=t_send,
        t_recv_ns=t_send + 50_000 if outcome == OK else None,
        app_bytes=66,
        wire_bytes=161,
        outcome=outcome,
        secure_ns=2_000,
        unsecure_ns=3_000 if outcome == OK else None,
        floor_secure_ns=300,
        floor_unsecure_ns=400 if outcome == OK else None,
    )


def test_record_log_writes_header_then_one_line_per_record_when_appended(tmp_path: Path) -> None:
    path = tmp_path / "runs" / "r.csv"
    with RecordLog(path) as log:
        log.append(record(0))
        log.append(record(1, LOST))

    lines = path.read_text().splitlines()
    expected_header = (
        "seq,t_send_ns,t_recv_ns,app_bytes,wire_bytes,outcome,secure_ns,unsecure_ns,"
        "floor_secure_ns,floor_unsecure_ns,mechanism"
    )
    assert lines[0] == HEADER == expected_header
    assert lines[1] == "0,1763770000000000000,1763770000000050000,66,161,ok,2000,3000,300,400,"
    # lost: empty t_recv_ns, unsecure_ns and floor_unsecure_ns (nothing came back)
    assert lines[2] == "1,1763770000000001000,,66,161,lost,2000,,300,,"
    assert read_records(path) == [record(0), record(1, LOST)]


def test_record_log_reads_legacy_lines_with_empty_security_times_when_written_by_old_agent(
    tmp_path: Path,
) -> None:
    path = tmp_path / "r.csv"
    path.write_text(
        "seq,t_send_ns,t_recv_ns,app_bytes,wire_bytes,outcome\n"
        "0,1000,2000,66,161,ok\n"
        "1,1001,,66,161,lost\n"
    )
    with RecordLog(path) as log:  # the upgraded agent resumes the same log
        log.append(record(2))

    assert read_lines(path)[:2] == ["0,1000,2000,66,161,ok,,,,,\n", "1,1001,,66,161,lost,,,,,\n"]
    assert [(r.seq, r.secure_ns, r.unsecure_ns, r.floor_secure_ns) for r in read_records(path)] == [
        (0, None, None, None),
        (1, None, None, None),
        (2, 2_000, 3_000, 300),
    ]


def test_record_log_reads_lines_without_floor_columns_with_empty_floors_when_written_by_old_agent(
    tmp_path: Path,
) -> None:
    path = tmp_path / "r.csv"
    path.write_text(
        "seq,t_send_ns,t_recv_ns,app_bytes,wire_bytes,outcome,secure_ns,unsecure_ns\n"
        "0,1000,2000,66,161,ok,2500,3500\n"
        "1,1001,,66,161,lost,2600,\n"
    )
    with RecordLog(path) as log:  # the upgraded agent resumes the same log
        log.append(record(2))

    assert read_lines(path) == [
        "0,1000,2000,66,161,ok,2500,3500,,,\n",
        "1,1001,,66,161,lost,2600,,,,\n",
        record(2).to_line(),
    ]
    assert [
        (r.seq, r.secure_ns, r.unsecure_ns, r.floor_secure_ns, r.floor_unsecure_ns)
        for r in read_records(path)
    ] == [
        (0, 2_500, 3_500, None, None),
        (1, 2_600, None, None, None),
        (2, 2_000, 3_000, 300, 400),
    ]


def test_record_log_reads_lines_without_mechanism_as_not_interleaved_when_written_by_old_agent(
    tmp_path: Path,
) -> None:
    path = tmp_path / "r.csv"
    path.write_text(
        "seq,t_send_ns,t_recv_ns,app_bytes,wire_bytes,outcome,secure_ns,unsecure_ns,"
        "floor_secure_ns,floor_unsecure_ns\n"
        "0,1000,2000,66,161,ok,2500,3500,300,400\n"
    )
    interleaved = dataclasses.replace(record(1), mechanism="aes-128-cbc")
    with RecordLog(path) as log:
        log.append(interleaved)

    assert read_lines(path)[0] == "0,1000,2000,66,161,ok,2500,3500,300,400,\n"
    assert [(r.seq, r.mechanism) for r in read_records(path)] == [(0, None), (1, "aes-128-cbc")]


def test_record_reads_back_every_field_it_wrote_when_floors_are_set() -> None:
    written = record(7)
    assert Record.from_line(written.to_line()) == written
    assert Record.from_line(record(8, LOST).to_line()).floor_unsecure_ns is None


def test_record_log_keeps_header_once_when_reopened(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    with RecordLog(path) as log:
        log.append(record(0))
    with RecordLog(path) as log:
        assert log.count == 1
        log.append(record(1))

    assert path.read_text().count(HEADER) == 1
    assert [r.seq for r in read_records(path)] == [0, 1]


def test_record_log_keeps_every_appended_record_when_process_is_killed(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    # A real process appends 200 records and is SIGKILLed without closing the log.
    script = textwrap.dedent(
        f"""
        import os, signal
        from pathlib import Path
        from iotsecbench_agent.storage.recordlog import Record, RecordLog
        log = RecordLog(Path({str(path)!r}))
        for seq in range(200):
            log.append(Record(seq, 1000 + seq, 2000 + seq, 66, 161, "ok"))
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    result = subprocess.run([sys.executable, "-c", script], check=False, timeout=30)

    assert result.returncode == -signal.SIGKILL
    assert [r.seq for r in read_records(path)] == list(range(200))


def test_record_log_drops_torn_last_line_when_crash_cut_a_write(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    with RecordLog(path) as log:
        log.append(record(0))
    with open(path, "a") as f:
        f.write("1,17637700000")  # the process died mid-write

    assert [r.seq for r in read_records(path)] == [0]
    with RecordLog(path) as log:  # reopening repairs the tail before appending
        log.append(record(1))
    assert [r.seq for r in read_records(path)] == [0, 1]
    assert len(read_lines(path)) == 2


def test_upload_cursor_resumes_from_last_acked_chunk_when_reopened(tmp_path: Path) -> None:
    path = tmp_path / "r.uploaded"
    assert UploadCursor(path).last_acked() is None

    UploadCursor(path).ack(0)
    UploadCursor(path).ack(3)

    assert UploadCursor(path).last_acked() == 3
    assert path.read_text() == "3\n"


def test_run_meta_of_an_older_agent_loads_as_a_run_that_finished(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_text(
        '{"run_id": "r", "job_id": "j", "upload_url": "http://p/", "chunk_records": 5, '
        '"total": 10, "status": "measured"}\n'
    )

    meta = RunMeta.load(path)

    assert (meta.ended, meta.reported) == (None, False)
    meta.with_status("measured", ended="why", reported=True).save(path)
    assert RunMeta.load(path) == RunMeta("r", "j", "http://p/", 5, 10, "measured", "why", True)
