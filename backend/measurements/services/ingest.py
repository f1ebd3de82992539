from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import F
from django.utils import timezone
from iotsecbench_contract.records import LEGACY_RECORD_COLUMNS
from iotsecbench_contract.records import RECORD_COLUMNS as CONTRACT_RECORD_COLUMNS
from iotsecbench_contract.resources import RunResources
from psycopg import Error as PsycopgError
from psycopg import errors as pg_errors

from experiments.models import RunDevice, RunStatus
from experiments.services.agent_events import run_device_fail, run_device_settle
from measurements.errors import ChunkConflict, ChunkFormatError
from measurements.models import BenchSample, ChunkStatus, MessageRecord, Stream, UploadChunk

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class StreamFormat:
    """An upload stream: which table its CSV lines go to, and the header they must carry
    (``columns``; ``legacy`` lists the shorter column lists of older agents' uploads,
    still accepted: the missing columns stay NULL)."""

    table: str
    columns: tuple[str, ...]
    legacy: tuple[tuple[str, ...], ...] = ()

    @property
    def header(self) -> bytes:
        return ",".join(self.columns).encode()

    def columns_of(self, header: bytes) -> tuple[str, ...] | None:
        """The columns a chunk with this header line carries; None for a header this
        stream does not accept."""
        for columns in (self.columns, *self.legacy):
            if header == ",".join(columns).encode():
                return columns
        return None


# Each stream's columns as the current agent writes them. An older agent's chunk carries a
# prefix of them (docs/control-plane.md §6, §7): still accepted, the rest stays NULL.
# The record stream's columns are the contract's (iotsecbench_contract.records): agents
# before the harness floor have neither floor column, before interleaved runs no mechanism.
RECORD_COLUMNS = CONTRACT_RECORD_COLUMNS
SAMPLE_COLUMNS = (
    "mechanism",
    "operation",
    "data_bytes",
    "repetition",
    "wall_ns",
    "cpu_ns",
    "peak_rss_kb",
    "packets",
    "calls",  # agents before `calls` timed one call per repetition
)
STREAMS = {
    Stream.RECORDS: StreamFormat(
        MessageRecord._meta.db_table, RECORD_COLUMNS, legacy=LEGACY_RECORD_COLUMNS[1:]
    ),
    Stream.SAMPLES: StreamFormat(
        BenchSample._meta.db_table, SAMPLE_COLUMNS, legacy=(SAMPLE_COLUMNS[:-1],)
    ),
}
RECORD_HEADER = STREAMS[Stream.RECORDS].header
SAMPLE_HEADER = STREAMS[Stream.SAMPLES].header
HEADER_MESSAGE = "The chunk's first line must be the header `{expected}`; it was `{got}`."
CHUNK_CONFLICT_MESSAGE = (
    "Chunk {index} of this run was already uploaded under another idempotency key; "
    "re-send it with its original key `{key}`."
)
INGEST_FAILED_MESSAGE = "Uploaded records were rejected: {error}"


# --- receiving ----------------------------------------------------------------------------


def chunk_receive(
    *,
    run_device: RunDevice,
    stream: str = Stream.RECORDS,
    idempotency_key: str,
    index: int,
    is_final: bool,
    record_total: int | None,
    body: bytes,
    resources: RunResources | None = None,
) -> tuple[UploadChunk, bool]:
    """Store an uploaded chunk and queue its ingestion. Returns (chunk, created).

    The same idempotency key twice from the same device part returns the stored chunk and
    queues nothing: an agent that lost our answer and retries never makes a record land
    twice. Keys are looked up only within `run_device`, so no other device's key can shadow
    this one's chunks. A final chunk's ``resources`` (what the run cost the agent) are
    stored on the device's part with its record total.
    """
    from measurements.tasks import chunk_ingest_task

    existing = UploadChunk.objects.filter(
        run_device=run_device, idempotency_key=idempotency_key
    ).first()
    if existing is not None:
        return existing, False
    # Whatever state the run is in (failed, cancelled, partial), what was measured is kept.
    _check_header(body, STREAMS[Stream(stream)])
    try:
        with transaction.atomic():
            chunk = UploadChunk.objects.create(
                run_device=run_device,
                stream=stream,
                idempotency_key=idempotency_key,
                index=index,
                is_final=is_final,
                record_total=record_total,
                body=body,
            )
            if is_final:
                part = RunDevice.objects.filter(pk=run_device.pk)
                figures = RunDevice.resource_fields(resources) if resources is not None else {}
                part.update(record_total=record_total, **figures)
                part.filter(status__in=(RunStatus.PREPARING, RunStatus.RUNNING)).update(
                    status=RunStatus.INGESTING
                )
            transaction.on_commit(lambda: chunk_ingest_task.delay(chunk.pk))
    except IntegrityError as exc:
        # Either the same key raced in (answer as a replay) or the index is taken.
        raced = UploadChunk.objects.filter(
            run_device=run_device, idempotency_key=idempotency_key
        ).first()
        if raced is not None:
            return raced, False
        original = UploadChunk.objects.get(run_device=run_device, stream=stream, index=index)
        raise ChunkConflict(
            CHUNK_CONFLICT_MESSAGE.format(index=index, key=original.idempotency_key)
        ) from exc
    return chunk, True


