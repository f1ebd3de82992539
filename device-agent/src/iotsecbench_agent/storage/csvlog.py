"""What the run logs share (the record log, ``recordlog.py``, and the sample log,
``samplelog.py``): where a run's log files live, the append-only CSV writer, and reading a
log back: lazily, without its header, without a torn last line, each line upgraded from an
older agent's format."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, ClassVar, TypeVar

RUNS_DIR = "runs"

_FilesT = TypeVar("_FilesT", bound="LogFiles")


@dataclass(frozen=True)
class LogFiles:
    """Where one run's log (``<run_id><SUFFIX>.csv``) and its upload cursor
    (``<run_id><SUFFIX>.uploaded``) live."""

    SUFFIX: ClassVar[str] = ""

    runs_dir: Path
    run_id: str

    @classmethod
    def of(cls: type[_FilesT], state_dir: Path, run_id: str) -> _FilesT:
        return cls(runs_dir=state_dir / RUNS_DIR, run_id=run_id)

    @property
    def csv(self) -> Path:
        return self.runs_dir / f"{self.run_id}{self.SUFFIX}.csv"

    @property
    def uploaded(self) -> Path:
        return self.runs_dir / f"{self.run_id}{self.SUFFIX}.uploaded"


_LogT = TypeVar("_LogT", bound="AppendOnlyLog")


class AppendOnlyLog:
    """Append-only CSV writer with a header line; the record and sample logs are two of it.

    Use as a context manager. Each line is flushed to the OS as it is appended, so it
    survives the agent crashing right after. (No fsync per line: on an SD card that costs
    milliseconds between messages; ``close`` fsyncs.) A torn last line left by a crash is
    cut when the log is reopened.
    """

    def __init__(self, path: Path, *, header: str, lines: Callable[[Path], Iterator[str]]) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        _drop_torn_tail(path)
        new = not path.exists() or path.stat().st_size == 0
        self._file: IO[str] = open(path, "a", encoding="ascii", newline="")  # noqa: SIM115 - closed in close()
        if new:
            self._file.write(header + "\n")
            self._file.flush()
        self.count = sum(1 for _ in lines(path))

    def append_line(self, line: str) -> None:
        self._file.write(line)
        self._file.flush()
        self.count += 1

    def close(self) -> None:
        if self._file.closed:
            return
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()

    def __enter__(self: _LogT) -> _LogT:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def iter_log_lines(
    path: Path, *, header_start: str, upgrade: Callable[[str], str]
) -> Iterator[str]:
    """The lines of a log without its header (a first line starting with
    ``header_start``: this or an older version's), each ending in a newline and passed
    through ``upgrade``, read lazily (a million-line log stays out of a Pi Zero's RAM). A
    torn last line (the process died mid-write) is left out."""
    try:
        f = open(path, encoding="ascii", newline="")  # noqa: SIM115 - closed below
    except FileNotFoundError:
        return
    with f:
        for index, line in enumerate(f):
            if not line.endswith("\n"):
                return
            if index == 0 and line.startswith(header_start):
                continue
            yield upgrade(line)


def pad_fields(line: str, fields: int, legacy: tuple[int, ...]) -> str:
    """``line`` in a ``fields``-field format: a line of a ``legacy`` field count gets the
    fields it lacks, empty, at its end; any other line is returned as it is."""
    count = line.count(",") + 1
    if count in legacy:
        return line.rstrip("\n") + "," * (fields - count) + "\n"
    return line


def _drop_torn_tail(path: Path) -> None:
    """Cut a partial last line left by a crash, so the next append starts a clean line."""
    try:
        with open(path, "rb+") as f:
            data = f.read()
            if data and not data.endswith(b"\n"):
                f.truncate(data.rfind(b"\n") + 1)
    except FileNotFoundError:
        pass
