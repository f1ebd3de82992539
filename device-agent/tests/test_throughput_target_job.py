"""A throughput job whose spec names a ``target`` (the platform's design field target_url,
e.g. the MQTT-SN paper's gateway Pi) sends its packets there: a plain UDP socket the test
binds on 127.0.0.1 receives them (some, none lost twice: at most as many as the windows
counted as sent), and the secure-only windows send nothing."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from Crypto.PublicKey.ECC import EccKey

from iotsecbench_agent.storage.samplelog import Sample
from test_throughput_runner import WINDOW_MS, Agent
from testkit import FakePlatform


class Receiver:
    """A UDP socket on 127.0.0.1 counting the datagrams it reads, in a thread."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 * 1024 * 1024)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.count = 0
        self.sizes: set[int] = set()
        self._closing = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        host, port = self.sock.getsockname()
        return f"udp://{host}:{port}"

    def _read(self) -> None:
        idle = 0
        # After close() is asked for, read on until the socket has been quiet for a while:
        # what the agent sent last is counted too.
        while not (self._closing.is_set() and idle >= 3):
            try:
                data = self.sock.recv(65535)
            except TimeoutError:
                idle += 1
                continue
            idle = 0
            self.count += 1
            self.sizes.add(len(data))

    def close(self) -> None:
        """Stop reading once quiet; a second call does nothing."""
        if self._closing.is_set():
            return
        self._closing.set()
        self._thread.join(timeout=10)
        self.sock.close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    try:
        yield r
    finally:
        r.close()


def test_a_throughput_job_with_a_target_delivers_its_packets_to_that_receiver(
    platform: FakePlatform, tmp_path: Path, key: EccKey, receiver: Receiver
) -> None:
    agent = Agent(platform, tmp_path, key)
    job = agent.job(
        mechanisms=["none", "aes-128-cbc"],
        data_sizes=[64],
        repetitions=1,
        window_ms=WINDOW_MS,
        target=receiver.url,
    )

    agent.executor.execute(job)
    receiver.close()

    chunks = agent.platform.to(f"/api/agent/runs/{job.run_id}/samples/")
    lines = [line for c in chunks for line in c.body.decode("ascii").splitlines()[1:]]
    samples = [Sample.from_line(line) for line in lines]
    sent = sum(s.packets or 0 for s in samples if s.operation == "send")
    assert {s.operation for s in samples} == {"secure", "send"}
    assert agent.status(job) == "uploaded"
    assert sent > 0
    assert 0 < receiver.count <= sent
    # One 64-byte payload per datagram, as each mechanism frames it (none: as is).
    assert 64 in receiver.sizes
    assert min(receiver.sizes) >= 64
