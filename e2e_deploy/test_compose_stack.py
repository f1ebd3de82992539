"""The deployment for real: every image built from the repository's Dockerfiles,
docker-compose.yml's stack run as containers, and an experiment driven through the stack's
public entry (nginx on the frontend container's published port, proxying /api).

The agents run in their own containers with their own addresses on the compose network and
reach the platform only over it. The stack is taken down and started again to show that the
data lives in the named volumes. Timings (stand-ins, each image build, the whole test) are
printed at the end; docs/deployment.md keeps the measured figures.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from e2e.test_broker_identities import ANONYMOUS_CONNECT, tls_connack_without_certificate
from e2e_deploy.conftest import TIMINGS
from e2e_deploy.stack import (
    BUILD_TIMEOUT_S,
    REPO_DIR,
    Client,
    Compose,
    StackError,
    compose_builds,
    compose_down,
    compose_image_variables,
    leftovers,
    remove_project,
    run,
    wait_until,
)
from e2e_deploy.standins import build_standins
from scripts.signing_key import generate_pem

# Building every image cold takes minutes; the default 120 s per test is for unit tests.
pytestmark = pytest.mark.timeout(3000)

USERNAME = "deploy-user"
AGENT_SERVICES = ("agent-1", "agent-2")
AGENT_NAMES = ("demo-agent-1", "demo-agent-2")
MESSAGES = 40
RUN_TIMEOUT_S = 180
PLAIN = {
    "protocol": "mqtt",
    "qos": 1,
    "security": "none",
    "payload_size": 66,
    "message_count": MESSAGES,
    "measurement": "round_trip",
}
NOT_AUTHORIZED_V311 = 5  # CONNACK return code
TRACE = REPO_DIR / "fixtures" / "power-traces" / "ppk2-export.csv"
ARTIFACTS = REPO_DIR / "e2e_deploy" / "artifacts"
SERVICES = (
    "db",
    "redis",
    "mosquitto",
    "backend",
    "controlplane",
    "worker",
    "controller",
    "beat",
    "frontend",
    *AGENT_SERVICES,
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Deployment:
    compose: Compose
    client: Client
    password: str
    timings: list[str]
    # What the first test made, for the restart test to find again.
    made: dict[str, Any] = field(default_factory=dict)

    def start(self) -> None:
        """Start the stack in its dependencies' order, each step healthy before the next."""
        started = time.monotonic()
        self.compose.run_once("broker-setup", timeout=120)  # the broker's CA and files
        self.compose.up("db", "redis", "mosquitto")
        self.compose.wait_healthy("db", "redis", "mosquitto", timeout=120)
        self.compose.up("backend")  # migrates, then serves
        self.compose.wait_healthy("backend", timeout=240)
        self.compose.up("controlplane", "worker", "controller", "beat", "frontend")
        self.compose.wait_healthy("frontend", "worker", "controller", timeout=180)
        self.timings.append(f"stack started (healthy) in {time.monotonic() - started:.0f} s")

    def devices_online(self, timeout: float = 120) -> list[dict[str, Any]]:
        devices: list[dict[str, Any]] = []

        def online() -> bool:
            nonlocal devices
            devices = self.client.api("GET", "/api/devices/")
            return len(devices) == len(AGENT_NAMES) and all(d["online"] for d in devices)

        try:
            wait_until(online, timeout=timeout, what="both agents online")
        except StackError as exc:
            raise AssertionError(f"{exc}: {devices}") from exc
        return devices

    def run_finished(self, run_id: str) -> dict[str, Any]:
        run_: dict[str, Any] = {}

        def finished() -> bool:
            nonlocal run_
            run_ = self.client.api("GET", f"/api/runs/{run_id}/")
            return run_["status"] in ("done", "failed")

        wait_until(finished, timeout=RUN_TIMEOUT_S, what=f"run {run_id} finished")
        return run_

    def experiment_run(self, name: str, design: dict[str, Any]) -> dict[str, Any]:
        devices = self.devices_online()
        experiment = self.client.api(
            "POST",
            "/api/experiments/",
            {**design, "name": name, "device_ids": [d["id"] for d in devices]},
        )
        started = self.client.api("POST", f"/api/experiments/{experiment['id']}/runs/")
        return self.run_finished(started["id"])

    def save_logs(self) -> None:
        """Every container's log into e2e_deploy/artifacts/ (CI keeps them on failure)."""
        ARTIFACTS.mkdir(exist_ok=True)
        for service in SERVICES:
            (ARTIFACTS / f"{service}.log").write_text(self.compose.logs(service, lines=2000))


