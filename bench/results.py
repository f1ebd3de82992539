"""Results page data of a 1,000,000-record run: server time and bytes sent to the browser.

    make bench            # or: .venv/bin/python bench/results.py --records 1000000

Runs against the PostgreSQL of BENCH_PG_ADMIN_URL's server, in its own scratch database
(`iotsecbench_bench_results`, recreated). Builds two completed messaging runs of
`--records` records over `--devices` devices (10 x 100,000, the per-device maximum of an
experiment): round trips ~50 µs with a tail of millisecond outliers and 0.05 % lost, COPYed
in through measurements.services.csv_copy (the ingest path), summarised by run_summarize as
on completion. Then, through the HTTP API with Django's test client (URL routing, auth,
selectors, numpy/scipy, JSON rendering), best of 3:

  - statistics and distribution, *first view*: the round-trip cache deleted before each
    try, so the records are read (one binary array_agg per column) and the cache written;
  - the same, *later views*: from the cache (results.models.RoundTripCache);
  - the page data (statistics, distribution, sizes, methods in a row), *first view after
    the worker's completion work*: every cache emptied, then filled as the worker does
    when the run completes (results.tasks.run_round_trips_warm_task), then the four
    requests a first page view makes;
  - the comparison of the two runs (bootstrap of 2,000 resamples; no p-value across runs);
  - the exports of the records (CSV streamed, Parquet).

Goals (issues #7 and #20): the page data (statistics + distribution + sizes + methods) under
250 ms of server time and under 100 kB, on the first view as on later ones. Prints a
Markdown table for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import functools
import io
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO_DIR = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO_DIR / "backend"), str(REPO_DIR)]

from bench.ingest import T0, setup_django  # noqa: E402

BENCH_DB = "iotsecbench_bench_results"
GOAL_MS = 250
GOAL_BYTES = 100_000
LOST_RATE = 0.0005
OUTLIER_RATE = 0.001


def records_csv(device: int, count: int) -> bytes:
    """One device's records in the agents' upload format (header included)."""
    import numpy as np

    rng = np.random.default_rng(device)
    rtt = 40_000 + rng.gamma(4.0, 2_500.0, count).astype(np.int64) + 200 * device
    outliers = rng.random(count) < OUTLIER_RATE
    rtt[outliers] = rng.integers(2_000_000, 40_000_000, int(outliers.sum()))
    lost = rng.random(count) < LOST_RATE
    return upload_body(rtt, lost, every_ns=1_000_000, app_bytes=66, wire_bytes=145, secure_ns=3_100)


def upload_body(
    rtt: Any, lost: Any, *, every_ns: int, app_bytes: int, wire_bytes: int, secure_ns: int
) -> bytes:
    """Records in the agents' upload format (header included): one message every
    `every_ns`, round trips `rtt` (ns) unless `lost`, unsecuring 400 ns above securing."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.csv as pacsv

    from measurements.services import RECORD_HEADER

    count = len(rtt)
    seq = np.arange(count, dtype=np.int64)
    t_send = T0 + seq * every_ns
    table = pa.table(
        {
            "seq": seq,
            "t_send_ns": t_send,
            "t_recv_ns": pa.array(t_send + rtt, mask=lost),
            "app_bytes": np.full(count, app_bytes),
            "wire_bytes": np.full(count, wire_bytes),
            "outcome": np.where(lost, "lost", "ok"),
            "secure_ns": pa.array(np.full(count, secure_ns), mask=lost),
            "unsecure_ns": pa.array(np.full(count, secure_ns + 400), mask=lost),
            "floor_secure_ns": pa.array(np.full(count, 320), mask=lost),
            "floor_unsecure_ns": pa.array(np.full(count, 700), mask=lost),
            "mechanism": pa.nulls(count, pa.string()),  # not interleaved: empty
        }
    )
    out = io.BytesIO()
    out.write(RECORD_HEADER + b"\n")
    options = pacsv.WriteOptions(include_header=False, quoting_style="none")
    pacsv.write_csv(table, out, write_options=options)
    return out.getvalue()


def make_run(workspace: Any, devices: list[Any], records: int, security: str) -> Any:
    from django.db import transaction

    from experiments.models import Experiment, Run, RunDevice, RunStatus
    from measurements.models import Stream
    from measurements.services import STREAMS, csv_copy, run_summarize

    experiment = Experiment.objects.create(
        workspace=workspace, name=f"bench {security}", security=security
    )
    experiment.devices.set(devices)
    spec = {
        "broker_url": "mqtt://127.0.0.1:1883",
        "transport": "tcp",
        "protocol": "mqtt",
        "mqtt_version": "3.1.1",
        "qos": 1,
        "security": security,
        "payload_size": 66,
        "message_count": records // len(devices),
        "interval_ms": 0,
        "interval_distribution": "fixed",
        "interval_seed": 1,
        "measurement": "round_trip",
        "timeout_ms": 5000,
    }
    run = Run.objects.create(experiment=experiment, status=RunStatus.DONE, spec=spec)
    per_device = records // len(devices)
    for i, device in enumerate(devices):
        part = RunDevice.objects.create(
            run=run, device=device, status=RunStatus.DONE, total=per_device
        )
        body = records_csv(i + (100 if security != "none" else 0), per_device)
        with transaction.atomic():
            csv_copy(stream=STREAMS[Stream.RECORDS], run_device_id=part.pk, body=body)
    run_summarize(run_id=run.pk)
    return run


