"""The local, append-only record log of a run (§6 of docs/control-plane.md).

``<state-dir>/runs/<run_id>.csv`` gets one line per measured message, flushed as soon as
it is measured, so a crash of the agent loses nothing already measured. Beside it:

- ``<run_id>.uploaded``: index of the last chunk the platform acknowledged (upload resume);
- ``<run_id>.json``: the run's upload target and status, to resume after a restart.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from iotsecbench_contract.records import LEGACY_RECORD_COLUMNS, RECORD_COLUMNS, RECORD_HEADER

from iotsecbench_agent.storage.csvlog import (
    AppendOnlyLog,
    LogFiles,
    iter_log_lines,
    pad_fields,
)
from iotsecbench_agent.storage.fsutil import atomic_write_text

HEADER = RECORD_HEADER
FIELDS = len(RECORD_COLUMNS)
# Lines of logs written by older agents (a run logged before an upgrade and uploaded after
# it) are read with the columns they lack empty: before security mechanisms a record had 6
# fields (no secure_ns/unsecure_ns), before the harness floor 8 (no floor_*_ns), before
# interleaved runs 10 (no mechanism).
LEGACY_FIELDS = tuple(len(columns) for columns in LEGACY_RECORD_COLUMNS)

OK = "ok"
LOST = "lost"
REJECTED_SIGNATURE = "rejected_signature"
REJECTED_REPLAY = "rejected_replay"
DECRYPT_ERROR = "decrypt_error"
OUTCOMES = (OK, LOST, REJECTED_SIGNATURE, REJECTED_REPLAY, DECRYPT_ERROR)

# Run status in <run_id>.json.
RUN_RUNNING = "running"
RUN_MEASURED = "measured"
RUN_UPLOADED = "uploaded"
RUN_FAILED = "failed"


@dataclass(frozen=True)
class Record:
    """One measured message. ``t_recv_ns`` is None when the message was lost.

    ``secure_ns`` is the time spent in the security mechanism's ``secure`` (inside
    ``t_send_ns``..``t_recv_ns``), ``unsecure_ns`` the time in ``unsecure`` of the echo;
    ``unsecure_ns`` is None for a lost message (nothing came back to unsecure).

    ``floor_secure_ns`` / ``floor_unsecure_ns`` are the harness floor measured beside this
    message: the ``null`` mechanism's ``secure``/``unsecure`` on a payload of the same size,
    timed the same way after the round trip (``runners/timing.py``). None when the run has
    no mechanism (``none``); ``floor_unsecure_ns`` is None exactly when ``unsecure_ns`` is.

    ``mechanism`` is the mechanism this message was secured with in an interleaved run
    (iotsecbench_contract.interleave); None in any other run (the spec's ``security``).
    """

    seq: int
    t_send_ns: int
    t_recv_ns: int | None
    app_bytes: int
    wire_bytes: int
    outcome: str
    secure_ns: int | None = None
    unsecure_ns: int | None = None
    floor_secure_ns: int | None = None
    floor_unsecure_ns: int | None = None
    mechanism: str | None = None

    def to_line(self) -> str:
        return (
            f"{self.seq},{self.t_send_ns},{_opt(self.t_recv_ns)},{self.app_bytes},"
            f"{self.wire_bytes},{self.outcome},{_opt(self.secure_ns)},{_opt(self.unsecure_ns)},"
            f"{_opt(self.floor_secure_ns)},{_opt(self.floor_unsecure_ns)},"
            f"{self.mechanism or ''}\n"
        )

    @classmethod
    def from_line(cls, line: str) -> Record:
        fields = upgrade_line(line).rstrip("\n").split(",")
        if len(fields) != FIELDS:
            raise ValueError(f"a record has {FIELDS} fields, this line {len(fields)}")
        (
            seq,
            t_send,
            t_recv,
            app,
            wire,
            outcome,
            secure,
            unsecure,
            floor_secure,
            floor_unsecure,
            mechanism,
        ) = fields
        if outcome not in OUTCOMES:
            raise ValueError(f"unknown outcome {outcome!r}")
        return cls(
            seq=int(seq),
            t_send_ns=int(t_send),
            t_recv_ns=int(t_recv) if t_recv else None,
            app_bytes=int(app),
            wire_bytes=int(wire),
            outcome=outcome,
            secure_ns=int(secure) if secure else None,
            unsecure_ns=int(unsecure) if unsecure else None,
            floor_secure_ns=int(floor_secure) if floor_secure else None,
            floor_unsecure_ns=int(floor_unsecure) if floor_unsecure else None,
            mechanism=mechanism or None,
        )


def _opt(value: int | None) -> str:
    return "" if value is None else str(value)


def upgrade_line(line: str) -> str:
    """A record line in the current format: a legacy line gets the columns it lacks,
    empty (6 fields: ``secure_ns`` to ``mechanism``; 8 fields: ``floor_secure_ns`` to
    ``mechanism``; 10 fields: ``mechanism``); any other line is returned as it is."""
    return pad_fields(line, FIELDS, LEGACY_FIELDS)


@dataclass(frozen=True)
class RunFiles(LogFiles):
    """Where one run's files live: its records (``<run_id>.csv``), their upload cursor, its
    meta, its network proof and its resources."""

    @property
    def meta(self) -> Path:
        return self.runs_dir / f"{self.run_id}.json"

    @property
    def network(self) -> Path:
        """The proof of an enforced network profile (JSON; not ``.json``, which is the
        suffix start-up scans for run metas)."""
        return self.runs_dir / f"{self.run_id}.network"

    @property
    def resources(self) -> Path:
        """What the run cost the agent (``iotsecbench_contract.resources``, JSON), sent on
        the final upload chunk."""
        return self.runs_dir / f"{self.run_id}.resources"


class RecordLog(AppendOnlyLog):
    """The messaging records of one run (header ``HEADER``)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, header=HEADER, lines=iter_lines)

    def append(self, record: Record) -> None:
        self.append_line(record.to_line())


