"""The health check's four checks, measured against a real broker and a platform clock
that runs 250 ms ahead of this one."""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from iotsecbench_agent.runtime.health import clock_offset, health_report
from testkit import TOKEN, Broker

AHEAD_NS = 250_000_000
# Tokens the test clock answers: the health tests' own, and testkit's (executor tests).
ACCEPTED = {"Device t0ken", f"Device {TOKEN}"}


class _Clock(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        received = time.time_ns() + AHEAD_NS
        if self.headers.get("Authorization") not in ACCEPTED:
            self.send_response(401)
            self.end_headers()
            return
        body = json.dumps({"received_ns": received, "sent_ns": time.time_ns() + AHEAD_NS})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def time_url() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Clock)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/api/agent/time/"
    server.shutdown()


def test_clock_offset_finds_a_platform_clock_250_ms_ahead(time_url: str) -> None:
    check = clock_offset(time_url, "t0ken")
    assert check["ok"] is True
    assert check["value"] == pytest.approx(250.0, abs=5.0)
    assert "ms ±" in check["detail"]


def test_clock_offset_fails_saying_why_when_the_platform_cannot_be_read(time_url: str) -> None:
    check = clock_offset(time_url, "wrong")
    assert check["ok"] is False
    assert check["detail"].startswith("the platform's clock cannot be read")


@pytest.mark.integration
def test_health_report_passes_with_a_broker_round_trip_selftest_and_clock(
    broker: Broker, time_url: str
) -> None:
    spec = {"broker_url": broker.url, "topic": "iotsecbench/health/dev/1"}
    report = health_report(spec, device_id="dev", time_url=time_url, token="t0ken")

    assert report["status"] == "passed", report
    checks = {c["name"]: c for c in report["checks"]}
    assert list(checks) == [
        "broker_round_trip",
        "clock_offset",
        "crypto_selftest",
        "network_emulation",
    ]
    assert 0 < checks["broker_round_trip"]["value"] < 1000
    assert "known-answer vectors passed" in checks["crypto_selftest"]["detail"]


@pytest.mark.integration
def test_health_report_fails_when_the_broker_is_not_there(time_url: str) -> None:
    spec = {"broker_url": "mqtt://127.0.0.1:9", "topic": "iotsecbench/health/dev/1"}
    report = health_report(spec, device_id="dev", time_url=time_url, token="t0ken")
    assert report["status"] == "failed"
    (broker_check,) = [c for c in report["checks"] if c["name"] == "broker_round_trip"]
    assert broker_check["ok"] is False
    assert broker_check["detail"].startswith("the broker cannot be used")
