"""The real `iotsecbench-agent` console script as a subprocess, against a real Mosquitto
and a fake platform HTTP server (integration, end to end)."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from Crypto.PublicKey.ECC import EccKey

from iotsecbench_agent.links.mqtt_wire import publish_packet_size
from iotsecbench_agent.storage.recordlog import HEADER, read_records
from testkit import (
    TOKEN,
    WAIT_S,
    Broker,
    FakePlatform,
    Observer,
    free_port,
    make_job,
    public_key_b64,
    sign_envelope,
)

pytestmark = pytest.mark.integration


def agent_command() -> list[str]:
    script = Path(sys.executable).parent / "iotsecbench-agent"
    found = str(script) if script.exists() else shutil.which("iotsecbench-agent")
    return [found] if found else [sys.executable, "-m", "iotsecbench_agent"]


def agent(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*agent_command(), *args],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
        env={**os.environ, **(env or {})},
    )


class Enrolled:
    def __init__(self, platform: FakePlatform, broker: Broker, key: EccKey, tmp: Path) -> None:
        self.device_id = str(uuid.uuid4())
        self.state_dir = tmp / "state"
        self.prefix = f"iotsecbench/agents/{self.device_id}"
        self.broker = broker
        self.platform = platform
        self.key = key
        platform.enroll_answer = {
            "device_id": self.device_id,
            "api_token": TOKEN,
            "mqtt_url": broker.url,
            "job_public_key": public_key_b64(key),
            "topic_prefix": self.prefix,
        }
        result = agent(
            "enroll",
            "--server",
            platform.url,
            "--token",
            "good-token",
            "--name",
            "pi-test",
            "--state-dir",
            str(self.state_dir),
        )
        assert result.returncode == 0, result.stderr
        assert f"enrolled as {self.device_id}" in result.stdout
        self.log_path = tmp / "agent.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> subprocess.Popen[bytes]:
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [*agent_command(), "run", "--state-dir", str(self.state_dir)],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        return self.process

    def log(self) -> str:
        return self.log_path.read_text()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def enrolled(
    platform: FakePlatform, broker: Broker, key: EccKey, tmp_path: Path
) -> Iterator[Enrolled]:
    setup = Enrolled(platform, broker, key, tmp_path)
    yield setup
    setup.stop()


def states(observer: Observer) -> list[str]:
    return [m["state"] for m in observer.json_on("/status")]


def retained_status(broker: Broker, prefix: str) -> tuple[dict[str, Any], bool]:
    late = Observer(broker, f"{prefix}/status")  # subscribes after the fact: sees the retained
    try:
        late.wait_for(lambda o: bool(o.messages), what="retained status")
        _topic, payload, retained = late.messages[0]
        return json.loads(payload), retained
    finally:
        late.close()


def test_agent_process_runs_signed_job_end_to_end_when_started(enrolled: Enrolled) -> None:
    state_file = enrolled.state_dir / "state.json"
    assert state_file.stat().st_mode & 0o777 == 0o600
    assert json.loads(state_file.read_text())["server_url"] == enrolled.platform.url

    observer = Observer(enrolled.broker, f"{enrolled.prefix}/#")
    process = enrolled.start()
    try:
        observer.wait_for(lambda o: "online" in states(o), what="online status")
        status, retained = retained_status(enrolled.broker, enrolled.prefix)
        assert (status["state"], retained) == ("online", True)
        (facts,) = enrolled.platform.to("/api/agent/facts/")
        assert facts.headers["authorization"] == f"Device {TOKEN}"
        assert facts.json()["facts"]["libraries"]["paho-mqtt"]

        run_id = str(uuid.uuid4())
        job = make_job(
            device_id=enrolled.device_id,
            seq=1,
            run_id=run_id,
            broker_url=enrolled.broker.url,
            upload_url=enrolled.platform.records_url(run_id),
            chunk_records=20,
            message_count=50,
            interval_ms=20,  # ~1 s of running, so progress heartbeats go out
            qos=1,
        )
        envelope = sign_envelope(enrolled.key, job)
        observer.publish(f"{enrolled.prefix}/jobs", envelope)

        enrolled.platform.wait_for(
            lambda: any(
                r.headers.get("x-final-chunk") == "true"
                for r in enrolled.platform.requests
                if r.path.endswith("/records/")
            )
        )
        observer.wait_for(
            lambda o: any(h["phase"] == "done" for h in o.json_on("/heartbeat")),
            what="done heartbeat",
        )

        chunks = enrolled.platform.to(f"/api/agent/runs/{run_id}/records/")
        assert [c.headers["idempotency-key"] for c in chunks] == [
            f"{run_id}:{enrolled.device_id}:{i}" for i in range(3)
        ]
        assert chunks[-1].headers["x-record-total"] == "50"
        rows = [
            row
            for c in chunks
            for row in csv.DictReader(io.StringIO(c.body.decode()))
            if c.body.decode().startswith(HEADER)
        ]
        assert [int(r["seq"]) for r in rows] == list(range(50))
        assert {r["outcome"] for r in rows} == {"ok"}
        assert all(int(r["t_recv_ns"]) > int(r["t_send_ns"]) for r in rows)
        wire = publish_packet_size(topic=job["spec"]["topic"], payload_size=66, qos=1)
        assert {(r["app_bytes"], r["wire_bytes"]) for r in rows} == {("66", str(wire))}

        events = observer.json_on("/events")
        assert {"event": "job_accepted", "job_id": job["job_id"], "seq": 1}.items() <= events[
            0
        ].items()
        beats = observer.json_on("/heartbeat")
        running = [h for h in beats if h["phase"] == "running"]
        assert len(running) >= 2, beats  # every 0.5 s during the ~1 s run
        assert all(h["run_id"] == run_id and h["total"] == 50 for h in running)
        assert any(0 < h["sent"] < 50 for h in running), running
        done = next(h for h in beats if h["phase"] == "done")
        assert (done["sent"], done["received"], done["total"]) == (50, 50, 50)

        observer.publish(f"{enrolled.prefix}/jobs", envelope)  # replay the same signed job
        observer.wait_for(
            lambda o: any(e.get("reason") == "replayed" for e in o.json_on("/events")),
            what="replayed rejection",
        )

        process.send_signal(signal.SIGTERM)
        assert process.wait(WAIT_S) == 0
        observer.wait_for(lambda o: states(o)[-1:] == ["offline"], what="offline status")
        status, retained = retained_status(enrolled.broker, enrolled.prefix)
        assert (status["state"], retained) == ("offline", True)
    finally:
        observer.close()
    log = enrolled.log()
    assert "agent.job_accepted" in log
    assert "agent.job_rejected reason=replayed" in log
    assert TOKEN not in log


def test_agent_process_last_will_marks_it_offline_when_killed(enrolled: Enrolled) -> None:
    observer = Observer(enrolled.broker, f"{enrolled.prefix}/status")
    process = enrolled.start()
    try:
        observer.wait_for(lambda o: states(o) == ["online"], what="online status")

        process.kill()  # SIGKILL: no chance to say goodbye; the broker sends the will
        process.wait()

        observer.wait_for(lambda o: states(o) == ["online", "offline"], what="last will")
        status, retained = retained_status(enrolled.broker, enrolled.prefix)
        assert (status["state"], retained) == ("offline", True)
    finally:
        observer.close()


def test_agent_run_exits_1_with_enroll_hint_when_state_is_missing(tmp_path: Path) -> None:
    result = agent("run", "--state-dir", str(tmp_path / "nothing"))

    assert result.returncode == 1
    assert result.stderr.startswith("error: no agent state in")
    assert "run `iotsecbench-agent enroll" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_agent_run_reads_state_dir_from_env_when_flag_is_absent(tmp_path: Path) -> None:
    result = agent("run", env={"IOTSECBENCH_AGENT_STATE_DIR": str(tmp_path / "envdir")})

    assert result.returncode == 1
    assert f"no agent state in {tmp_path / 'envdir'}" in result.stderr


def test_agent_run_exits_1_when_broker_is_unreachable(enrolled: Enrolled) -> None:
    result = agent(
        "run",
        "--state-dir",
        str(enrolled.state_dir),
        "--mqtt-url",
        f"mqtt://127.0.0.1:{free_port()}",
    )

    assert result.returncode == 1
    assert "error: cannot connect to broker 127.0.0.1:" in result.stderr
    assert TOKEN not in result.stderr


def test_agent_enroll_exits_1_when_token_is_rejected(
    platform: FakePlatform, tmp_path: Path
) -> None:
    result = agent(
        "enroll", "--server", platform.url, "--token", "used", "--state-dir", str(tmp_path)
    )

    assert result.returncode == 1
    assert "error: enrollment refused: HTTP 400: Invalid enrollment token." in result.stderr
    assert "(enrollment_token_invalid)" in result.stderr
    assert not (tmp_path / "state.json").exists()


def test_agent_killed_mid_run_uploads_the_partial_log_exactly_once_when_restarted(
    enrolled: Enrolled,
) -> None:
    observer = Observer(enrolled.broker, f"{enrolled.prefix}/#")
    platform = enrolled.platform
    try:
        process = enrolled.start()
        observer.wait_for(lambda o: "online" in states(o), what="online status")
        run_id = str(uuid.uuid4())
        job = make_job(
            device_id=enrolled.device_id,
            seq=1,
            run_id=run_id,
            broker_url=enrolled.broker.url,
            upload_url=platform.records_url(run_id),
            chunk_records=20,
            message_count=1000,
            interval_ms=20,
        )
        observer.publish(f"{enrolled.prefix}/jobs", sign_envelope(enrolled.key, job))
        observer.wait_for(
            lambda o: any(h["sent"] >= 30 for h in o.json_on("/heartbeat")),
            what="30 messages measured",
        )

        process.kill()  # SIGKILL mid-run: nothing uploaded, nothing reported
        process.wait()
        records = f"/api/agent/runs/{run_id}/records/"
        assert platform.to(records) == []
        measured = len(read_records(enrolled.state_dir / "runs" / f"{run_id}.csv"))
        assert 30 <= measured < 1000
        beats_before = len(observer.json_on("/heartbeat"))

        process = enrolled.start()
        fail_path = f"/api/agent/runs/{run_id}/fail/"
        platform.wait_for(lambda: any(r.path == fail_path for r in platform.requests))

        chunks = platform.to(records)
        keys = [c.headers["idempotency-key"] for c in chunks]
        indices = range(-(-measured // 20))
        assert keys == [f"{run_id}:{enrolled.device_id}:{i}" for i in indices]  # each once
        assert chunks[-1].headers["x-final-chunk"] == "true"
        assert chunks[-1].headers["x-record-total"] == str(measured)
        rows = [row for c in chunks for row in csv.DictReader(io.StringIO(c.body.decode()))]
        assert [int(r["seq"]) for r in rows] == list(range(measured))
        (fail,) = platform.to(f"/api/agent/runs/{run_id}/fail/")
        assert fail.json()["message"] == (
            f"agent stopped during the run ({measured} of 1000 messages measured; "
            "uploaded after the agent restarted)"
        )
        observer.wait_for(
            lambda o: any(h["phase"] == "failed" for h in o.json_on("/heartbeat")[beats_before:]),
            what="failed heartbeat",
        )
        after = [h for h in observer.json_on("/heartbeat")[beats_before:] if h["run_id"]]
        assert {h["phase"] for h in after} <= {"uploading", "failed"}  # never "running"

        process.send_signal(signal.SIGTERM)
        assert process.wait(WAIT_S) == 0
        beats_before = len(observer.json_on("/heartbeat"))
        process = enrolled.start()  # a third start finds the run uploaded: nothing to send
        # Its first heartbeat comes after the executor went through the runs on disk.
        observer.wait_for(
            lambda o: len(o.json_on("/heartbeat")) > beats_before, what="third start's heartbeat"
        )
        process.send_signal(signal.SIGTERM)
        assert process.wait(WAIT_S) == 0
        assert len(platform.to(records)) == len(chunks)
        assert len(platform.to(f"/api/agent/runs/{run_id}/fail/")) == 1
    finally:
        observer.close()