def iter_lines(path: Path) -> Iterator[str]:
    """The record lines of a log (without header), each ending in a newline, read lazily
    (a million-record log stays out of a Pi Zero's RAM). A torn last line (the process
    died mid-write) is not a record and is left out. Lines of a log written by an older
    agent (6, 8 or 10 fields, after its own header) come out in the current 11-field format."""
    return iter_log_lines(path, header_start="seq,", upgrade=upgrade_line)


def read_lines(path: Path) -> list[str]:
    return list(iter_lines(path))


def read_records(path: Path) -> list[Record]:
    return [Record.from_line(line) for line in read_lines(path)]


class UploadCursor:
    """The ``.uploaded`` sidecar: index of the last acknowledged chunk, or None."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def last_acked(self) -> int | None:
        try:
            text = self.path.read_text(encoding="ascii").strip()
        except FileNotFoundError:
            return None
        return int(text) if text.isdigit() else None

    def ack(self, index: int) -> None:
        atomic_write_text(self.path, f"{index}\n")


@dataclass(frozen=True)
class RunMeta:
    """What a restarted agent needs to finish a run's upload (or report it failed).

    ``ended`` is why a run ended early (None: it finished), kept so that the failure is
    reported after the upload also when that upload only completes after a restart;
    ``reported`` says the report got through already.
    """

    run_id: str
    job_id: str
    upload_url: str
    chunk_records: int
    total: int
    status: str
    ended: str | None = None
    reported: bool = False

    def save(self, path: Path) -> None:
        atomic_write_text(path, json.dumps(asdict(self)) + "\n")

    def with_status(self, status: str, **changes: Any) -> RunMeta:
        values: dict[str, Any] = asdict(self)
        values.update(changes, status=status)
        return RunMeta(**values)

    @classmethod
    def load(cls, path: Path) -> RunMeta:
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(
            run_id=str(data["run_id"]),
            job_id=str(data["job_id"]),
            upload_url=str(data["upload_url"]),
            chunk_records=int(data["chunk_records"]),
            total=int(data["total"]),
            status=str(data["status"]),
            ended=None if data.get("ended") is None else str(data["ended"]),
            reported=bool(data.get("reported", False)),
        )
