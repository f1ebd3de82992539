"""Chaos: faults injected into a running platform in the middle of a run (kill -9, restarts),
real processes throughout. Each test asserts that every record of each device's local log
is stored exactly once (count, and the (device, seq) set against the agent's CSV), the run's
final state and its reason, and that the next run starts and completes normally.

The platform runs on a PostgreSQL server of its own (e2e/pgcluster.py) so that one test can
restart the database; its children are supervised by scripts/stack.py, which starts a
killed one again. Each test prints what it measured (records logged / stored / duplicated,
time to recover) as a `chaos:` line; docs/architecture.md's "Faults" section quotes them.
"""

from __future__ import annotations

import os
import re
import signal
import time
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest

from e2e.conftest import ARTIFACTS, USERNAME, Product, running_platform
from e2e.pgcluster import PrivateCluster

AGENTS = ("chaos-agent-1", "chaos-agent-2")
REDIS_URL = os.environ.get("E2E_CHAOS_REDIS_URL", "redis://127.0.0.1:6379/12")
DATABASE = os.environ.get("E2E_CHAOS_DATABASE", "iotsecbench_chaos")
MESSAGES = 600
DESIGN = {
    "protocol": "mqtt",
    "qos": 1,
    "security": "none",
    "payload_size": 66,
    "message_count": MESSAGES,
    "interval_ms": 20,  # about 12 s of measuring: time to hit it mid-run
    "measurement": "round_trip",
}
NEXT_RUN = {**DESIGN, "message_count": 50, "interval_ms": 0}
FINISHED = ("done", "partial", "failed", "cancelled")
RUN_TIMEOUT_S = 240


@pytest.fixture(scope="module")
def cluster() -> Iterator[PrivateCluster]:
    server = PrivateCluster()
    try:
        server.start()
        yield server
    finally:
        server.destroy()


@pytest.fixture(scope="module")
def chaos(tmp_path_factory: pytest.TempPathFactory, cluster: PrivateCluster) -> Iterator[Product]:
    with running_platform(
        tmp_path_factory.mktemp("chaos"),
        database=DATABASE,
        redis_url=REDIS_URL,
        pg_admin_url=cluster.admin_url,
    ) as product:
        for name in AGENTS:
            agent_dir = product.stack.enroll_agent(
                name=name, server=product.url, username=USERNAME, platform_id=product.database_url
            )
            product.stack.start_agent(name, agent_dir)
        product.wait_devices_online(count=len(AGENTS))
        yield product


# --- helpers ----------------------------------------------------------------------------------


def _start(product: Product, design: dict[str, Any], name: str) -> str:
    devices = product.wait_devices_online(count=len(AGENTS), timeout=60)
    experiment = product.api(
        "POST",
        "/api/experiments/",
        {**design, "name": name, "device_ids": [d["id"] for d in devices]},
    )
    return str(product.api("POST", f"/api/experiments/{experiment['id']}/runs/")["id"])


def _wait(what: str, check: Callable[[], Any], timeout: float = RUN_TIMEOUT_S) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            result = check()
        except OSError:  # the web server restarting, or the database down: ask again
            result = None
        if result:
            return result
        time.sleep(0.25)
    raise AssertionError(f"not within {timeout} s: {what}")


def _run(product: Product, run_id: str) -> dict[str, Any]:
    return dict(product.api("GET", f"/api/runs/{run_id}/"))


def _part(run: dict[str, Any], name: str) -> dict[str, Any]:
    return next(d for d in run["devices"] if d["name"] == name)


def _measuring(product: Product, run_id: str, name: str, fraction: float = 0.3) -> None:
    """Wait until the device's heartbeats say it sent `fraction` of its messages."""

    def far_enough() -> bool:
        part = _part(_run(product, run_id), name)
        return bool(part["status"] == "running" and part["sent"] >= fraction * MESSAGES)

    _wait(f"{name} measuring run {run_id}", far_enough)


def _finished(product: Product, run_id: str) -> dict[str, Any]:
    def finished() -> dict[str, Any] | None:
        run = _run(product, run_id)
        settled = all(d["status"] in FINISHED for d in run["devices"])
        return run if run["status"] in FINISHED and settled else None

    return dict(_wait(f"run {run_id} finished", finished))


def _agent_dir(product: Product, name: str) -> Path:
    return product.stack.state_dir / "agents" / name


def _logged_seqs(product: Product, run_id: str, name: str) -> list[int]:
    """The seqs of the agent's local record log of the run (a torn last line left by a
    kill -9 is not a record: the agent drops it too)."""
    text = (_agent_dir(product, name) / "runs" / f"{run_id}.csv").read_text()
    lines = text.split("\n")[1:]
    complete = lines[:-1]  # the part after the last newline is empty or torn
    return [int(line.split(",", 1)[0]) for line in complete if line]


