"""Write logic of the measurements app: receiving and ingesting uploads, summarising runs."""

from measurements.services.ingest import (
    CHUNK_CONFLICT_MESSAGE,
    HEADER_MESSAGE,
    INGEST_FAILED_MESSAGE,
    RECORD_HEADER,
    SAMPLE_HEADER,
    STREAMS,
    chunk_ingest,
    chunk_receive,
    chunks_requeue_stale,
    csv_copy,
)
from measurements.services.summary import bench_summarize, run_summarize

__all__ = [
    "CHUNK_CONFLICT_MESSAGE",
    "HEADER_MESSAGE",
    "INGEST_FAILED_MESSAGE",
    "RECORD_HEADER",
    "SAMPLE_HEADER",
    "STREAMS",
    "bench_summarize",
    "chunk_ingest",
    "chunk_receive",
    "chunks_requeue_stale",
    "csv_copy",
    "run_summarize",
]
