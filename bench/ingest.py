"""Ingestion throughput: uploaded record chunks (the agents' CSV format) → rows in PostgreSQL.

    make bench            # or: .venv/bin/python bench/ingest.py --records 1000000

Runs against the PostgreSQL of DATABASE_URL's server, in a scratch database it recreates
(`iotsecbench_bench`). Measures, in one run so the ratios are comparable on a noisy machine:
  - copy-ingest:   measurements.services.chunk_ingest on stored chunks (claim, read the chunk,
                   COPY, bookkeeping) — the production path — on 1 and on 2 connections
                   (the worker's default concurrency on a 2-core machine);
  - bulk_create:   the same chunks parsed with the csv module into MessageRecord objects and
                   saved with Django's bulk_create (the ORM path we did not take).
Prints a Markdown table for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import secrets
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO_DIR = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO_DIR / "backend"), str(REPO_DIR)]

BENCH_DB = "iotsecbench_bench"
T0 = 1_763_770_000_000_000_000


def chunk_body(start: int, count: int) -> bytes:
    """Records exactly as an agent uploads them (after Django is set up)."""
    from measurements.services import RECORD_HEADER

    rows = b"".join(
        b"%d,%d,%d,66,145,ok,3100,3500,320,700,\n"  # no mechanism: not interleaved
        % (seq, T0 + seq * 1_000_000, T0 + seq * 1_000_000 + 41_000 + seq % 977)
        for seq in range(start, start + count)
    )
    return RECORD_HEADER + b"\n" + rows


def setup_django(admin_url: str, *, database: str = BENCH_DB) -> None:
    """Recreate the scratch `database` and set Django up on it (a bench that may run beside
    another names its own, so neither drops the other's)."""
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{database}"')
    os.environ["DATABASE_URL"] = (
        admin_url.replace("postgresql://", "postgres://").rsplit("/", 1)[0] + f"/{database}"
    )
    os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(32))
    if "JOB_SIGNING_KEY" not in os.environ:
        from scripts.signing_key import generate_pem

        os.environ["JOB_SIGNING_KEY"] = generate_pem()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.django.base")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def make_run_devices(n: int) -> list[int]:
    from accounts.models import Workspace
    from devices.models import Device
    from experiments.models import Experiment, Run, RunDevice, RunStatus

    workspace = Workspace.objects.create(name="bench")
    experiment = Experiment.objects.create(workspace=workspace, name="bench")
    ids = []
    for i in range(n):
        run = Run.objects.create(experiment=experiment, status=RunStatus.RUNNING)
        device = Device.objects.create(
            workspace=workspace, name=f"d{i}", token_hash=secrets.token_hex(32)
        )
        ids.append(RunDevice.objects.create(run=run, device=device, status=RunStatus.RUNNING).pk)
    return ids


def store_chunks(run_device_ids: list[int], records: int, chunk_records: int) -> list[int]:
    from measurements.models import UploadChunk

    per_device = records // len(run_device_ids)
    chunks = []
    for rd in run_device_ids:
        for index, start in enumerate(range(0, per_device, chunk_records)):
            body = chunk_body(start, min(chunk_records, per_device - start))
            chunks.append(
                UploadChunk(
                    run_device_id=rd, idempotency_key=f"{rd}:{index}", index=index, body=body
                )
            )
    return [c.pk for c in UploadChunk.objects.bulk_create(chunks)]


def ingest_with_copy(chunk_ids: list[int], workers: int) -> float:
    from django.db import connection

    from measurements.services import chunk_ingest

    def one(chunk_id: int) -> int:
        try:
            return chunk_ingest(chunk_id=chunk_id)
        finally:
            connection.close()  # each thread has its own connection

    started = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(one, chunk_ids))
    return time.perf_counter() - started


def ingest_with_bulk_create(run_device_ids: list[int], records: int, chunk_records: int) -> float:
    from django.db import transaction

    from measurements.models import MessageRecord

    per_device = records // len(run_device_ids)
    bodies = [
        (rd, chunk_body(start, min(chunk_records, per_device - start)))
        for rd in run_device_ids
        for start in range(0, per_device, chunk_records)
    ]
    started = time.perf_counter()
    for rd, body in bodies:
        reader = csv.DictReader(io.StringIO(body.decode()))
        objects = [
            MessageRecord(
                run_device_id=rd,
                seq=int(row["seq"]),
                t_send_ns=int(row["t_send_ns"]),
                t_recv_ns=int(row["t_recv_ns"]) if row["t_recv_ns"] else None,
                app_bytes=int(row["app_bytes"]),
                wire_bytes=int(row["wire_bytes"]),
                outcome=row["outcome"],
                secure_ns=int(row["secure_ns"]) if row["secure_ns"] else None,
                unsecure_ns=int(row["unsecure_ns"]) if row["unsecure_ns"] else None,
                floor_secure_ns=int(row["floor_secure_ns"]) if row["floor_secure_ns"] else None,
                floor_unsecure_ns=(
                    int(row["floor_unsecure_ns"]) if row["floor_unsecure_ns"] else None
                ),
            )
            for row in reader
        ]
        with transaction.atomic():
            MessageRecord.objects.bulk_create(objects, batch_size=chunk_records)
    return time.perf_counter() - started


def count_records() -> int:
    from measurements.models import MessageRecord

    return MessageRecord.objects.count()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument(
        "--chunk-records", type=int, default=None, help="default: what agents are told to use"
    )
    parser.add_argument("--devices", type=int, default=10)
    parser.add_argument(
        "--pg-admin-url",
        default=os.environ.get(
            "BENCH_PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
        ),
    )
    args = parser.parse_args()
    setup_django(args.pg_admin_url)
    from django.db import connection

    from experiments.services.jobs import UPLOAD_CHUNK_RECORDS

    args.chunk_records = args.chunk_records or UPLOAD_CHUNK_RECORDS

    results = []
    for workers in (1, 2):
        rds = make_run_devices(args.devices)
        chunk_ids = store_chunks(rds, args.records, args.chunk_records)
        before = count_records()
        elapsed = ingest_with_copy(chunk_ids, workers)
        added = count_records() - before
        assert added == args.records, f"expected {args.records} rows, got {added}"
        results.append((f"COPY ingest (chunk_ingest), {workers} connection(s)", added, elapsed))
    rds = make_run_devices(args.devices)
    before = count_records()
    elapsed = ingest_with_bulk_create(rds, args.records, args.chunk_records)
    added = count_records() - before
    assert added == args.records
    results.append(("Django bulk_create (csv module parse)", added, elapsed))
    connection.close()

    print(
        f"\n{args.records:,} records in chunks of {args.chunk_records:,}, {args.devices} devices\n"
    )
    print("| path | records | seconds | records/s |")
    print("|---|---:|---:|---:|")
    for label, added, elapsed in results:
        print(f"| {label} | {added:,} | {elapsed:.2f} | {added / elapsed:,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
