"""A PostgreSQL server of a test's own (initdb in a temporary directory, a free port), so a
chaos test can stop and start the database under the running platform without touching the
machine's shared server."""

from __future__ import annotations

import contextlib
import glob
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import psycopg

from scripts.stack import free_port

PG_USER = "postgres"


def _binary(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not found:
        raise RuntimeError(f"PostgreSQL's {name} not found under /usr/lib/postgresql/*/bin")
    return found[-1]


class PrivateCluster:
    """initdb, start, stop and start again; the server runs as the `postgres` user (it
    refuses root), from a directory that user owns."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="iotsecbench-pg-"))
        shutil.chown(self.root, PG_USER, PG_USER)
        self.data = self.root / "data"
        self.port = free_port()
        self.admin_url = f"postgresql://{PG_USER}@127.0.0.1:{self.port}/postgres"
        self._as_postgres(
            _binary("initdb"), "-D", str(self.data), "-U", PG_USER, "-A", "trust", "--no-sync"
        )

    def _as_postgres(self, *argv: str) -> None:
        subprocess.run(
            ["runuser", "-u", PG_USER, "--", *argv],
            check=True,
            capture_output=True,
            cwd=self.root,
        )

    def start(self) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root} -c fsync=off"
        self._as_postgres(
            _binary("pg_ctl"), "-D", str(self.data), "-l", str(self.root / "log"),
            "-o", options, "-w", "start",
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while True:
            try:
                psycopg.connect(self.admin_url, connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def stop(self) -> None:
        """A fast shutdown: every connection is cut, as a restart of the server cuts them."""
        self._as_postgres(_binary("pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def destroy(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):  # not running
            self.stop()
        shutil.rmtree(self.root, ignore_errors=True)
