"""Chunked, idempotent upload of a run's record log (§6 of docs/control-plane.md).

Chunk ``i`` is always the same records (lines ``i*n .. i*n+n-1`` of the log) under the same
``Idempotency-Key: <run_id>:<device_id>:<i>``, so re-sending a chunk after a lost answer or
a restart never stores a record twice. The last acknowledged index goes to the
``.uploaded`` sidecar after every acknowledged chunk, and the upload resumes after it.

The same uploader sends a cipher-bench run's samples (§7): an ``UploadFormat`` names the
CSV header, the idempotency-key scope (``<run_id>:<device_id>:samples:<i>``) and how to read
the log's lines; the default is the record log's.
"""

from __future__ import annotations

import functools
import itertools
import logging
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from iotsecbench_contract.resources import HEADER as RESOURCES_HEADER
from iotsecbench_contract.resources import RunResources

from iotsecbench_agent.errors import RunAborted
from iotsecbench_agent.platform.api import (
    PlatformApi,
    RetryableHttpError,
    RetryPolicy,
    with_retries,
)
from iotsecbench_agent.storage.recordlog import HEADER, UploadCursor
from iotsecbench_agent.storage.uploadformat import RECORDS, UploadFormat

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Chunk:
    index: int
    lines: list[str]
    final: bool
    header: str = HEADER

    def body(self) -> bytes:
        return (self.header + "\n" + "".join(self.lines)).encode("ascii")


@dataclass(frozen=True)
class UploadResult:
    chunks_sent: int
    records: int


def iter_chunks(
    lines: Iterable[str], *, total: int, chunk_records: int, header: str = HEADER
) -> Iterator[Chunk]:
    """Cut ``total`` log lines into chunks of ``chunk_records``. An empty log is one empty,
    final chunk, so the platform still learns the device's record total (0)."""
    if chunk_records < 1:
        raise ValueError("chunk_records must be >= 1")
    count = max(1, -(-total // chunk_records))
    it = iter(lines)
    for index in range(count):
        batch = list(itertools.islice(it, chunk_records))
        yield Chunk(index=index, lines=batch, final=index == count - 1, header=header)


class Uploader:
    def __init__(
        self,
        api: PlatformApi,
        *,
        device_id: str,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._api = api
        self._device_id = device_id
        self._retry = retry or RetryPolicy()
        self._sleep = sleep  # None: the stop's wait (tests pass a fake)
        self._clock = clock

    def upload(
        self,
        *,
        run_id: str,
        url: str,
        csv_path: Path,
        chunk_records: int,
        cursor: UploadCursor,
        stop: threading.Event | None = None,
        log_format: UploadFormat = RECORDS,
        retry: RetryPolicy | None = None,
        resources: RunResources | None = None,
    ) -> UploadResult:
        """Send every chunk of the log at ``csv_path`` after ``cursor``'s last acknowledged one.

        ``resources`` (a messaging run's) go on the final chunk as ``X-Run-Resources``.

        Raises PlatformRejected on a 4xx answer (not retried), PlatformUnavailable when
        5xx answers or connection errors outlast the retry policy, and RunAborted when
        ``stop`` is set (before a chunk, or during a wait between tries: it ends at once).
        """
        total = sum(1 for _ in log_format.lines(csv_path))
        last = cursor.last_acked()
        start = 0 if last is None else last + 1
        sent = 0
        chunks = iter_chunks(
            log_format.lines(csv_path),
            total=total,
            chunk_records=chunk_records,
            header=log_format.header,
        )
        for chunk in chunks:
            if chunk.index < start:
                continue
            if stop is not None and stop.is_set():
                raise RunAborted("upload interrupted by shutdown")
            headers = {
                "Idempotency-Key": log_format.idempotency_key(run_id, self._device_id, chunk.index),
                "X-Chunk-Index": str(chunk.index),
                "X-Final-Chunk": "true" if chunk.final else "false",
            }
            if chunk.final:
                headers["X-Record-Total"] = str(total)
                if resources is not None:
                    headers[RESOURCES_HEADER] = resources.to_header()
            response = with_retries(
                functools.partial(self._post, url, chunk.body(), headers),
                policy=retry or self._retry,
                what=f"upload of chunk {chunk.index} of run {run_id}",
                sleep=self._sleep,
                stop=stop,
                clock=self._clock,
            )
            cursor.ack(chunk.index)
            sent += 1
            logger.info(
                "agent.chunk_uploaded run_id=%s chunk=%d records=%d duplicate=%s",
                run_id,
                chunk.index,
                len(chunk.lines),
                response.body.get("duplicate"),
            )
        return UploadResult(chunks_sent=sent, records=total)

    def _post(self, url: str, body: bytes, headers: dict[str, str]) -> _Ack:
        response = self._api.post_chunk(url, body, headers)
        if response.status not in (200, 201):
            raise RetryableHttpError(f"unexpected HTTP {response.status} for an upload")
        return _Ack(body=response.body)


@dataclass(frozen=True)
class _Ack:
    body: dict[str, object]
