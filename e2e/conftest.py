"""The whole product, for real: our own Mosquitto, the machine's PostgreSQL and Redis,
gunicorn, a Celery worker and beat, the control-plane listener and two agent processes."""

from __future__ import annotations

import json
import os
import secrets
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis

from scripts.signing_key import generate_pem
from scripts.stack import REPO_DIR, Stack, StackError, free_port

PG_ADMIN_URL = os.environ.get("E2E_PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
DATABASE_NAME = "iotsecbench_e2e"
REDIS_URL = os.environ.get("E2E_REDIS_URL", "redis://127.0.0.1:6379/14")
USERNAME = "e2e-user"
AGENTS = ("e2e-agent-1", "e2e-agent-2")
ARTIFACTS = REPO_DIR / "e2e" / "artifacts"


@dataclass
class Product:
    url: str
    username: str
    password: str
    api_token: str
    database_url: str
    stack: Stack

    def api(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        request = urllib.request.Request(
            f"{self.url}{path}",
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={
                "Authorization": f"Token {self.api_token}",
                "Content-Type": "application/json",
            },
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read() or b"null")

    def upload(self, path: str, filename: str, body: bytes, fields: dict[str, str]) -> Any:
        """POST a multipart form with one file, as a browser's form would."""
        boundary = secrets.token_hex(16)
        parts = [
            f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
            for k, v in fields.items()
        ]
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
            f'filename="{filename}"\r\nContent-Type: text/csv\r\n\r\n'.encode()
            + body
            + f"\r\n--{boundary}--\r\n".encode()
        )
        request = urllib.request.Request(
            f"{self.url}{path}",
            method="POST",
            data=b"".join(parts),
            headers={
                "Authorization": f"Token {self.api_token}",
                "Content-Type": f"multipart/form-data; boundary={boundary}",
            },
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())

    def sql(self, query: str, *params: object) -> list[tuple[Any, ...]]:
        with psycopg.connect(self.database_url.replace("postgres://", "postgresql://")) as conn:
            return conn.execute(query, params).fetchall()

    def wait_devices_online(self, timeout: float = 30) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        devices: list[dict[str, Any]] = []
        while time.monotonic() < deadline:
            self.stack.check_alive()
            devices = self.api("GET", "/api/devices/")
            if len(devices) == len(AGENTS) and all(d["online"] for d in devices):
                return devices
            time.sleep(0.2)
        raise AssertionError(f"agents not online after {timeout} s: {devices}")


def _recreate_database() -> str:
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DATABASE_NAME}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{DATABASE_NAME}"')
    return (
        PG_ADMIN_URL.replace("postgresql://", "postgres://").rsplit("/", 1)[0] + f"/{DATABASE_NAME}"
    )


@pytest.fixture(scope="session")
def product(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Product]:
    state_dir: Path = tmp_path_factory.mktemp("stack")
    redis.Redis.from_url(REDIS_URL).flushdb()
    database_url = _recreate_database()
    web_port = free_port()
    url = f"http://127.0.0.1:{web_port}"
    password = secrets.token_urlsafe(12)
    stack = Stack(
        state_dir=state_dir,
        env={
            "DATABASE_URL": database_url,
            "REDIS_URL": REDIS_URL,
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(32),
            "JOB_SIGNING_KEY": generate_pem(),
            "PLATFORM_PUBLIC_URL": url,
            "MEDIA_ROOT": str(state_dir / "media"),
            "PYTHONPATH": f"{REPO_DIR / 'backend'}{os.pathsep}{REPO_DIR}",
        },
    )
    try:
        tls_port = free_port()
        stack.env["MQTT_URL"] = stack.start_mosquitto(free_port(), tls_port=tls_port)
        stack.env.update(stack.tls_env(tls_port))
        stack.manage("migrate", "--noinput")
        stack.manage("bootstrap_demo", "--username", USERNAME, f"--password={password}")
        token = stack.manage("drf_create_token", USERNAME).split()[2]
        stack.start_web(web_port)
        stack.start_worker()
        stack.start_controller()
        stack.start_beat()
        stack.start_controlplane()
        for name in AGENTS:
            agent_dir = stack.enroll_agent(
                name=name, server=url, username=USERNAME, platform_id=database_url
            )
            stack.start_agent(name, agent_dir)
        product = Product(url, USERNAME, password, token, database_url, stack)
        product.wait_devices_online()
        yield product
    except (StackError, AssertionError):
        for name in ("web", "worker", "controlplane", *AGENTS):
            print(f"--- {name} log ---\n{stack.log_tail(name)}")
        raise
    finally:
        stack.stop()
        ARTIFACTS.mkdir(exist_ok=True)
        for log in stack.log_dir.glob("*.log"):
            (ARTIFACTS / log.name).write_bytes(log.read_bytes())
