from __future__ import annotations

import logging
from typing import Any

from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import F
from django.utils import timezone
from psycopg import Error as PsycopgError
from psycopg import errors as pg_errors

from experiments.models import FINISHED_STATUSES, Run, RunDevice, RunStatus
from experiments.services import run_device_fail
from measurements.errors import ChunkConflict, ChunkFormatError, RunNotAcceptingUploads
from measurements.models import ChunkStatus, MessageRecord, RunStatistic, UploadChunk

logger = logging.getLogger(__name__)

RECORD_COLUMNS = ("seq", "t_send_ns", "t_recv_ns", "app_bytes", "wire_bytes", "outcome")
RECORD_HEADER = ",".join(RECORD_COLUMNS).encode()
HEADER_MESSAGE = "The chunk's first line must be the header `{expected}`; it was `{got}`."
CHUNK_CONFLICT_MESSAGE = (
    "Chunk {index} of this run was already uploaded under another idempotency key; "
    "re-send it with its original key `{key}`."
)
RUN_FINISHED_MESSAGE = "Run {run_id} is {status}; it accepts no more records."
INGEST_FAILED_MESSAGE = "Uploaded records were rejected: {error}"

_TABLE = MessageRecord._meta.db_table
_COPY_COLUMNS = "run_device_id, " + ", ".join(RECORD_COLUMNS)
_COPY_SQL = f"COPY {_TABLE} ({_COPY_COLUMNS}) FROM STDIN WITH (FORMAT csv, HEADER true)"


# --- receiving ----------------------------------------------------------------------------


def chunk_receive(
    *,
    run_device: RunDevice,
    idempotency_key: str,
    index: int,
    is_final: bool,
    record_total: int | None,
    body: bytes,
) -> tuple[UploadChunk, bool]:
    """Store an uploaded chunk and queue its ingestion. Returns (chunk, created).

    The same idempotency key twice returns the stored chunk and queues nothing: an agent that
    lost our answer and retries never makes a record land twice.
    """
    from measurements.tasks import chunk_ingest_task

    existing = UploadChunk.objects.filter(idempotency_key=idempotency_key).first()
    if existing is not None:
        return existing, False
    run = run_device.run
    if run.status in FINISHED_STATUSES:
        raise RunNotAcceptingUploads(RUN_FINISHED_MESSAGE.format(run_id=run.pk, status=run.status))
    _check_header(body)
    try:
        with transaction.atomic():
            chunk = UploadChunk.objects.create(
                run_device=run_device,
                idempotency_key=idempotency_key,
                index=index,
                is_final=is_final,
                record_total=record_total,
                body=body,
            )
            if is_final:
                RunDevice.objects.filter(pk=run_device.pk).update(record_total=record_total)
            transaction.on_commit(lambda: chunk_ingest_task.delay(chunk.pk))
    except IntegrityError as exc:
        # Either the same key raced in (answer as a replay) or the index is taken.
        raced = UploadChunk.objects.filter(idempotency_key=idempotency_key).first()
        if raced is not None:
            return raced, False
        original = UploadChunk.objects.get(run_device=run_device, index=index)
        raise ChunkConflict(
            CHUNK_CONFLICT_MESSAGE.format(index=index, key=original.idempotency_key)
        ) from exc
    return chunk, True


def _check_header(body: bytes) -> None:
    first = body.split(b"\n", 1)[0].rstrip(b"\r")
    if first != RECORD_HEADER:
        raise ChunkFormatError(
            HEADER_MESSAGE.format(
                expected=RECORD_HEADER.decode(), got=first[:200].decode(errors="replace")
            )
        )


# --- ingesting ----------------------------------------------------------------------------


def records_copy(*, run_device_id: int, body: bytes) -> int:
    """COPY a chunk of record CSV into the records table; returns the rows added.

    PostgreSQL parses and type-checks the CSV (that is the fast path: no Python per row).
    Each line gets the run_device id prepended by one bytes.replace; the header line gets it
    too and is skipped by HEADER, so PostgreSQL's line numbers in errors are the chunk's.
    Records already stored (an overlapping re-upload) are skipped through a staging table.
    Must run inside a transaction.
    """
    _check_header(body)
    prefix = b"%d," % run_device_id
    data = prefix + body.rstrip(b"\r\n").replace(b"\n", b"\n" + prefix) + b"\n"
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            with cursor.copy(_COPY_SQL) as copy:
                copy.write(data)
            return int(cursor.rowcount)
    except pg_errors.UniqueViolation:
        pass  # an overlapping re-upload: take the slower path that skips stored records
    return _records_copy_skipping_duplicates(data)


def _records_copy_skipping_duplicates(data: bytes) -> int:
    columns = _COPY_COLUMNS
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TEMP TABLE IF NOT EXISTS ingest_stage "
            f"(LIKE {_TABLE} INCLUDING DEFAULTS) ON COMMIT DROP"
        )
        cursor.execute("TRUNCATE ingest_stage")
        stage_sql = f"COPY ingest_stage ({columns}) FROM STDIN WITH (FORMAT csv, HEADER true)"
        with cursor.copy(stage_sql) as copy:
            copy.write(data)
        cursor.execute(
            f"INSERT INTO {_TABLE} ({columns}) SELECT {columns} FROM ingest_stage "
            "ON CONFLICT DO NOTHING"
        )
        return int(cursor.rowcount)