@pytest.fixture(scope="module")
def deployment() -> Iterator[Deployment]:
    test_started = time.monotonic()
    timings = TIMINGS
    port = free_port()
    env = {
        **os.environ,
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(32),
        "JOB_SIGNING_KEY": generate_pem(),
        "POSTGRES_PASSWORD": secrets.token_urlsafe(16),
        # Published on loopback only, on free ports: the machine's own broker may hold 1883.
        "HTTP_PUBLISH": f"127.0.0.1:{port}",
        "MQTT_PUBLISH": f"127.0.0.1:{free_port()}",
        "MQTTS_PUBLISH": f"127.0.0.1:{free_port()}",
        "DJANGO_CSRF_TRUSTED_ORIGINS": f"http://127.0.0.1:{port}",
    }
    compose = Compose(env)
    deployment = Deployment(compose, Client(f"http://127.0.0.1:{port}"), "", timings)
    try:
        remove_project(compose)  # an aborted earlier run's containers and volumes
        started = time.monotonic()
        standins = build_standins(timings)
        timings.append(f"stand-ins ready in {time.monotonic() - started:.0f} s")
        # The compose services' base images (db, redis, mosquitto) and the Dockerfiles'
        # base-image arguments get the stand-ins.
        for variable, official in compose_image_variables().items():
            env[variable] = standins[official]
        for build in compose_builds():
            started = time.monotonic()
            args = [f"--build-arg={k}={standins[v]}" for k, v in build.base_args.items()]
            run(
                [
                    "podman",
                    "build",
                    # pip, npm and apt inside the build reach the registries only this way here
                    "--network=host",
                    *args,
                    "-f",
                    build.dockerfile,
                    "-t",
                    build.image,
                    str(REPO_DIR),
                ],
                timeout=BUILD_TIMEOUT_S,
            )
            timings.append(f"image {build.image} built in {time.monotonic() - started:.0f} s")
        deployment.start()
        deployment.password = secrets.token_urlsafe(12)
        compose.manage(
            "bootstrap_demo", "--username", USERNAME, f"--password={deployment.password}"
        )
        for service in AGENT_SERVICES:
            token = compose.manage("device_enrollment_token", "--username", USERNAME).strip()
            env[f"{service.upper().replace('-', '_')}_ENROLL_TOKEN"] = token
        compose.up(*AGENT_SERVICES)
        yield deployment
    finally:
        try:
            deployment.save_logs()
        except (OSError, StackError, subprocess.TimeoutExpired) as exc:
            # The stack goes down in any case.
            timings.append(f"saving the containers' logs failed: {exc}")
        started = time.monotonic()
        remove_project(compose)
        timings.append(f"stack removed (compose down -v) in {time.monotonic() - started:.0f} s")
        timings.append(f"test-deploy total: {time.monotonic() - test_started:.0f} s")
        left = leftovers()
        assert not left, f"containers or volumes left behind: {left}"