def _check_header(body: bytes, stream: StreamFormat) -> tuple[str, ...]:
    """The columns of the chunk's header line, or ChunkFormatError naming the header
    expected."""
    first = body.split(b"\n", 1)[0].rstrip(b"\r")
    columns = stream.columns_of(first)
    if columns is None:
        raise ChunkFormatError(
            HEADER_MESSAGE.format(
                expected=stream.header.decode(), got=first[:200].decode(errors="replace")
            )
        )
    return columns


# --- ingesting ----------------------------------------------------------------------------


def csv_copy(*, stream: StreamFormat, run_device_id: int, body: bytes) -> int:
    """COPY a chunk of CSV into the stream's table; returns the rows added.

    PostgreSQL parses and type-checks the CSV (that is the fast path: no Python per row).
    Each line gets the run_device id prepended by one bytes.replace; the header line gets it
    too and is skipped by HEADER, so PostgreSQL's line numbers in errors are the chunk's.
    Rows already stored (an overlapping re-upload) are skipped through a staging table.
    Must run inside a transaction.
    """
    present = _check_header(body, stream)
    prefix = b"%d," % run_device_id
    data = prefix + body.rstrip(b"\r\n").replace(b"\n", b"\n" + prefix) + b"\n"
    columns = "run_device_id, " + ", ".join(present)
    copy_sql = f"COPY {stream.table} ({columns}) FROM STDIN WITH (FORMAT csv, HEADER true)"
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            with cursor.copy(copy_sql) as copy:
                copy.write(data)
            return int(cursor.rowcount)
    except pg_errors.UniqueViolation:
        pass  # an overlapping re-upload: take the slower path that skips stored rows
    with connection.cursor() as cursor:
        stage = f"ingest_stage_{stream.table}"
        cursor.execute(
            f"CREATE TEMP TABLE IF NOT EXISTS {stage} "
            f"(LIKE {stream.table} INCLUDING DEFAULTS) ON COMMIT DROP"
        )
        cursor.execute(f"TRUNCATE {stage}")
        with cursor.copy(copy_sql.replace(f"COPY {stream.table} ", f"COPY {stage} ")) as copy:
            copy.write(data)
        cursor.execute(
            f"INSERT INTO {stream.table} ({columns}) SELECT {columns} FROM {stage} "
            "ON CONFLICT DO NOTHING"
        )
        return int(cursor.rowcount)


def chunk_ingest(*, chunk_id: int) -> int:
    """Ingest one uploaded chunk; safe to run twice or concurrently.

    The chunk row is locked (SKIP LOCKED), and its status, its records and the state of the
    device's part (and of the run, once every part has ended) change in one transaction: a
    worker that dies mid-way leaves the chunk RECEIVED for the redelivered or re-queued
    task, never records stored under a part that no longer moves on. Returns the rows
    added. Bad records fail the chunk and end the device's part with PostgreSQL's message,
    which names the line and column.
    """
    with transaction.atomic():
        chunk = (
            UploadChunk.objects.select_for_update(skip_locked=True)
            .filter(pk=chunk_id, status=ChunkStatus.RECEIVED)
            .first()
        )
        if chunk is None:
            return 0
        # The chunk itself is durable already (stored with a synchronous commit when it was
        # received) and this transaction can be redone, so don't wait for the WAL flush.
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit = off")
        try:
            with transaction.atomic():
                added = csv_copy(
                    stream=STREAMS[Stream(chunk.stream)],
                    run_device_id=chunk.run_device_id,
                    body=bytes(chunk.body),
                )
        except (DatabaseError, PsycopgError, ChunkFormatError) as exc:
            error = exc.message if isinstance(exc, ChunkFormatError) else str(exc).strip()
            UploadChunk.objects.filter(pk=chunk.pk).update(status=ChunkStatus.FAILED, error=error)
            message = INGEST_FAILED_MESSAGE.format(error=f"chunk {chunk.index}: {error}")
            run_device_fail(run_device=RunDevice(pk=chunk.run_device_id), message=message)
            logger.warning("measurements.chunk_failed chunk=%s error=%s", chunk.pk, error)
            return 0
        UploadChunk.objects.filter(pk=chunk.pk).update(
            status=ChunkStatus.INGESTED, records=added, ingested_at=timezone.now()
        )
        RunDevice.objects.filter(pk=chunk.run_device_id).update(
            records_ingested=F("records_ingested") + added
        )
        run_device_settle(run_device_id=chunk.run_device_id)
    logger.info("measurements.chunk_ingested chunk=%s records=%s", chunk.pk, added)
    return added


def chunks_requeue_stale(*, now: datetime | None = None) -> int:
    """Queue the ingestion of chunks left `received` for longer than a task takes to start
    (a worker killed mid-ingest: its task comes back only after the broker's visibility
    timeout). Ingestion is idempotent, so a chunk queued twice is ingested once. Returns
    the number of chunks queued (beat task)."""
    from measurements.tasks import chunk_ingest_task

    now = now or timezone.now()
    stale = UploadChunk.objects.filter(
        status=ChunkStatus.RECEIVED,
        received_at__lt=now - timedelta(seconds=settings.CHUNK_REQUEUE_AFTER_SECONDS),
    ).values_list("pk", flat=True)
    chunk_ids = list(stale[:1000])
    for chunk_id in chunk_ids:
        chunk_ingest_task.delay(chunk_id)
    if chunk_ids:
        logger.warning("measurements.chunks_requeued count=%s ids=%s", len(chunk_ids), chunk_ids)
    return len(chunk_ids)
