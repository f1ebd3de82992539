"""Power traces: parse and store a 10-million-sample file, then serve plot data and figures.

    make bench            # or: .venv/bin/python bench/power.py --samples 10000000

Runs against the PostgreSQL of DATABASE_URL's server, in a scratch database it recreates
(`iotsecbench_bench`), through the production code: the upload service (raw file kept,
format detected), the parse service the worker runs (power.services.trace_parse: parse the
CSV, COPY the sample blocks, all in one transaction) and the HTTP API for the plot data and
the figures (Django's test client: URL routing, auth, selectors, JSON rendering).

The file is a Nordic PPK2 export (`Timestamp(ms),Current(uA)`, 100 kHz) with a spike every
10,000 samples, so the plot check can tell whether spikes survive downsampling.
Goals (issue #8): parse and store 10 million samples in under 20 s; one plot's data in
under 1 s. Prints a Markdown table for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

REPO_DIR = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO_DIR / "backend"), str(REPO_DIR)]

from bench.ingest import setup_django  # noqa: E402

SAMPLE_RATE_HZ = 100_000
SPIKE_EVERY = 10_000
BASE_UA, SPIKE_UA = 250_000.0, 900_000.0


def write_ppk2(path: Path, samples: int) -> None:
    import numpy as np
    import pyarrow as pa
    import pyarrow.csv as pacsv

    with path.open("wb") as out:
        out.write(b"Timestamp(ms),Current(uA)\n")
        step = 1_000_000
        for lo in range(0, samples, step):
            idx = np.arange(lo, min(lo + step, samples))
            t_ms = np.round(idx * (1000.0 / SAMPLE_RATE_HZ), 3)
            current = BASE_UA + (idx % 97) * 10.0
            current[idx % SPIKE_EVERY == 0] = SPIKE_UA
            table = pa.table({"t": t_ms, "c": np.round(current, 1)})
            pacsv.write_csv(table, out, write_options=pacsv.WriteOptions(include_header=False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10_000_000)
    args = parser.parse_args()
    admin_url = os.environ.get(
        "BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
    )
    media = tempfile.mkdtemp(prefix="iotsecbench-bench-media-")
    os.environ["MEDIA_ROOT"] = media
    setup_django(admin_url)

    from django.contrib.auth.models import User
    from django.test import Client

    from accounts.models import Membership, Workspace
    from power.models import PowerTrace
    from power.services import trace_parse, trace_parse_request

    workspace = Workspace.objects.create(name="bench")
    user = User.objects.create_user(username="bench")
    Membership.objects.create(workspace=workspace, user=user, role=Membership.Role.OWNER)

    src = Path(media) / "ppk2-bench.csv"
    write_ppk2(src, args.samples)
    size_mb = src.stat().st_size / 1e6

    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(user)
    client.get("/api/power-traces/")  # warm up: the first request imports the URL conf
    started = time.perf_counter()
    with src.open("rb") as fh:
        response = client.post("/api/power-traces/", {"file": fh})
    upload_s = time.perf_counter() - started
    assert response.status_code == 201, response.content[:500]
    trace = PowerTrace.objects.get(pk=response.json()["id"])
    assert trace.detection is not None, trace.error
    spec = dict(trace.detection["spec"])
    spec["supply_voltage_v"] = 5.0
    with mock.patch("power.tasks.trace_parse_task.delay"):
        trace = trace_parse_request(trace=trace, spec=spec)
    started = time.perf_counter()
    assert trace.parse_token is not None
    assert trace_parse(trace_id=trace.pk, token=trace.parse_token)
    parse_s = time.perf_counter() - started
    trace = PowerTrace.objects.get(pk=trace.pk)
    assert trace.status == "parsed", trace.error
    assert trace.sample_count == args.samples

    duration = trace.duration_s or 0.0
    rows: list[tuple[str, float, int, str]] = []
    for label, query in (
        ("plot, whole trace (2,000 buckets)", ""),
        ("plot, 10 % window", f"?start={duration * 0.45}&end={duration * 0.55}"),
        ("plot, 1 s window", f"?start={duration / 2}&end={duration / 2 + 1}"),
        ("figures, whole trace", "figures"),
    ):
        url = f"/api/power-traces/{trace.pk}/" + (
            "figures/" if query == "figures" else f"plot/{query}"
        )
        best = float("inf")
        body = b""
        for _ in range(3):
            t0 = time.perf_counter()
            response = client.get(url)
            best = min(best, time.perf_counter() - t0)
            assert response.status_code == 200, response.content[:500]
            body = response.content
        note = ""
        if query != "figures":
            data = response.json()
            note = f"max {max(data['max_w']):.3f} W (spike {SPIKE_UA * 5 / 1e6:.3f} W)"
        else:
            data = response.json()
            note = f"mean {data['mean_w']:.4f} W, energy {data['energy_j']:.2f} J"
        rows.append((label, best, len(body), note))

    print(f"\n### Power traces: {args.samples:,} samples ({size_mb:.0f} MB PPK2 CSV)\n")
    print("| step | time | goal | notes |")
    print("|---|---:|---|---|")
    print(
        f"| upload (POST /api/power-traces/: store raw file, detect) | {upload_s:.2f} s | "
        f"| sha256 + copy of {size_mb:.0f} MB |"
    )
    print(
        f"| parse and store (trace_parse) | {parse_s:.2f} s | < 20 s "
        f"| {args.samples / parse_s:,.0f} samples/s |"
    )
    for label, seconds, size, note in rows:
        goal = "< 1 s" if label.startswith("plot") else ""
        print(f"| {label} | {seconds * 1000:.0f} ms, {size / 1000:.1f} kB | {goal} | {note} |")


if __name__ == "__main__":
    main()
