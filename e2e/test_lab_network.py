"""`make up` serves a lab, not only a laptop: the platform listens on one address
(IOTSECBENCH_HOST's role, here the host end of a veth pair this test makes), and an agent on
another host — a network namespace with its own address, reaching the platform only over
that link — enrolls, gets its broker identity and runs an MQTT round trip whose messages
cross the link."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from e2e.conftest import DATABASE_NAME, USERNAME, Product, running_platform
from e2e.test_full_path import DESIGN, wait_run_finished
from scripts.stack import VENV_BIN

# A /30 of our own on our own veth pair; nothing else is ever addressed.
PLATFORM_ADDRESS = "10.213.77.1"
AGENT_ADDRESS = "10.213.77.2"
PREFIX = 30
LAB_REDIS_URL = os.environ.get("E2E_LAB_REDIS_URL", "redis://127.0.0.1:6379/13")
MESSAGES = 40

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0, reason="needs root to make a network namespace and a veth pair"
)


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


@pytest.fixture
def lab_host() -> Iterator[str]:
    """A namespace (the Pi) joined to this host by a veth pair; removed afterwards."""
    tag = secrets.token_hex(3)
    namespace, host_end, pi_end = f"isb-lab-{tag}", f"isblh{tag}", f"isblp{tag}"
    _ip("netns", "add", namespace)
    try:
        _ip("link", "add", host_end, "type", "veth", "peer", "name", pi_end)
        _ip("link", "set", pi_end, "netns", namespace)
        _ip("addr", "add", f"{PLATFORM_ADDRESS}/{PREFIX}", "dev", host_end)
        _ip("link", "set", host_end, "up")
        _ip("-n", namespace, "addr", "add", f"{AGENT_ADDRESS}/{PREFIX}", "dev", pi_end)
        _ip("-n", namespace, "link", "set", pi_end, "up")
        _ip("-n", namespace, "link", "set", "lo", "up")
        yield namespace
    finally:
        subprocess.run(["ip", "link", "del", host_end], check=False, capture_output=True)
        subprocess.run(["ip", "netns", "del", namespace], check=False, capture_output=True)


@pytest.fixture
def lab(lab_host: str, tmp_path: Path) -> Iterator[tuple[Product, str]]:
    with running_platform(
        tmp_path / "lab",
        database=f"{DATABASE_NAME}_lab",
        redis_url=LAB_REDIS_URL,
        host=PLATFORM_ADDRESS,
    ) as product:
        yield product, lab_host


def test_an_agent_on_another_host_enrolls_and_runs_over_the_lab_network(
    lab: tuple[Product, str], tmp_path: Path
) -> None:
    product, namespace = lab
    stack = product.stack
    assert product.url.startswith(f"http://{PLATFORM_ADDRESS}:")
    assert stack.env["MQTT_URL"].startswith(f"mqtts://{PLATFORM_ADDRESS}:")

    token = stack.manage("device_enrollment_token", "--username", USERNAME).strip()
    state_dir = tmp_path / "pi-state"
    in_pi = ["ip", "netns", "exec", namespace]
    agent = str(VENV_BIN / "iotsecbench-agent")
    enrolled = subprocess.run(
        [*in_pi, agent, "enroll", f"--server={product.url}", f"--token={token}",
         "--name=lab-pi", f"--state-dir={state_dir}"],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert enrolled.returncode == 0, enrolled.stderr
    assert "with its own broker identity" in enrolled.stdout
    stack.start("lab-pi", [*in_pi, agent, "run", "--state-dir", str(state_dir)])
    (device,) = product.wait_devices_online(count=1)

    experiment = product.api(
        "POST",
        "/api/experiments/",
        {**DESIGN, "name": "lab", "message_count": MESSAGES, "device_ids": [device["id"]]},
    )
    run = product.api("POST", f"/api/experiments/{experiment['id']}/runs/")
    run = wait_run_finished(product, run["id"])
    assert run["status"] == "done", run["error"]
    stored = product.sql(
        "SELECT count(*), count(*) FILTER (WHERE r.outcome = 'ok') FROM"
        " measurements_messagerecord r JOIN experiments_rundevice rd"
        " ON rd.id = r.run_device_id WHERE rd.run_id = %s",
        run["id"],
    )
    assert stored[0] == (MESSAGES, MESSAGES)

    # The broker saw the Pi's control plane (its certificate's CN as the user) and its
    # data plane (its data-plane user) come from the Pi's own address, never loopback.
    log = (stack.log_dir / "mosquitto.log").read_text()
    connections = re.findall(r"New client connected from ([\d.]+):\d+ as \S+ .*u'([^']+)'", log)
    users_from = {user: address for address, user in connections}
    assert users_from.get(device["id"]) == AGENT_ADDRESS, connections
    assert users_from.get(f"data-{device['id']}") == AGENT_ADDRESS, connections