def chunk_ingest(*, chunk_id: int) -> int:
    """Ingest one uploaded chunk; safe to run twice or concurrently.

    The chunk row is locked (SKIP LOCKED) and its status changes in the same transaction as
    its records, so a worker that dies mid-way leaves the chunk RECEIVED for the redelivered
    task. Returns the rows added. Bad records fail the chunk and the device's part of the run
    with PostgreSQL's message, which names the line and column.
    """
    error = ""
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
                added = records_copy(run_device_id=chunk.run_device_id, body=bytes(chunk.body))
        except (DatabaseError, PsycopgError, ChunkFormatError) as exc:
            error = exc.message if isinstance(exc, ChunkFormatError) else str(exc).strip()
            UploadChunk.objects.filter(pk=chunk.pk).update(status=ChunkStatus.FAILED, error=error)
        else:
            UploadChunk.objects.filter(pk=chunk.pk).update(
                status=ChunkStatus.INGESTED, records=added, ingested_at=timezone.now()
            )
            RunDevice.objects.filter(pk=chunk.run_device_id).update(
                records_ingested=F("records_ingested") + added
            )
    if error:
        run_device = RunDevice.objects.select_related("device").get(pk=chunk.run_device_id)
        message = INGEST_FAILED_MESSAGE.format(error=f"chunk {chunk.index}: {error}")
        run_device_fail(run_device=run_device, message=message)
        logger.warning("measurements.chunk_failed chunk=%s error=%s", chunk.pk, error)
        return 0
    logger.info("measurements.chunk_ingested chunk=%s records=%s", chunk.pk, added)
    run_device_complete_if_ingested(run_device_id=chunk.run_device_id)
    return added


def run_device_complete_if_ingested(*, run_device_id: int) -> bool:
    """Complete a device's part once every record it declared is stored; then the run, once
    every device is complete. Conditional updates make concurrent chunk tasks safe."""
    done = (
        RunDevice.objects.filter(
            pk=run_device_id,
            record_total__isnull=False,
            records_ingested__gte=F("record_total"),
        )
        .exclude(status__in=FINISHED_STATUSES)
        .update(status=RunStatus.COMPLETED)
    )
    if not done:
        return False
    run_id = RunDevice.objects.values_list("run_id", flat=True).get(pk=run_device_id)
    unfinished = RunDevice.objects.filter(run_id=run_id).exclude(status=RunStatus.COMPLETED)
    if unfinished.exists():
        return True
    claimed = (
        Run.objects.filter(pk=run_id)
        .exclude(status__in=(*FINISHED_STATUSES, RunStatus.INGESTING))
        .update(status=RunStatus.INGESTING)
    )
    if claimed:
        run_summarize(run_id=run_id)
        Run.objects.filter(pk=run_id, status=RunStatus.INGESTING).update(
            status=RunStatus.COMPLETED, finished_at=timezone.now()
        )
    return True


# --- summarising --------------------------------------------------------------------------

_SUMMARY_SQL = f"""
SELECT r.run_device_id,
       count(*) FILTER (WHERE r.outcome = 'ok'),
       count(*) FILTER (WHERE r.outcome = 'lost'),
       avg((r.t_recv_ns - r.t_send_ns)) FILTER (WHERE r.outcome = 'ok'),
       percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY (r.t_recv_ns - r.t_send_ns))
           FILTER (WHERE r.outcome = 'ok'),
       min((r.t_recv_ns - r.t_send_ns)) FILTER (WHERE r.outcome = 'ok'),
       max((r.t_recv_ns - r.t_send_ns)) FILTER (WHERE r.outcome = 'ok'),
       stddev_samp((r.t_recv_ns - r.t_send_ns)) FILTER (WHERE r.outcome = 'ok')
FROM {_TABLE} r
JOIN experiments_rundevice rd ON rd.id = r.run_device_id
WHERE rd.run_id = %s
GROUP BY ROLLUP (r.run_device_id)
"""


@transaction.atomic
def run_summarize(*, run_id: Any) -> list[RunStatistic]:
    """Compute the round-trip summary per device and over all devices, in one SQL pass."""
    with connection.cursor() as cursor:
        cursor.execute(_SUMMARY_SQL, [run_id])
        rows = cursor.fetchall()
    RunStatistic.objects.filter(run_id=run_id).delete()
    statistics = []
    for run_device_id, n, lost, mean, pcts, lo, hi, std in rows:
        median, p95, p99 = pcts if pcts is not None else (None, None, None)
        statistics.append(
            RunStatistic(
                run_id=run_id,
                run_device_id=run_device_id,
                n=n,
                lost=lost,
                mean_ns=_float(mean),
                median_ns=_float(median),
                p95_ns=_float(p95),
                p99_ns=_float(p99),
                min_ns=_float(lo),
                max_ns=_float(hi),
                std_ns=_float(std),
            )
        )
    return RunStatistic.objects.bulk_create(statistics)


def _float(value: Any) -> float | None:
    return None if value is None else float(value)
