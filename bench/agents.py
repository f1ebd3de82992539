"""Thirty agents in one run: does the platform keep up, and how far apart do they start?

    make bench            # or: .venv/bin/python bench/agents.py --agents 30 --messages 200

Starts the platform as `make up` does (scripts/stack.py, broker with identities, on
127.0.0.1) in scratch databases (PostgreSQL `<E2E_DATABASE>_bench_agents`, Redis db 10),
enrolls `--agents` agent processes (each with its own broker identity), lets them idle,
then runs one MQTT QoS 1 round-trip experiment of `--messages` messages on all of them.

Prints, as a Markdown table for docs/benchmarks.md:
- records stored vs expected (every device's messages; no duplicate (device, seq));
- dispatch-to-first-message skew: every device's job is published in one batch, so the
  spread of the devices' first `t_send_ns` (each device's first message after the earliest
  device's) is the skew across devices;
- CPU of the platform's processes (web, workers, beat, listener, broker, and their children)
  over the run, as a share of one core, and of the agents while idle;
- resident memory (RSS) of an idle agent.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import psutil

REPO_DIR = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO_DIR / "backend"), str(REPO_DIR)]

from e2e.conftest import DATABASE_NAME, USERNAME, Product, running_platform  # noqa: E402
from e2e.test_full_path import DESIGN  # noqa: E402

REDIS_URL = os.environ.get("BENCH_AGENTS_REDIS_URL", "redis://127.0.0.1:6379/10")
IDLE_S = 10.0
RUN_TIMEOUT_S = 900


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU of these processes and all their descendants, now."""
    total = 0.0
    seen: set[int] = set()
    for pid in pids:
        try:
            root = psutil.Process(pid)
            for process in [root, *root.children(recursive=True)]:
                if process.pid in seen:
                    continue
                seen.add(process.pid)
                times = process.cpu_times()
                total += times.user + times.system
        except psutil.NoSuchProcess:
            continue
    return total


def rss_mb(pid: int) -> float:
    return float(psutil.Process(pid).memory_info().rss) / 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=30)
    parser.add_argument("--messages", type=int, default=200)
    args = parser.parse_args()
    database = f"{DATABASE_NAME}_bench_agents"
    with (
        tempfile.TemporaryDirectory(prefix="iotsecbench-bench-agents-") as tmp,
        running_platform(Path(tmp), database=database, redis_url=REDIS_URL) as product,
    ):
        return measure(product, args.agents, args.messages)


def measure(product: Product, agents: int, messages: int) -> int:
    stack = product.stack
    platform_pids = [p.pid for _, p in stack.processes]
    started = time.monotonic()
    names = [f"bench-agent-{i:02d}" for i in range(1, agents + 1)]
    for name in names:
        agent_dir = stack.enroll_agent(
            name=name, server=product.url, username=USERNAME, platform_id=product.database_url
        )
        stack.start_agent(name, agent_dir)
    devices = product.wait_devices_online(timeout=180, count=agents)
    print(f"{agents} agents enrolled and online in {time.monotonic() - started:.1f} s")
    agent_pids = [p.pid for name, p in stack.processes if name in names]

    idle_before = cpu_seconds(agent_pids)
    time.sleep(IDLE_S)
    idle_share = (cpu_seconds(agent_pids) - idle_before) / IDLE_S / agents
    idle_rss = statistics.median(rss_mb(pid) for pid in agent_pids)

    experiment = product.api(
        "POST",
        "/api/experiments/",
        {
            **DESIGN,
            "name": f"{agents} agents",
            "message_count": messages,
            "device_ids": [d["id"] for d in devices],
        },
    )
    cpu_before, wall_before = cpu_seconds(platform_pids), time.monotonic()
    run = product.api("POST", f"/api/experiments/{experiment['id']}/runs/")
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while run["status"] not in ("done", "failed"):
        if time.monotonic() > deadline:
            raise SystemExit(f"run not finished after {RUN_TIMEOUT_S} s: {run['status']}")
        stack.check_alive()
        time.sleep(0.5)
        run = product.api("GET", f"/api/runs/{run['id']}/")
    wall = time.monotonic() - wall_before
    platform_share = (cpu_seconds(platform_pids) - cpu_before) / wall
    if run["status"] != "done":
        raise SystemExit(f"run failed: {run['error']}")

    (stored, distinct), *_ = product.sql(
        "SELECT count(*), count(DISTINCT (r.run_device_id, r.seq)) FROM"
        " measurements_messagerecord r JOIN experiments_rundevice rd"
        " ON rd.id = r.run_device_id WHERE rd.run_id = %s",
        run["id"],
    )
    firsts = sorted(
        row[0]
        for row in product.sql(
            "SELECT min(r.t_send_ns) FROM measurements_messagerecord r"
            " JOIN experiments_rundevice rd ON rd.id = r.run_device_id"
            " WHERE rd.run_id = %s GROUP BY rd.id",
            run["id"],
        )
    )
    # Every device's job is published in one batch (experiments.services run_dispatch), so
    # the spread of the devices' first messages is the dispatch-to-first-message skew.
    after_ms = [(first - firsts[0]) / 1e6 for first in firsts]
    print()
    print("| figure | value |")
    print("|---|---|")
    print(f"| agents x messages | {agents} x {messages} |")
    print(f"| records stored / expected (distinct device, seq) | {stored} / {agents * messages}"
          f" ({distinct}) |")  # fmt: skip
    print(f"| run wall time (queued → done) | {wall:.1f} s |")
    print(
        f"| first message after the earliest device's, median / p90 / max | "
        f"{statistics.median(after_ms):.0f} / {after_ms[int(0.9 * (len(after_ms) - 1))]:.0f} / "
        f"{after_ms[-1]:.0f} ms |"
    )
    print(f"| platform CPU during the run (share of one core) | {platform_share:.2f} |")
    print(f"| idle agent: CPU (share of one core) / RSS (median) | {idle_share:.4f} / "
          f"{idle_rss:.0f} MB |")  # fmt: skip
    return 0 if stored == distinct == agents * messages else 1


if __name__ == "__main__":
    sys.exit(main())
