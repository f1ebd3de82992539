"""Supervision (issue #17): a child of the stack that dies is started again after a backoff,
with a line saying so; a child that keeps dying is given up on; stopping the stack stops
every child and what they started. Real processes: the session's platform and agents, and a
small stack of plain processes for what would break the session's (giving up, stopping)."""

from __future__ import annotations

import os
import signal
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from e2e.conftest import AGENTS, Product
from e2e.test_full_path import wait_run_finished
from scripts.stack import Stack, StackError, wait_for

RESTART_TIMEOUT_S = 30


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (killed, not yet reaped by its parent) is not alive either.
    status = Path(f"/proc/{pid}/stat")
    try:
        return status.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def kill_and_wait_restart(stack: Stack, name: str) -> int:
    old = stack.kill(name)
    restarts = stack.restarts(name)
    new = stack.wait_restarted(name, old, timeout=RESTART_TIMEOUT_S)
    assert stack.restarts(name) == restarts + 1
    assert not alive(old)
    log = (stack.log_dir / "stack.log").read_text()
    assert f"{name} (pid {old}) was killed by SIGKILL after " in log, log
    assert f"{name} restarted (pid {new}, " in log, log
    return new


def wait_logged_since_restart(stack: Stack, name: str, text: str) -> None:
    def logged() -> bool:
        log = (stack.log_dir / f"{name}.log").read_text(errors="replace")
        return text in log.rsplit("--- [stack] restart", 1)[-1]

    wait_for(logged, timeout=RESTART_TIMEOUT_S, what=f"{text!r} in {name}'s log")


def health(url: str) -> int:
    with urllib.request.urlopen(f"{url}/api/health/", timeout=5) as response:
        return int(response.status)


def test_killed_web_server_listener_and_agent_come_back_and_a_run_still_works(
    product: Product,
) -> None:
    stack = product.stack
    product.wait_devices_online()

    kill_and_wait_restart(stack, "web")
    wait_for(lambda: _healthy(product.url), timeout=RESTART_TIMEOUT_S, what="the web server")
    assert health(product.url) == 200

    kill_and_wait_restart(stack, "controlplane")
    kill_and_wait_restart(stack, AGENTS[0])
    # A new pid is not yet a connected process (and the platform may not have noticed the
    # agent was gone): wait until both say they are connected again.
    wait_logged_since_restart(stack, "controlplane", "controlplane.connected")
    wait_logged_since_restart(stack, AGENTS[0], "agent.started")
    devices = product.wait_devices_online(timeout=RESTART_TIMEOUT_S)
    stack.check_alive()

    # Everything restarted still works together: a small run of the restarted agent's device.
    device = next(d for d in devices if d["name"] == AGENTS[0])
    experiment = product.api(
        "POST",
        "/api/experiments/",
        {
            "name": "after restarts",
            "protocol": "mqtt",
            "qos": 1,
            "payload_size": 32,
            "message_count": 20,
            "interval_ms": 5,
            "device_ids": [device["id"]],
        },
    )
    run = product.api("POST", f"/api/experiments/{experiment['id']}/runs/")
    run = wait_run_finished(product, run["id"])
    assert run["status"] == "done", run["error"]


def test_the_broker_comes_back_on_its_port_with_its_sessions_file(product: Product) -> None:
    """A broker restart (SIGTERM: it saves its persistence file) comes back with the same
    config (port, dynamic-security file), and the agents are online again."""
    stack = product.stack
    devices = product.wait_devices_online()
    broker_dir = stack._broker_dir()
    old = stack.kill("mosquitto", signal.SIGTERM)
    stack.wait_restarted("mosquitto", old, timeout=RESTART_TIMEOUT_S)
    assert (broker_dir / "mosquitto.db").exists(), sorted(broker_dir.iterdir())
    assert "dynamic-security.json" in (stack.state_dir / "mosquitto.conf").read_text()

    def reconnected() -> bool:
        # Every agent signed in again with its identity (the plugin's file was loaded).
        log = (stack.log_dir / "mosquitto.log").read_text()
        since = log.rsplit("--- [stack] restart", 1)[1]
        return all(f"u'{d['id']}'" in since for d in devices)

    wait_for(reconnected, timeout=60, what="the agents' reconnection to the broker")
    product.wait_devices_online(timeout=60)
    stack.check_alive()


@pytest.fixture
def plain_stack(tmp_path: Path) -> Iterator[Stack]:
    stack = Stack(state_dir=tmp_path, env={}, restart_delay_s=0.2, give_up_exits=4)
    try:
        yield stack
    finally:
        stack.stop()


def test_a_child_killed_again_and_again_waits_longer_each_time(plain_stack: Stack) -> None:
    plain_stack.start("sleeper", ["sleep", "600"])
    for _ in range(3):
        kill_and_wait_restart(plain_stack, "sleeper")
    assert plain_stack.restart_delays("sleeper") == [0.2, 0.4, 0.8]
    plain_stack.check_alive()


def test_a_child_that_keeps_dying_is_given_up_on(plain_stack: Stack) -> None:
    plain_stack.start("crasher", [sys.executable, "-c", "raise SystemExit(3)"])

    def given_up() -> bool:
        try:
            plain_stack.check_alive()
        except StackError:
            return True
        return False

    wait_for(given_up, timeout=10, what="giving up on the crasher")
    with pytest.raises(StackError, match="crasher keeps dying: it exited with code 3"):
        plain_stack.check_alive()
    assert plain_stack.restarts("crasher") == 3
    assert plain_stack.restart_delays("crasher") == [0.2, 0.4, 0.8]


def test_stopping_the_stack_stops_every_child_and_what_it_started(plain_stack: Stack) -> None:
    # A child that starts a process of its own (as gunicorn and Celery start workers).
    plain_stack.start("parent", ["sh", "-c", "sleep 600 & echo $!; wait"])
    plain_stack.start("sleeper", ["sleep", "600"])
    wait_for(lambda: bool(plain_stack.log_tail("parent")), timeout=5, what="the grandchild")
    grandchild = int(plain_stack.log_tail("parent").split()[-1])
    pids = [pid for _, process in plain_stack.processes if (pid := process.pid)]
    # Stopped on purpose: not restarted.
    plain_stack.stop_process("sleeper")
    time.sleep(0.5)
    assert [name for name, _ in plain_stack.processes] == ["parent"]
    plain_stack.stop()
    assert plain_stack.processes == []
    # SIGKILL is delivered at once; the process is gone when next scheduled.
    for pid in [*pids, grandchild]:
        wait_for(lambda p=pid: not alive(p), timeout=2, what=f"pid {pid} gone")  # type: ignore[misc]
    log = plain_stack.log_dir / "stack.log"
    assert not log.exists() or "restarted" not in log.read_text()


def _healthy(url: str) -> bool:
    try:
        return health(url) == 200
    except OSError:
        return False