def _stored_seqs(product: Product, run_id: str, name: str) -> list[int]:
    rows = product.sql(
        "SELECT r.seq FROM measurements_messagerecord r "
        "JOIN experiments_rundevice rd ON rd.id = r.run_device_id "
        "JOIN devices_device d ON d.id = rd.device_id "
        "WHERE rd.run_id = %s AND d.name = %s",
        run_id,
        name,
    )
    return [int(row[0]) for row in rows]


def _every_logged_record_stored_once(product: Product, run_id: str) -> dict[str, str]:
    """Per device: its local log against the database. Returns `logged/stored/duplicated`."""
    figures = {}
    for name in AGENTS:
        logged = _logged_seqs(product, run_id, name)
        stored = _stored_seqs(product, run_id, name)
        duplicated = sum(n - 1 for n in Counter(stored).values() if n > 1)
        assert len(set(logged)) == len(logged), f"{name}'s own log repeats a seq"
        assert duplicated == 0, f"{name}: {duplicated} records stored twice"
        assert sorted(stored) == sorted(logged), (
            f"{name}: {len(logged)} logged, {len(stored)} stored; "
            f"missing {sorted(set(logged) - set(stored))[:10]}"
        )
        figures[name] = f"{len(logged)}/{len(stored)}/{duplicated}"
    return figures


def _next_run_completes(product: Product) -> None:
    run_id = _start(product, NEXT_RUN, f"after the fault {time.monotonic()}")
    run = _finished(product, run_id)
    assert run["status"] == "done", run
    for name in AGENTS:
        assert (_part(run, name)["status"], _part(run, name)["records_ingested"]) == ("done", 50)


def _kill(product: Product, name: str) -> int:
    """kill -9 a child of the stack and everything it started (its process group, as an
    out-of-memory kill of its container would); the stack's supervisor starts it again."""
    pid = product.stack.pid(name)
    assert pid is not None, f"{name} is not running"
    os.killpg(pid, signal.SIGKILL)
    return pid


def _agent_log(product: Product, name: str, *needles: str) -> list[tuple[float, str]]:
    """(unix time, line) of the agent's log lines that hold every needle."""
    found = []
    for line in (product.stack.log_dir / f"{name}.log").read_text(errors="replace").splitlines():
        if all(needle in line for needle in needles):
            stamp = datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S,%f")
            found.append((stamp.timestamp(), line))
    return found


def _report(fault: str, figures: dict[str, str], recovered_s: float, state: str) -> None:
    devices = ", ".join(f"{name} {value}" for name, value in figures.items())
    line = (
        f"chaos: {fault}: logged/stored/duplicated {devices}; "
        f"recovered in {recovered_s:.1f} s; run {state}"
    )
    print(line)
    # Kept beside the stack's logs (e2e/artifacts), so a CI run's figures can be quoted.
    ARTIFACTS.mkdir(exist_ok=True)
    with (ARTIFACTS / "chaos-figures.txt").open("a") as figures_file:
        figures_file.write(f"{datetime.now().isoformat(timespec='seconds')} {line}\n")


# --- the faults -------------------------------------------------------------------------------


def test_an_agent_killed_mid_run_uploads_its_log_after_restart_and_the_run_ends_partial(
    chaos: Product,
) -> None:
    victim, survivor = AGENTS
    run_id = _start(chaos, DESIGN, "chaos: agent killed")
    _measuring(chaos, run_id, victim)
    old = _kill(chaos, victim)
    killed_at = time.monotonic()
    chaos.stack.wait_restarted(victim, old)

    def victims_records_stored() -> bool:
        part = _part(_run(chaos, run_id), victim)
        return bool(part["status"] == "partial" and part["records_ingested"] > 0)

    _wait(f"{victim}'s partial log stored", victims_records_stored)
    recovered = time.monotonic() - killed_at
    run = _finished(chaos, run_id)

    assert run["status"] == "partial", run
    lost_part, whole_part = _part(run, victim), _part(run, survivor)
    assert whole_part["status"] == "done"
    assert whole_part["records_ingested"] == MESSAGES
    assert 0 < lost_part["records_ingested"] < MESSAGES
    assert "agent stopped during the run" in lost_part["error"], lost_part["error"]
    assert f"of {MESSAGES} messages measured" in lost_part["error"], lost_part["error"]
    assert run["error"].startswith(f"{victim}: "), run["error"]
    figures = _every_logged_record_stored_once(chaos, run_id)
    _report("agent kill -9", figures, recovered, run["status"])
    _next_run_completes(chaos)


