"""The local, append-only sample log of a cipher-bench run (§7 of docs/control-plane.md) or
a throughput run (§8).

``<state-dir>/runs/<run_id>.samples.csv`` gets one line per repetition of one operation (a
cipher-bench repetition, or a throughput window), flushed as soon as it reaches the agent,
beside the run's ``<run_id>.json`` (the same ``RunMeta`` as a messaging run) and
``<run_id>.samples.uploaded`` (the upload cursor). A run is a sample run exactly when its
samples file exists; that is how the executor picks the upload format after a restart.

Torn-tail repair is the record log's (``recordlog``); the upload is the record uploader's
with the samples header and the ``samples`` idempotency scope (``SAMPLES_UPLOAD``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from iotsecbench_agent.errors import UnsupportedJob
from iotsecbench_agent.storage.csvlog import AppendOnlyLog, LogFiles, iter_log_lines, pad_fields
from iotsecbench_agent.storage.uploadformat import UploadFormat

HEADER = "mechanism,operation,data_bytes,repetition,wall_ns,cpu_ns,peak_rss_kb,packets,calls"
# Before throughput runs a sample had no `packets`, and before short calls were timed in
# groups no `calls`; such lines (a log written by an older agent and uploaded after an
# upgrade) are read with those fields empty.
LEGACY_FIELDS = (7, 8)
FIELDS = 9

# cipher-bench operations (§7)
ENCRYPT = "encrypt"
DECRYPT = "decrypt"
SIGN = "sign"
VERIFY = "verify"
# throughput operations (§8): secure only, secure and send (to the own sink or a target)
SECURE = "secure"
SEND = "send"
OPERATIONS = (ENCRYPT, DECRYPT, SIGN, VERIFY, SECURE, SEND)

# Every version of the header starts so; no sample line does (a repetition is a number).
_HEADER_START = "mechanism,operation,data_bytes,repetition,"

# The scope in `Idempotency-Key: <run_id>:<device_id>:samples:<index>`, so a samples chunk
# can never collide with a records chunk of the same index.
UPLOAD_SCOPE = "samples"


@dataclass(frozen=True)
class Sample:
    """One timed repetition of one operation on ``data_bytes`` bytes.

    ``cpu_ns`` is the process CPU time of the repetition; ``peak_rss_kb`` the peak resident
    memory of the measuring process (a cipher-bench batch's child; the agent for a
    throughput window) as of this repetition or shortly after it (a cipher-bench child
    reads it once per group of samples it writes, at most 256 repetitions or 0.2 s
    later): the high-water mark only grows, so a batch's last sample holds the batch's
    peak. ``packets`` is the number of packets a throughput window completed, None (an
    empty field) for a cipher-bench sample. ``calls`` is how many back-to-back calls the
    cipher-bench repetition timed (``wall_ns`` and ``cpu_ns`` are then their mean per
    call); None for a throughput window and for samples of older agents (one call).
    """

    mechanism: str
    operation: str
    data_bytes: int
    repetition: int
    wall_ns: int
    cpu_ns: int
    peak_rss_kb: int
    packets: int | None = None
    calls: int | None = None

    def __post_init__(self) -> None:
        if self.operation not in OPERATIONS:
            raise ValueError(f"unknown operation {self.operation!r}")
        if not self.mechanism or "," in self.mechanism or "\n" in self.mechanism:
            raise ValueError(f"mechanism name {self.mechanism!r} cannot go into a CSV field")
        if self.packets is not None and self.packets < 0:
            raise ValueError(f"packets must not be negative, got {self.packets}")
        if self.calls is not None and self.calls < 1:
            raise ValueError(f"calls must be at least 1, got {self.calls}")

    def to_line(self) -> str:
        packets = "" if self.packets is None else str(self.packets)
        calls = "" if self.calls is None else str(self.calls)
        return (
            f"{self.mechanism},{self.operation},{self.data_bytes},{self.repetition},"
            f"{self.wall_ns},{self.cpu_ns},{self.peak_rss_kb},{packets},{calls}\n"
        )

    @classmethod
    def from_line(cls, line: str) -> Sample:
        """A sample from a log line of this format or a legacy 7- or 8-field one."""
        fields = upgrade_line(line).rstrip("\n").split(",")
        if len(fields) != FIELDS:
            raise ValueError(f"a sample line has {FIELDS} fields, got {len(fields)}: {line!r}")
        mechanism, operation, data_bytes, repetition, wall, cpu, rss, packets, calls = fields
        return cls(
            mechanism=mechanism,
            operation=operation,
            data_bytes=int(data_bytes),
            repetition=int(repetition),
            wall_ns=int(wall),
            cpu_ns=int(cpu),
            peak_rss_kb=int(rss),
            packets=int(packets) if packets else None,
            calls=int(calls) if calls else None,
        )


def upgrade_line(line: str) -> str:
    """A sample line in the current format: a legacy line (no ``packets``, or no
    ``calls``) gets the missing fields empty; any other line is returned as it is."""
    return pad_fields(line, FIELDS, LEGACY_FIELDS)


@dataclass(frozen=True)
class SampleFiles(LogFiles):
    """Where one samples run's files live (its meta is ``RunFiles.meta``):
    ``<run_id>.samples.csv`` and ``<run_id>.samples.uploaded``."""

    SUFFIX = ".samples"


class SampleLog(AppendOnlyLog):
    """The benchmark samples of one run (header ``HEADER``), as ``recordlog.RecordLog``."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, header=HEADER, lines=iter_sample_lines)

    def append(self, sample: Sample) -> None:
        self.append_line(sample.to_line())


def iter_sample_lines(path: Path) -> Iterator[str]:
    """The sample lines of a log (without its header), each ending in a newline, read
    lazily. A torn last line (the process died mid-write) is not a sample and is left out.
    Lines of a log written by an older agent (7 fields, after its own 7-column header) come
    out in the current 8-field format, with an empty ``packets``.

    Not ``recordlog.iter_lines``: that one is the record log's (it skips any ``seq,…``
    header and upgrades 6-field record lines), which must never touch a sample line.
    """
    return iter_log_lines(path, header_start=_HEADER_START, upgrade=upgrade_line)


def read_samples(path: Path) -> list[Sample]:
    return [Sample.from_line(line) for line in iter_sample_lines(path)]


SAMPLES_UPLOAD = UploadFormat(header=HEADER, key_scope=UPLOAD_SCOPE, lines=iter_sample_lines)


def new_sample_log(path: str | None) -> SampleLog | None:
    """The CLIs' ``--samples FILE``: a new samples log at FILE, or None without the option.
    An existing FILE is refused (UnsupportedJob) rather than appended to or overwritten."""
    if path is None:
        return None
    if Path(path).exists():
        raise UnsupportedJob(f"--samples {path} exists; give a new file")
    return SampleLog(Path(path))
