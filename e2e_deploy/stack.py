"""docker-compose.yml as containers: build its images, run it with podman-compose, reach it
through its public port (the frontend's nginx), and always take it down again."""

from __future__ import annotations

import http.cookiejar
import json
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from e2e.conftest import multipart_form

REPO_DIR = Path(__file__).resolve().parent.parent
COMPOSE_FILE = REPO_DIR / "docker-compose.yml"
PODMAN_COMPOSE = str(Path(sys.executable).parent / "podman-compose")
# One fixed project name: a run first removes what an aborted earlier run left behind.
PROJECT = "iotsecbench-deploytest"
# A full image build runs pip and npm; a cold one takes minutes on two cores.
BUILD_TIMEOUT_S = 1200
COMMAND_TIMEOUT_S = 300


class StackError(RuntimeError):
    """A command of the stack failed; the message holds its output's tail."""


def run(argv: Sequence[str], *, env: dict[str, str] | None = None, timeout: float) -> str:
    result = subprocess.run(
        list(argv), capture_output=True, text=True, env=env, timeout=timeout, check=False
    )
    if result.returncode != 0:
        tail = "\n".join((result.stdout + result.stderr).splitlines()[-60:])
        raise StackError(f"{' '.join(argv)} failed ({result.returncode}):\n{tail}")
    return result.stdout


def wait_until(check: Callable[[], bool], *, timeout: float, what: str, every: float = 1) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(every)
    raise StackError(f"{what}: not within {timeout:.0f} s")


@dataclass(frozen=True)
class ImageBuild:
    image: str
    dockerfile: str
    base_args: dict[str, str]  # ARG name → official image (its default in the Dockerfile)


def compose_builds() -> list[ImageBuild]:
    """Every image docker-compose.yml builds, once each, with the base-image arguments of its
    Dockerfile (`ARG NAME=<official image>`)."""
    services = yaml.safe_load(COMPOSE_FILE.read_text())["services"]
    builds: dict[str, ImageBuild] = {}
    for service in services.values():
        build = service.get("build")
        if not build or service["image"] in builds:
            continue
        dockerfile = build["dockerfile"]
        args = dict(
            re.findall(r"^ARG (\w+)=(\S+)$", (REPO_DIR / dockerfile).read_text(), re.MULTILINE)
        )
        builds[service["image"]] = ImageBuild(service["image"], dockerfile, args)
    return list(builds.values())


def compose_image_variables() -> dict[str, str]:
    """Variables that choose a service's image (`image: ${VAR:-official}`) → the official one."""
    return dict(re.findall(r"image: \$\{(\w+):-([^}]+)\}", COMPOSE_FILE.read_text()))


