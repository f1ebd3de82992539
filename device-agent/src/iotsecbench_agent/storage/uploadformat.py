"""What kind of log a run uploads (``UploadFormat``), and the record log's (``RECORDS``).

Owned by storage, beside the logs it describes: the sample log names its own format
(``samplelog.SAMPLES_UPLOAD``), and the platform's uploader (``platform/uploader.py``)
takes one, so neither imports the other for it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from iotsecbench_agent.storage.recordlog import HEADER, iter_lines


@dataclass(frozen=True)
class UploadFormat:
    """What kind of log is uploaded: its CSV header line (sent first in every chunk), the
    scope inserted in the idempotency key (None: ``<run_id>:<device_id>:<i>`` as §6), and
    how to read its lines lazily (without the header, without a torn last line)."""

    header: str
    key_scope: str | None
    lines: Callable[[Path], Iterator[str]]

    def idempotency_key(self, run_id: str, device_id: str, index: int) -> str:
        scope = "" if self.key_scope is None else f"{self.key_scope}:"
        return f"{run_id}:{device_id}:{scope}{index}"


RECORDS = UploadFormat(header=HEADER, key_scope=None, lines=iter_lines)
