"""A device's health check (docs/control-plane.md, health_check jobs): can this device be
given a run now? Four checks, each measured here, none assumed:

- ``broker_round_trip``: five QoS 1 round trips through the run broker (the real MQTT
  runner, publish to its own subscription), median in ms;
- ``clock_offset``: NTP-style four-timestamp probes against the platform's clock
  (``/api/agent/time/``), the offset of the probe with the smallest round trip (the
  minimum-RTT filter) and half that round trip as its uncertainty;
- ``crypto_selftest``: every built-in known-answer vector (``selftest``);
- ``network_emulation``: which network-profile backend works on this host.
"""

from __future__ import annotations

import statistics
import threading
from collections.abc import Mapping
from typing import Any

from iotsecbench_agent.errors import RUN_ERRORS
from iotsecbench_agent.netemu.link import capability
from iotsecbench_agent.oneway.clock import CLOCK_PROBES, ClockProbeError, probe_clock_offset
from iotsecbench_agent.runners import RunClock, RunContext
from iotsecbench_agent.runners.mqtt_roundtrip import MqttRoundTripRunner
from iotsecbench_agent.security.selftest import FAIL
from iotsecbench_agent.security.selftest import results as selftest_results
from iotsecbench_agent.storage.recordlog import OK, Record

TLS_FIELDS = ("tls_version", "ca_cert", "client_cert", "client_key")
BROKER_PROBES = 5
PROBE_TIMEOUT_S = 5.0
# A clock further off than this cannot time one-way delays of cellular links honestly.
CLOCK_OFFSET_LIMIT_MS = 1000.0


def _check(name: str, ok: bool, detail: str, value: float | None = None) -> dict[str, Any]:
    return {"name": name, "ok": ok, "detail": detail, "value": value}


def broker_round_trip(spec: Mapping[str, Any], device_id: str) -> dict[str, Any]:
    records: list[Record] = []
    probe = {
        "protocol": "mqtt",
        "mqtt_version": "3.1.1",
        "qos": 1,
        "security": "none",
        "payload_size": 8,
        "message_count": BROKER_PROBES,
        "interval_ms": 0,
        "measurement": "round_trip",
        "timeout_ms": PROBE_TIMEOUT_S * 1000,
        "broker_url": spec.get("broker_url"),
        "topic": spec.get("topic"),
        # Over mqtts:// the device's own certificate (identity.BrokerIdentity.apply).
        **{k: spec[k] for k in TLS_FIELDS if k in spec},
    }
    context = RunContext(
        run_id="health",
        device_id=device_id,
        clock=RunClock(),
        emit=records.append,
        stop=threading.Event(),
    )
    try:
        MqttRoundTripRunner(probe, context).execute()
    except RUN_ERRORS as exc:
        return _check("broker_round_trip", False, f"the broker cannot be used: {exc}")
    rtts = [
        (r.t_recv_ns - r.t_send_ns) / 1e6
        for r in records
        if r.outcome == OK and r.t_recv_ns is not None
    ]
    if len(rtts) < BROKER_PROBES:
        lost = BROKER_PROBES - len(rtts)
        return _check("broker_round_trip", False, f"{lost} of {BROKER_PROBES} probes got no echo")
    median = statistics.median(rtts)
    return _check("broker_round_trip", True, f"median {median:.2f} ms over {BROKER_PROBES}", median)


def clock_offset(time_url: str, token: str) -> dict[str, Any]:
    """Offset = ((t1 - t0) + (t2 - t3)) / 2 of the probe with the smallest round trip
    (t0 sent, t1 server received, t2 server sent, t3 received; RFC 5905 §8):
    ``oneway.clock.probe_clock_offset``, which one-way runs use too."""
    try:
        measured = probe_clock_offset(time_url, token, probes=CLOCK_PROBES)
    except ClockProbeError as exc:
        return _check("clock_offset", False, str(exc))
    offset_ms, uncertainty_ms = measured.offset_ms, measured.uncertainty_ms
    ok = abs(offset_ms) <= CLOCK_OFFSET_LIMIT_MS
    detail = f"{offset_ms:+.3f} ms ± {uncertainty_ms:.3f} ms (platform minus device)"
    if not ok:
        detail += f"; more than {CLOCK_OFFSET_LIMIT_MS:.0f} ms off: synchronise the clock (NTP)"
    return _check("clock_offset", ok, detail, offset_ms)


def crypto_selftest() -> dict[str, Any]:
    outcomes = list(selftest_results())
    failed = [f"{r.mechanism} ({r.source})" for r in outcomes if r.status == FAIL]
    if failed:
        return _check("crypto_selftest", False, f"vectors failed: {', '.join(failed[:5])}")
    return _check("crypto_selftest", True, f"{len(outcomes)} known-answer vectors passed")


def network_emulation() -> dict[str, Any]:
    backends = capability()
    working = [name for name, b in backends.items() if b.available]
    if working:
        return _check("network_emulation", True, f"profiles enforced by {', '.join(working)}")
    reasons = "; ".join(f"{name}: {b.reason}" for name, b in backends.items())
    # Not a failure: runs without a profile do not need it (the run start refuses the others).
    return _check("network_emulation", True, f"no network profiles here ({reasons})")


def health_report(
    spec: Mapping[str, Any], *, device_id: str, time_url: str, token: str
) -> dict[str, Any]:
    checks = [
        broker_round_trip(spec, device_id),
        clock_offset(time_url, token),
        crypto_selftest(),
        network_emulation(),
    ]
    return {"status": "passed" if all(c["ok"] for c in checks) else "failed", "checks": checks}