@dataclass
class Compose:
    env: dict[str, str]

    def __call__(self, *args: str, timeout: float = COMMAND_TIMEOUT_S) -> str:
        return run(
            [PODMAN_COMPOSE, "-p", PROJECT, "-f", str(COMPOSE_FILE), *args],
            env=self.env,
            timeout=timeout,
        )

    def container(self, service: str) -> str:
        names = run(
            [
                "podman",
                "ps",
                "-a",
                "--filter",
                f"label=io.podman.compose.project={PROJECT}",
                "--filter",
                f"label=com.docker.compose.service={service}",
                "--format",
                "{{.Names}}",
            ],
            timeout=30,
        ).split()
        if len(names) != 1:
            raise StackError(f"service {service}: containers {names}")
        return names[0]

    def healthy(self, service: str) -> bool:
        """Run the service's healthcheck once. Podman schedules healthchecks with systemd
        timers; where there is no systemd (containers, CI) nothing runs them, so the test
        does, and podman records the outcome as the container's health."""
        check = subprocess.run(
            ["podman", "healthcheck", "run", self.container(service)],
            capture_output=True,
            timeout=60,
            check=False,
        )
        return check.returncode == 0

    def wait_healthy(self, *services: str, timeout: float) -> None:
        for service in services:
            wait_until(
                lambda s=service: self.healthy(s),  # type: ignore[misc]
                timeout=timeout,
                what=f"{service} healthy",
                every=2,
            )

    def run_once(self, service: str, *, timeout: float) -> str:
        """Run a one-shot service to completion in a container removed afterwards (what
        `depends_on: condition: service_completed_successfully` waits for in compose);
        StackError with its output unless it exits 0."""
        return self("run", "--rm", "--no-deps", service, timeout=timeout)

    def up(self, *services: str) -> None:
        # --no-deps: the test starts the stack in the order of its dependencies itself,
        # because podman-compose ignores `condition: service_healthy` on podman < 4.6.
        self("up", "-d", "--no-deps", *services)

    def manage(self, *args: str) -> str:
        return run(
            ["podman", "exec", self.container("backend"), "python", "manage.py", *args],
            timeout=COMMAND_TIMEOUT_S,
        )

    def logs(self, service: str, lines: int = 40) -> str:
        try:
            name = self.container(service)
        except StackError as exc:
            return str(exc)
        result = subprocess.run(
            ["podman", "logs", "--tail", str(lines), name],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        return result.stdout + result.stderr

    def address(self, service: str) -> list[str]:
        """The container's addresses on its networks (none when it shares the host's)."""
        inspect = json.loads(run(["podman", "inspect", self.container(service)], timeout=30))
        networks = inspect[0]["NetworkSettings"].get("Networks") or {}
        return [n["IPAddress"] for n in networks.values() if n.get("IPAddress")]


def anonymous_volumes() -> list[str]:
    """Volumes of the project's containers that are no compose volume: those the images
    declare (VOLUME, e.g. redis's /data) and compose gives no name. `down -v` leaves them."""
    ids = subprocess.run(
        ["podman", "ps", "-aq", "--filter", f"label=io.podman.compose.project={PROJECT}"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    ).stdout.split()
    if not ids:
        return []
    inspected = json.loads(run(["podman", "inspect", *ids], timeout=60))
    return [
        mount["Name"]
        for container in inspected
        for mount in container.get("Mounts") or []
        if mount.get("Type") == "volume" and re.fullmatch(r"[0-9a-f]{64}", mount.get("Name", ""))
    ]


def compose_down(compose: Compose, *, volumes: bool) -> None:
    """`compose down` (with `-v`: and the named volumes), then the images' anonymous
    volumes, which would otherwise pile up with every run."""
    anonymous = anonymous_volumes()
    compose("down", *(["-v"] if volumes else []), "-t", "10")
    if anonymous:
        subprocess.run(
            ["podman", "volume", "rm", "-f", *anonymous],
            capture_output=True,
            timeout=120,
            check=False,
        )


def remove_project(compose: Compose) -> None:
    """compose down with its volumes, then whatever of the project is still there."""
    label = f"label=io.podman.compose.project={PROJECT}"
    try:
        compose_down(compose, volumes=True)
    except (StackError, subprocess.TimeoutExpired) as exc:
        print(f"compose down failed, removing the project's containers directly: {exc}")
    for kind in ("container", "volume", "network"):
        listed = subprocess.run(
            ["podman", kind, "ls", "-q", "--filter", label]
            if kind != "container"
            else ["podman", "ps", "-aq", "--filter", label],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        ).stdout.split()
        if listed:
            subprocess.run(
                ["podman", kind, "rm", "-f", *(["-v"] if kind == "container" else []), *listed],
                capture_output=True,
                timeout=120,
                check=False,
            )


def leftovers() -> list[str]:
    label = f"label=io.podman.compose.project={PROJECT}"
    containers = subprocess.run(
        ["podman", "ps", "-aq", "--filter", label], capture_output=True, text=True, check=False
    ).stdout.split()
    volumes = subprocess.run(
        ["podman", "volume", "ls", "-q", "--filter", label],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    return containers + volumes


@dataclass
class Client:
    """A browser's view of the API: a session cookie from signing in, the CSRF header."""

    url: str
    jar: http.cookiejar.CookieJar = field(default_factory=http.cookiejar.CookieJar)

    def __post_init__(self) -> None:
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def _csrf(self) -> str:
        return next((c.value or "" for c in self.jar if c.name == "csrftoken"), "")

    def request(
        self, method: str, path: str, data: bytes | None = None, content_type: str = ""
    ) -> Any:
        headers = {"X-CSRFToken": self._csrf(), "Accept": "application/json"}
        if content_type:
            headers["Content-Type"] = content_type
        request = urllib.request.Request(
            f"{self.url}{path}", method=method, data=data, headers=headers
        )
        try:
            with self.opener.open(request, timeout=30) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as exc:
            # The error envelope says what was wrong; urllib's message does not.
            raise StackError(f"{method} {path}: {exc.code} {exc.read()[:2000]!r}") from exc

    def api(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        return self.request(method, path, data, "application/json")

    def sign_in(self, username: str, password: str) -> dict[str, Any]:
        self.api("GET", "/api/auth/csrf/")
        user: dict[str, Any] = self.api(
            "POST", "/api/auth/login/", {"username": username, "password": password}
        )
        return user

    def upload(self, path: str, filename: str, body: bytes, fields: dict[str, str]) -> Any:
        """POST a multipart form with one file, as the web UI's form does."""
        data, content_type = multipart_form(filename, body, fields)
        return self.request("POST", path, data, content_type)
