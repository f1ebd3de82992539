"""A Mosquitto that a test can kill and start again on the same port (broker restarts
mid-run: links/mqtt_link.ride_out, the control plane's reconnect)."""

from __future__ import annotations

import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from testkit import ACL, free_port, mosquitto_binary, wait_for_listener


class RestartableBroker:
    """A Mosquitto of its own (``persistence false``, as the session fixture's): ``stop``
    kills it (SIGTERM or SIGKILL), ``start`` runs a new one on the same port."""

    def __init__(self, directory: Path) -> None:
        binary = mosquitto_binary()
        if binary is None:
            pytest.fail("mosquitto not found on PATH or in /usr/sbin: apt-get install mosquitto")
        self.binary = binary
        self.port = free_port()
        acl = directory / "acl"
        acl.write_text(ACL)
        self.conf = directory / "mosquitto.conf"
        self.conf.write_text(
            f"listener {self.port} 127.0.0.1\n"
            "allow_anonymous true\n"
            "set_tcp_nodelay true\n"
            "persistence false\n"
            f"acl_file {acl}\n"
        )
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> None:
        assert self.process is None, "the broker is running"
        self.process = subprocess.Popen(
            [self.binary, "-c", str(self.conf)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        wait_for_listener(self.process, "127.0.0.1", self.port)

    def stop(self, sig: int = signal.SIGKILL, *, frozen_s: float = 0.0) -> None:
        """Stop the broker with ``sig``. ``frozen_s`` > 0: first freeze it (SIGSTOP) that
        long, so a client waiting for a message is surely waiting when the connection is
        cut (a message in flight at the cut), then signal it (SIGCONT after a SIGTERM)."""
        process, self.process = self.process, None
        if process is None:
            return
        if frozen_s > 0:
            process.send_signal(signal.SIGSTOP)
            time.sleep(frozen_s)
        process.send_signal(sig)
        if frozen_s > 0:
            process.send_signal(signal.SIGCONT)
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr:
            process.stderr.close()

    def restart_later(
        self,
        after_s: float,
        down_s: float | None,
        sig: int = signal.SIGKILL,
        *,
        frozen_s: float = 0.0,
    ) -> _Restart:
        """In a thread: ``after_s`` from now stop the broker, ``down_s`` later start it
        again (``down_s`` None: leave it down). The thread's ``cut_wall_ns``/``back_wall_ns``
        are the wall-clock times of both (the records' clock)."""
        thread = _Restart(self, after_s, down_s, sig, frozen_s)
        thread.start()
        return thread


class _Restart(threading.Thread):
    def __init__(
        self,
        broker: RestartableBroker,
        after_s: float,
        down_s: float | None,
        sig: int,
        frozen_s: float,
    ) -> None:
        super().__init__(daemon=True)
        self.broker = broker
        self.after_s = after_s
        self.down_s = down_s
        self.sig = sig
        self.frozen_s = frozen_s
        self.cut_wall_ns = 0
        self.back_wall_ns = 0

    def run(self) -> None:
        time.sleep(self.after_s)
        self.broker.stop(self.sig, frozen_s=self.frozen_s)
        self.cut_wall_ns = time.time_ns()
        if self.down_s is None:
            return
        time.sleep(self.down_s)
        self.broker.start()
        self.back_wall_ns = time.time_ns()


def restartable_broker() -> Iterator[RestartableBroker]:
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp).chmod(0o755)  # started as root, mosquitto reads the ACL as its own user
        broker = RestartableBroker(Path(tmp))
        try:
            yield broker
        finally:
            broker.stop(signal.SIGTERM)