def test_a_broker_restarted_mid_run_is_ridden_out_and_the_run_completes(chaos: Product) -> None:
    run_id = _start(chaos, DESIGN, "chaos: broker restarted")
    for name in AGENTS:
        _measuring(chaos, run_id, name)
    old = _kill(chaos, "mosquitto")
    killed_at = time.monotonic()
    chaos.stack.wait_restarted("mosquitto", old)
    run = _finished(chaos, run_id)
    recovered = time.monotonic() - killed_at

    assert run["status"] == "done", run
    for name in AGENTS:
        part = _part(run, name)
        assert (part["status"], part["records_ingested"]) == ("done", MESSAGES), part
    figures = _every_logged_record_stored_once(chaos, run_id)
    lost = chaos.sql(
        "SELECT count(*) FROM measurements_messagerecord r JOIN experiments_rundevice rd "
        "ON rd.id = r.run_device_id WHERE rd.run_id = %s AND r.outcome = 'lost'",
        run_id,
    )[0][0]
    # Messages in flight at the cut are recorded lost, never hidden: at most a few per device.
    assert lost <= 10 * len(AGENTS), lost
    # Each agent's data plane lost the broker and came back within its budget (30 s).
    outages = []
    for name in AGENTS:
        back = _agent_log(chaos, name, "agent.data_plane_reconnected", f"run_id={run_id}")
        assert back, f"{name} never reconnected its data plane"
        found = re.search(r"outage_ms=([0-9.]+)", back[0][1])
        assert found is not None
        outages.append(float(found.group(1)))
    assert max(outages) < 30_000
    fault = f"broker kill -9 (data plane back in {max(outages):.0f} ms; {lost} lost at the cut)"
    _report(fault, figures, recovered, run["status"])
    _next_run_completes(chaos)


def test_a_worker_killed_during_ingestion_leaves_chunks_that_are_requeued_and_ingested_once(
    chaos: Product,
) -> None:
    run_id = _start(chaos, DESIGN, "chaos: worker killed mid-ingest")
    for name in AGENTS:
        _measuring(chaos, run_id, name, fraction=0.1)
    # Hold the records table so that the worker's COPY waits inside its ingest transaction:
    # the worker is then killed mid-ingest, with the chunk locked and its task taken.
    database = chaos.database_url.replace("postgres://", "postgresql://")
    with psycopg.connect(database) as holder:
        holder.execute("LOCK TABLE measurements_messagerecord IN SHARE MODE")

        def worker_copying() -> bool:
            rows = chaos.sql(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                "AND query LIKE 'COPY measurements_messagerecord%%'"
            )
            return bool(rows[0][0] >= 1)

        _wait("the worker's COPY waiting on the lock", worker_copying)
        old = _kill(chaos, "worker")
        killed_at = time.monotonic()
        holder.rollback()
    chaos.stack.wait_restarted("worker", old)
    run = _finished(chaos, run_id)
    recovered = time.monotonic() - killed_at

    assert run["status"] == "done", run
    stuck = chaos.sql(
        "SELECT count(*) FROM measurements_uploadchunk c JOIN experiments_rundevice rd "
        "ON rd.id = c.run_device_id WHERE rd.run_id = %s AND c.status <> 'ingested'",
        run_id,
    )[0][0]
    assert stuck == 0
    figures = _every_logged_record_stored_once(chaos, run_id)
    worker_log = (chaos.stack.log_dir / "worker.log").read_text(errors="replace")
    assert "measurements.chunks_requeued" in worker_log  # the sweeper, not a redelivery
    assert recovered < 60, f"ingestion resumed only after {recovered:.0f} s"
    _report("worker kill -9 during ingestion", figures, recovered, run["status"])
    _next_run_completes(chaos)


# PostgreSQL stays down longer than the agents' old upload policy lasted (8 tries, ~45 s).
DATABASE_DOWN_S = 60


def test_postgresql_restarted_mid_run_loses_nothing_and_the_run_completes(
    chaos: Product, cluster: PrivateCluster
) -> None:
    run_id = _start(chaos, DESIGN, "chaos: PostgreSQL restarted")
    for name in AGENTS:
        _measuring(chaos, run_id, name)
    cluster.stop()
    stopped_at = time.monotonic()
    time.sleep(DATABASE_DOWN_S)
    cluster.start()
    started_at = time.monotonic()
    run = _finished(chaos, run_id)
    recovered = time.monotonic() - started_at

    assert run["status"] == "done", run
    for name in AGENTS:
        part = _part(run, name)
        assert (part["status"], part["records_ingested"]) == ("done", MESSAGES), part
    figures = _every_logged_record_stored_once(chaos, run_id)
    # The agents kept retrying their uploads longer than their old policy lasted (~45 s).
    for name in AGENTS:
        retries = _agent_log(chaos, name, "agent.http_retry", f"upload of chunk 0 of run {run_id}")
        uploaded = _agent_log(chaos, name, "agent.chunk_uploaded", f"run_id={run_id}")
        assert retries, f"{name} never retried its upload"
        assert uploaded, f"{name} never uploaded"
        assert uploaded[-1][0] - retries[0][0] > 45, (retries[0], uploaded[-1])
    _report(
        f"PostgreSQL down {started_at - stopped_at:.0f} s (recovery counted from its start)",
        figures,
        recovered,
        run["status"],
    )
    _next_run_completes(chaos)
