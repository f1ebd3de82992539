"""Thirty agents in one run: does the platform keep up, and how far apart do they start?

    make bench            # or: .venv/bin/python bench/agents.py --agents 30 --messages 200

Starts the platform as `make up` does (scripts/stack.py, broker with identities) listening on
its address on a bridge of its own, in scratch databases (PostgreSQL
`<E2E_DATABASE>_bench_agents`, Redis db 10); enrolls `--agents` agents, each in its own
network namespace with its own address on that bridge (a lab's Pis, as
e2e/test_lab_network.py has one) and its own broker identity; lets them idle; then runs one
MQTT QoS 1 round-trip experiment of `--messages` messages on all of them. Needs root.

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
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil

REPO_DIR = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO_DIR / "backend"), str(REPO_DIR)]

from e2e.conftest import DATABASE_NAME, USERNAME, Product, running_platform  # noqa: E402
from e2e.test_full_path import DESIGN  # noqa: E402
from scripts.stack import VENV_BIN  # noqa: E402

REDIS_URL = os.environ.get("BENCH_AGENTS_REDIS_URL", "redis://127.0.0.1:6379/10")
# Our own /24 on our own bridge: the platform at .1, the agents' namespaces at .2 and up.
SUBNET = "10.214.0"
PLATFORM_ADDRESS = f"{SUBNET}.1"
PREFIX = 24
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


@contextmanager
def lab_network(hosts: int) -> Iterator[list[str]]:
    """`hosts` network namespaces (the Pis), each with its own address on a bridge that the
    platform's address (PLATFORM_ADDRESS) sits on; removed afterwards. Yields their names."""
    tag = secrets.token_hex(2)
    bridge = f"isbsb{tag}"
    namespaces: list[str] = []
    _ip("link", "add", bridge, "type", "bridge")
    try:
        _ip("addr", "add", f"{PLATFORM_ADDRESS}/{PREFIX}", "dev", bridge)
        _ip("link", "set", bridge, "up")
        for i in range(1, hosts + 1):
            namespace, host_end = f"isb-scale-{tag}-{i}", f"isbs{tag}h{i}"
            _ip("netns", "add", namespace)
            namespaces.append(namespace)
            _ip("link", "add", host_end, "type", "veth", "peer", "name", "eth0", "netns", namespace)
            _ip("link", "set", host_end, "master", bridge, "up")
            _ip("-n", namespace, "addr", "add", f"{SUBNET}.{i + 1}/{PREFIX}", "dev", "eth0")
            _ip("-n", namespace, "link", "set", "eth0", "up")
            _ip("-n", namespace, "link", "set", "lo", "up")
        yield namespaces
    finally:
        for namespace in namespaces:
            subprocess.run(["ip", "netns", "del", namespace], check=False, capture_output=True)
        subprocess.run(["ip", "link", "del", bridge], check=False, capture_output=True)


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=30)
    parser.add_argument("--messages", type=int, default=200)
    args = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("bench/agents.py makes a network namespace per agent: run it as root")
    database = f"{DATABASE_NAME}_bench_agents"
    with (
        tempfile.TemporaryDirectory(prefix="iotsecbench-bench-agents-") as tmp,
        lab_network(args.agents) as namespaces,
        running_platform(
            Path(tmp), database=database, redis_url=REDIS_URL, host=PLATFORM_ADDRESS
        ) as product,
    ):
        return measure(product, namespaces, args.messages)


def measure(product: Product, namespaces: list[str], messages: int) -> int:
    stack = product.stack
    agents = len(namespaces)
    platform_pids = [p.pid for _, p in stack.processes]
    started = time.monotonic()
    agent = str(VENV_BIN / "iotsecbench-agent")
    names = [f"bench-agent-{i:02d}" for i in range(1, agents + 1)]
    for name, namespace in zip(names, namespaces, strict=True):
        in_host = ["ip", "netns", "exec", namespace]
        token = stack.manage("device_enrollment_token", "--username", USERNAME).strip()
        state_dir = stack.state_dir / "agents" / name
        stack.run(f"enroll {name}", [*in_host, agent, "enroll", f"--server={product.url}",
                  f"--token={token}", f"--name={name}", f"--state-dir={state_dir}"])  # fmt: skip
        stack.start(name, [*in_host, agent, "run", "--state-dir", str(state_dir)])
    devices = product.wait_devices_online(timeout=240, count=agents)
    print(f"{agents} agents enrolled and online in {time.monotonic() - started:.1f} s")
    # `ip netns exec` execs the agent: each started pid is the agent process itself.
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
    # Every device's job is published in one batch (experiments.services.jobs run_dispatch), so
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
