"""The whole product, for real: our own Mosquitto, the machine's PostgreSQL and Redis,
gunicorn, a Celery worker and beat, the control-plane listener and two agent processes."""

from __future__ import annotations

import json
import os
import secrets
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis

from scripts.signing_key import generate_pem
from scripts.stack import REPO_DIR, Stack, StackError, free_port

PG_ADMIN_URL = os.environ.get("E2E_PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
# Overridable so that two checkouts can run their e2e suites at once without dropping each
# other's database or flushing each other's Redis.
DATABASE_NAME = os.environ.get("E2E_DATABASE", "iotsecbench_e2e")
REDIS_URL = os.environ.get("E2E_REDIS_URL", "redis://127.0.0.1:6379/14")
USERNAME = "e2e-user"
AGENTS = ("e2e-agent-1", "e2e-agent-2")
ARTIFACTS = REPO_DIR / "e2e" / "artifacts"


def multipart_form(filename: str, body: bytes, fields: dict[str, str]) -> tuple[bytes, str]:
    """A multipart form with `fields` and one CSV file, as a browser's form sends it: the
    body and its Content-Type."""
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
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


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
        data, content_type = multipart_form(filename, body, fields)
        request = urllib.request.Request(
            f"{self.url}{path}",
            method="POST",
            data=data,
            headers={
                "Authorization": f"Token {self.api_token}",
                "Content-Type": content_type,
            },
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())

    def sql(self, query: str, *params: object) -> list[tuple[Any, ...]]:
        with psycopg.connect(self.database_url.replace("postgres://", "postgresql://")) as conn:
            return conn.execute(query, params).fetchall()

    def wait_devices_online(
        self, timeout: float = 30, count: int = len(AGENTS)
    ) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        devices: list[dict[str, Any]] = []
        while time.monotonic() < deadline:
            self.stack.check_alive()
            devices = self.api("GET", "/api/devices/")
            if len(devices) == count and all(d["online"] for d in devices):
                return devices
            time.sleep(0.2)
        raise AssertionError(f"agents not online after {timeout} s: {devices}")


def _recreate_database(name: str, admin_url: str = PG_ADMIN_URL) -> str:
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return admin_url.replace("postgresql://", "postgres://").rsplit("/", 1)[0] + f"/{name}"


@contextmanager
def running_platform(
    state_dir: Path,
    *,
    database: str,
    redis_url: str,
    host: str = "127.0.0.1",
    pg_admin_url: str = PG_ADMIN_URL,
    env: dict[str, str] | None = None,
) -> Iterator[Product]:
    """The platform's processes as `make up` starts them (scripts/stack.py), listening on
    `host`: broker with identities, web, worker, controller, beat, control-plane listener.
    No agents: the caller enrolls and starts them. `pg_admin_url` names the PostgreSQL
    server its database is made on; `env` adds settings."""
    redis.Redis.from_url(redis_url).flushdb()
    database_url = _recreate_database(database, pg_admin_url)
    web_port = free_port()
    url = f"http://{host}:{web_port}"
    password = secrets.token_urlsafe(12)
    stack = Stack(
        state_dir=state_dir,
        env={
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(32),
            "JOB_SIGNING_KEY": generate_pem(),
            "PLATFORM_PUBLIC_URL": url,
            "DJANGO_ALLOWED_HOSTS": ",".join(dict.fromkeys((host, "127.0.0.1", "localhost"))),
            "MEDIA_ROOT": str(state_dir / "media"),
            "PYTHONPATH": f"{REPO_DIR / 'backend'}{os.pathsep}{REPO_DIR}",
            **(env or {}),
        },
    )
    try:
        stack.env.update(stack.start_broker(free_port(), tls_port=free_port(), host=host))
        stack.manage("migrate", "--noinput")
        stack.sync_broker()
        stack.manage("bootstrap_demo", "--username", USERNAME, f"--password={password}")
        token = stack.manage("api_token_create", USERNAME).strip()
        stack.start_web(web_port, host)
        stack.start_worker()
        stack.start_controller()
        stack.start_beat()
        stack.start_controlplane()
        yield Product(url, USERNAME, password, token, database_url, stack)
    except (StackError, AssertionError):
        for name, _ in stack.processes:
            print(f"--- {name} log ---\n{stack.log_tail(name)}")
        raise
    finally:
        stack.stop()
        ARTIFACTS.mkdir(exist_ok=True)
        for log in stack.log_dir.glob("*.log"):
            (ARTIFACTS / f"{database}-{log.name}").write_bytes(log.read_bytes())


@pytest.fixture(scope="session")
def product(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Product]:
    with running_platform(
        tmp_path_factory.mktemp("stack"), database=DATABASE_NAME, redis_url=REDIS_URL
    ) as product:
        for name in AGENTS:
            agent_dir = product.stack.enroll_agent(
                name=name, server=product.url, username=USERNAME, platform_id=product.database_url
            )
            product.stack.start_agent(name, agent_dir)
        product.wait_devices_online()
        yield product