def best_of(
    tries: int, request: Callable[[], Any], before: Callable[[], None]
) -> tuple[float, int]:
    """Best wall time (s) of `tries` requests and the response's size in bytes."""
    best, size = float("inf"), 0
    for _ in range(tries):
        before()
        started = time.perf_counter()
        response = request()
        body = b"".join(response.streaming_content) if response.streaming else response.content
        elapsed = time.perf_counter() - started
        assert response.status_code == 200, body[:500]
        best, size = min(best, elapsed), len(body)
    return best, size


def parse_and_set_up(parser: argparse.ArgumentParser, *, database: str) -> argparse.Namespace:
    """The results benches' common options (`--tries`, `--pg-admin-url`) parsed, and Django
    set up on their scratch `database`."""
    parser.add_argument("--tries", type=int, default=3)
    parser.add_argument(
        "--pg-admin-url",
        default=os.environ.get(
            "BENCH_PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
        ),
    )
    args = parser.parse_args()
    setup_django(args.pg_admin_url, database=database)
    return args


def caches_emptied() -> None:
    """Every cache of results emptied: the round-trip cache rows and Django's cache."""
    from django.core.cache import cache

    from results.models import RoundTripCache

    RoundTripCache.objects.all().delete()
    cache.clear()


def signed_in_owner() -> tuple[Any, Any]:
    """A workspace and a test client signed in as its owner (after Django is set up)."""
    from django.contrib.auth.models import User
    from django.test import Client

    from accounts.models import Membership, Workspace

    workspace = Workspace.objects.create(name="bench")
    user = User.objects.create_user(username="bench")
    Membership.objects.create(workspace=workspace, user=user, role=Membership.Role.OWNER)
    client = Client(HTTP_HOST="127.0.0.1")  # an ALLOWED_HOSTS default, unlike 'testserver'
    client.force_login(user)
    return workspace, client


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--devices", type=int, default=10)
    args = parse_and_set_up(parser, database=BENCH_DB)

    from django.core.cache import cache

    from devices.models import Device
    from results.tasks import run_round_trips_warm_task

    workspace, client = signed_in_owner()
    devices = [
        Device.objects.create(workspace=workspace, name=f"pi-{i:02d}", token_hash=f"{i:064x}")
        for i in range(args.devices)
    ]
    started = time.perf_counter()
    plain = make_run(workspace, devices, args.records, "none")
    secured = make_run(workspace, devices, args.records, "aes-128-cbc")
    setup_s = time.perf_counter() - started

    uncached = caches_emptied

    def unmemoized() -> None:
        # The statistics of a completed run are memoized per process (results.services.
        # summaries): the page's first request of a view computes them from the round-trip
        # cache, the methods paragraph right after reads the memo.
        cache.clear()

    def cached() -> None:
        pass

    def page_first_view() -> tuple[float, int]:
        """The page's four requests, as a user's first view after the worker's completion
        work (results.tasks.run_round_trips_warm_task): best of `tries`."""
        best, size = float("inf"), 0
        for _ in range(args.tries):
            uncached()
            run_round_trips_warm_task(str(plain.pk))
            started = time.perf_counter()
            sizes = 0
            for part in ("statistics/", "distribution/", "sizes/", "methods/"):
                response = client.get(page + part)
                assert response.status_code == 200, response.content[:500]
                sizes += len(response.content)
            best, size = min(best, time.perf_counter() - started), sizes
        return best, size

    page = f"/api/runs/{plain.pk}/"
    rows: list[tuple[str, float, int, str]] = []
    for label, url, before, goal in (
        ("statistics, first view", page + "statistics/", uncached, ""),
        ("distribution (200 bins), first view", page + "distribution/", uncached, ""),
        ("statistics (from the round-trip cache)", page + "statistics/", unmemoized, "page"),
        ("distribution (200 bins)", page + "distribution/", cached, "page"),
        ("message sizes", page + "sizes/", cached, "page"),
        ("methods paragraph (statistics memoized)", page + "methods/", cached, "page"),
        (
            "compare two runs (bootstrap)",
            f"/api/compare/?run={plain.pk}&run={secured.pk}",
            cached,
            "",
        ),
        ("export records.csv (streamed)", page + "export/records.csv", cached, ""),
        ("export records.parquet", page + "export/records.parquet", cached, ""),
    ):
        seconds, size = best_of(args.tries, functools.partial(client.get, url), before)
        rows.append((label, seconds, size, goal))

    first_s, first_bytes = page_first_view()
    page_ms = sum(s for _, s, _, g in rows if g == "page") * 1000
    page_bytes = sum(b for _, _, b, g in rows if g == "page")
    print(
        f"\n### Results: one run of {args.records:,} records over {args.devices} devices "
        f"(two runs built in {setup_s:.1f} s)\n"
    )
    print(f"| request | server time (best of {args.tries}) | response |")
    print("|---|---:|---:|")
    for label, seconds, size, _ in rows:
        shown = f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{size / 1000:.1f} kB"
        print(f"| {label} | {seconds * 1000:,.0f} ms | {shown} |")
    first_ms = first_s * 1000
    met = max(page_ms, first_ms) < GOAL_MS and max(page_bytes, first_bytes) < GOAL_BYTES
    print(
        f"| page data (statistics + distribution + sizes + methods), later views "
        f"| {page_ms:,.0f} ms | {page_bytes / 1000:.1f} kB |\n"
        f"| page data, first view (after the worker's completion work) "
        f"| {first_ms:,.0f} ms | {first_bytes / 1000:.1f} kB |\n\n"
        f"Goal < {GOAL_MS} ms and < {GOAL_BYTES // 1000} kB, first and later views: "
        f"{'met' if met else 'NOT met'}."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