def test_experiment_through_nginx_runs_on_two_agent_containers_and_lands_in_postgres(
    deployment: Deployment,
) -> None:
    client = deployment.client
    user = client.sign_in(USERNAME, deployment.password)
    assert user["username"] == USERNAME

    # Each agent is its own container with its own address on the compose network.
    addresses = [deployment.compose.address(s) for s in AGENT_SERVICES]
    assert all(addresses), addresses
    assert len({a[0] for a in addresses}) == len(AGENT_SERVICES), addresses
    devices = deployment.devices_online()
    assert sorted(d["name"] for d in devices) == sorted(AGENT_NAMES)

    plain = deployment.experiment_run("deploy plain", PLAIN)
    assert plain["status"] == "done", plain["error"]
    for part in plain["devices"]:
        assert (part["status"], part["records_ingested"], part["total"]) == (
            "done",
            MESSAGES,
            MESSAGES,
        )
    totals = {row["device_name"]: row["n"] for row in plain["summary"]}
    assert totals["All devices"] == MESSAGES * len(AGENT_NAMES)
    stats = client.api("GET", f"/api/runs/{plain['id']}/statistics/")
    assert sorted(d["n"] for d in stats["devices"]) == [MESSAGES] * len(AGENT_NAMES)

    secured = deployment.experiment_run("deploy aes", {**PLAIN, "security": "aes-128-cbc"})
    assert secured["status"] == "done", secured["error"]
    assert sum(p["records_ingested"] for p in secured["devices"]) == MESSAGES * len(AGENT_NAMES)
    for row in secured["summary"]:
        assert row["lost"] == 0
        assert row["secure_mean_us"] > 0
    secured_stats = client.api("GET", f"/api/runs/{secured['id']}/statistics/")
    assert sorted(d["n"] for d in secured_stats["devices"]) == [MESSAGES] * len(AGENT_NAMES)

    # A power trace: uploaded through nginx, stored in the media volume, parsed by the worker.
    body = TRACE.read_bytes()
    trace = client.upload(
        "/api/power-traces/",
        TRACE.name,
        body,
        {"run": plain["id"], "device": plain["devices"][0]["device_id"]},
    )
    assert trace["status"] == "uploaded", trace
    # A current-only log: the user confirms the detected mapping and gives the supply voltage.
    spec = {**trace["detection"]["spec"], "supply_voltage_v": 3.0}
    assert trace["detection"]["format"] == "ppk2", trace["detection"]
    client.api("POST", f"/api/power-traces/{trace['id']}/parse/", spec)

    def parsed() -> bool:
        nonlocal trace
        trace = client.api("GET", f"/api/power-traces/{trace['id']}/")
        return trace["status"] in ("parsed", "failed")

    wait_until(parsed, timeout=120, what="trace parsed")
    assert trace["status"] == "parsed", trace["error"]
    assert trace["sample_count"] == body.strip().count(b"\n")

    deployment.made.update(plain=plain, secured=secured, trace=trace, raw=body)


def test_the_broker_admits_no_anonymous_client_on_either_published_port(
    deployment: Deployment,
) -> None:
    """From outside the stack, as anyone on the LAN: the plain listener refuses a CONNECT
    without credentials, the TLS listener a client without a certificate of the CA."""
    env = deployment.compose.env
    plain_port = int(env["MQTT_PUBLISH"].rsplit(":", 1)[1])
    tls_port = int(env["MQTTS_PUBLISH"].rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", plain_port), timeout=10) as plain:
        plain.sendall(ANONYMOUS_CONNECT)
        connack = plain.recv(4)
    assert connack[:1] == b"\x20", connack  # a CONNACK ...
    assert connack[3] == NOT_AUTHORIZED_V311, connack  # ... that refuses
    answer = tls_connack_without_certificate("127.0.0.1", tls_port)
    assert answer == b"", answer


def test_data_survives_the_stack_taken_down_and_started_again(deployment: Deployment) -> None:
    made = deployment.made
    if not made:
        pytest.skip("the experiment test made nothing to find again")
    compose = deployment.compose
    started = time.monotonic()
    compose_down(compose, volumes=False)  # containers gone; named volumes kept
    deployment.start()
    compose.up(*AGENT_SERVICES)  # enrolled before: the identity is in their volumes
    deployment.timings.append(f"down + up again in {time.monotonic() - started:.0f} s")

    client = Client(deployment.client.url)

    def signed_in() -> bool:
        # Healthy containers, yet the first request through nginx right after a restart
        # once timed out (CI, 14:40 UTC): try again until the stack answers.
        try:
            client.sign_in(USERNAME, deployment.password)
        except (StackError, OSError):
            return False
        return True

    wait_until(signed_in, timeout=180, what="signed in after the restart", every=2)
    for key in ("plain", "secured"):
        before = made[key]
        after = client.api("GET", f"/api/runs/{before['id']}/")
        assert after["status"] == "done"
        assert [p["records_ingested"] for p in after["devices"]] == [
            p["records_ingested"] for p in before["devices"]
        ]
        stats = client.api("GET", f"/api/runs/{before['id']}/statistics/")
        assert sorted(d["n"] for d in stats["devices"]) == [MESSAGES] * len(AGENT_NAMES)
    trace = client.api("GET", f"/api/power-traces/{made['trace']['id']}/")
    assert (trace["status"], trace["sample_count"]) == ("parsed", made["trace"]["sample_count"])
    raw = client.opener.open(f"{client.url}/api/power-traces/{trace['id']}/raw/", timeout=30)
    with raw:
        assert raw.read() == made["raw"]  # the media volume kept the file

    # The agents came back with the identities their volumes kept, and measure again.
    deployment.client = client
    again = deployment.experiment_run("deploy after restart", {**PLAIN, "message_count": 10})
    assert again["status"] == "done", again["error"]
    assert sum(p["records_ingested"] for p in again["devices"]) == 10 * len(AGENT_NAMES)
