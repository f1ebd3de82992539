"""Runs whose job carries ``spec.network_profile``: the executor sends the run's MQTT
traffic through a real emulated link (namespaces, TUN, forwarder) and a relay to a real
Mosquitto, verifies the link first, reports the proof, and tears everything down.

Needs root and /dev/net/tun (skipped otherwise); the refusals that need neither are in
test_netemu_run_refusals.py. Timing bounds are generous (a loaded, shared machine); the
emulator's accuracy is bench/netemu.py's job.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from iotsecbench_contract.jobspec import LinkSpec
from iotsecbench_contract.netprofile import LinkProfile

from iotsecbench_agent.netemu.link import Link, open_link
from iotsecbench_agent.oneway.controller import OneWayController, Target
from iotsecbench_agent.runtime import enforcement
from iotsecbench_agent.storage.recordlog import LOST, OK, RunFiles, read_records
from netemu_run_kit import DEVICE, Harness, no_link_left
from test_health import AHEAD_NS, time_url  # noqa: F401 (the platform clock fixture)
from testkit import Broker, Observer, TlsBroker

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root: network namespaces, TUN devices"),
    pytest.mark.skipif(not os.path.exists("/dev/net/tun"), reason="no /dev/net/tun here"),
]

DELAY_20MS_EACH_WAY = {"name": "20 ms each way", "spec": {"both": {"delay_ms": 20}}}
# What a loaded machine may add to a round trip on top of the profile's 40 ms.
MARGIN_MS = 30.0


def median_rtt_ms(harness: Harness, run_id: str) -> float:
    records = read_records(RunFiles.of(harness.state_dir, run_id).csv)
    assert {r.outcome for r in records} == {OK}
    return statistics.median(
        (r.t_recv_ns - r.t_send_ns) / 1e6 for r in records if r.t_recv_ns is not None
    )


def test_run_round_trips_take_the_profile_delay_when_profile_delays_20ms_each_way(
    harness: Harness, broker: Broker
) -> None:
    job = harness.job(
        broker_url=broker.url, qos=1, message_count=20, network_profile=DELAY_20MS_EACH_WAY
    )

    harness.executor.execute(job)

    assert harness.failures() == []
    median = median_rtt_ms(harness, job.run_id)
    assert 40.0 <= median < 40.0 + MARGIN_MS
    (event,) = harness.events("network_enforced")
    assert (event["job_id"], event["run_id"]) == (job.job_id, job.run_id)
    proof = event["network"]
    assert proof["backend"] == "userspace"
    assert proof["profile"] == {
        "name": "20 ms each way",
        "spec": LinkProfile.parse({"both": {"delay_ms": 20}}).to_dict(),
    }
    verification = proof["verification"]
    assert verification["ok"] is True
    assert abs(verification["measured_median_ms"] - 40.0) <= verification["tolerance_ms"]
    # Every message crossed the forwarder both ways, and the relay once each way.
    assert proof["forwarder"]["egress"]["received"] >= 20
    assert proof["forwarder"]["ingress"]["received"] >= 20
    assert proof["relay"]["connections"] == 1
    assert proof["relay"]["up"]["chunks"] >= 20
    assert proof["relay"]["down"]["chunks"] >= 20
    assert proof["relay"]["up"]["hop_p50_us"] is not None
    assert proof["relay"]["errors"] == []
    # The same proof stays beside the run's log; the records went up as usual.
    saved = json.loads(RunFiles.of(harness.state_dir, job.run_id).network.read_text())
    assert saved == proof
    chunks = harness.platform.to(f"/api/agent/runs/{job.run_id}/records/")
    assert chunks[-1].headers["x-record-total"] == "20"


def test_run_round_trips_stay_fast_when_job_has_no_profile(
    harness: Harness, broker: Broker
) -> None:
    job = harness.job(broker_url=broker.url, qos=1, message_count=20)

    harness.executor.execute(job)

    assert harness.failures() == []
    assert median_rtt_ms(harness, job.run_id) < 10.0
    assert harness.events("network_enforced") == []


def test_run_counts_lost_messages_when_link_loses_30_percent(
    harness: Harness, broker: Broker
) -> None:
    # Loss on the echo's direction only: 30 % both ways would return fewer than half of
    # the verification probes. TCP retransmits a lost segment after ≥ 200 ms (RTO), so a
    # 150 ms timeout turns a dropped echo into a lost message, as an MQTT client sees it.
    # A retransmission holds the echoes behind it too, so losses come in runs: 60 messages
    # keep "at least 10 ok" many standard deviations clear (40 once measured 9 ok in CI).
    network = {"name": "30 % loss down", "spec": {"ingress": {"loss_pct": 30}}}
    job = harness.job(
        broker_url=broker.url, qos=0, message_count=60, timeout_ms=150, network_profile=network
    )

    harness.executor.execute(job)

    assert harness.failures() == []
    records = read_records(RunFiles.of(harness.state_dir, job.run_id).csv)
    outcomes = [r.outcome for r in records]
    assert len(outcomes) == 60
    assert outcomes.count(LOST) >= 3
    assert outcomes.count(OK) >= 10
    (event,) = harness.events("network_enforced")
    assert event["network"]["forwarder"]["ingress"]["dropped_loss"] > 0


def test_run_fails_before_the_first_message_when_link_fails_verification(
    harness: Harness, broker: Broker, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The forwarder shapes 20 ms each way while the link claims the 60 ms the job's
    # profile says: a link that does not do what its profile says.
    real_open_link = open_link

    @contextlib.contextmanager
    def open_link_shaping_less(name: str, profile: LinkProfile, **kwargs: Any) -> Iterator[Link]:
        less = LinkProfile.parse({"both": {"delay_ms": 20}})
        with real_open_link(name, less, **kwargs) as link:
            link.profile = profile
            yield link

    monkeypatch.setattr(enforcement, "open_link", open_link_shaping_less)
    network = {"name": "60 ms each way", "spec": {"both": {"delay_ms": 60}}}
    job = harness.job(broker_url=broker.url, message_count=5, network_profile=network)
    observer = Observer(broker, job.spec["topic"])
    try:
        harness.executor.execute(job)
    finally:
        observer.close()

    (message,) = harness.failures()
    assert message.startswith("network profile '60 ms each way' cannot be enforced: link")
    assert "verification failed" in message
    assert "nothing was sent" in message
    assert read_records(RunFiles.of(harness.state_dir, job.run_id).csv) == []
    assert observer.messages == []
    assert harness.events("network_enforced") == []


def test_run_tears_the_link_down_and_uploads_what_it_measured_when_agent_stops(
    harness: Harness, broker: Broker
) -> None:
    job = harness.job(
        broker_url=broker.url,
        message_count=1000,
        interval_ms=20,
        network_profile=DELAY_20MS_EACH_WAY,
    )
    # What the agent's SIGTERM handler does: set the stop event the runner checks.
    stopper = threading.Timer(2.5, harness.stop.set)
    stopper.start()
    try:
        harness.executor.execute(job)
    finally:
        stopper.cancel()

    (message,) = harness.failures()
    assert message.startswith("agent stopped during the run")
    assert no_link_left(job.run_id)
    measured = len(read_records(RunFiles.of(harness.state_dir, job.run_id).csv))
    assert 0 < measured < 1000
    chunks = harness.platform.to(f"/api/agent/runs/{job.run_id}/records/")
    assert chunks[-1].headers["x-record-total"] == str(measured)
    (event,) = harness.events("network_enforced")
    assert event["network"]["forwarder"]["egress"]["received"] >= measured


def test_run_over_tls_checks_the_brokers_name_when_connecting_through_the_relay(
    harness: Harness, tls_broker: TlsBroker
) -> None:
    # The relay is at 10.77.k.1, a name the certificate does not carry; the check is
    # against the broker's own host, 127.0.0.1.
    job = harness.job(
        broker_url=tls_broker.url("1.3"),
        ca_cert=tls_broker.pki.pem("ca.crt"),
        message_count=5,
        network_profile={"name": "2 ms", "spec": {"both": {"delay_ms": 2}}},
    )

    harness.executor.execute(job)

    assert harness.failures() == []
    assert len(read_records(RunFiles.of(harness.state_dir, job.run_id).csv)) == 5
    start = time.monotonic()
    wrong_host = harness.job(
        broker_url=f"mqtts://127.0.0.2:{tls_broker.ports['1.3-wrong-host']}",
        ca_cert=tls_broker.pki.pem("ca.crt"),
        message_count=5,
        network_profile={"name": "2 ms", "spec": {"both": {"delay_ms": 2}}},
    )
    harness.executor.execute(wrong_host)
    (message,) = harness.failures()[-1:]
    assert "certificate" in message.lower() or "hostname" in message.lower()
    assert time.monotonic() - start < 30
    assert read_records(RunFiles.of(harness.state_dir, wrong_host.run_id).csv) == []


def test_run_leaves_no_namespace_behind(harness: Harness, broker: Broker) -> None:
    # Checked after every test by the harness fixture too; this is the direct statement.
    job = harness.job(broker_url=broker.url, message_count=3, network_profile=DELAY_20MS_EACH_WAY)
    harness.executor.execute(job)
    assert no_link_left(job.run_id)
    assert not Path(f"/run/netns/isb-{enforcement.link_name(job.run_id, DEVICE)}").exists()


def test_run_draws_delays_from_the_jobs_own_table_when_job_sends_it(
    harness: Harness, broker: Broker
) -> None:
    # A flat table: every draw is µ, whatever σ says.
    network = {
        "name": "job table",
        "spec": {
            "ingress": {"delay_ms": 15, "jitter_ms": 50, "distribution": "table", "table": "flat"}
        },
        "tables": {"flat": [0] * 4096},
    }
    job = harness.job(broker_url=broker.url, message_count=10, network_profile=network)

    harness.executor.execute(job)

    assert harness.failures() == []
    assert 15.0 <= median_rtt_ms(harness, job.run_id) < 15.0 + MARGIN_MS
    (event,) = harness.events("network_enforced")
    assert event["network"]["tables"] == {"egress": None, "ingress": "flat"}


def test_one_way_messages_cross_the_link_while_the_clock_probes_do_not(
    harness: Harness,
    broker: Broker,
    time_url: str,  # noqa: F811
) -> None:
    """The SRUP paper's topology: the controller sends through the broker and the device's
    emulated link (30 ms towards the device); the receiver's clock probes to the platform
    (whose clock runs 250 ms ahead) leave the device namespace, so the offset is right and
    the corrected one-way delay is the link's."""
    profile = {"name": "30 ms down", "spec": {"ingress": {"delay_ms": 30}}}
    job = harness.job(
        broker_url=broker.url, measurement="one_way", qos=1, payload_size=32,
        message_count=10, timeout_ms=300, oneway_deadline_s=30, time_url=time_url,
        network_profile=profile,
    )  # fmt: skip
    worker = threading.Thread(target=harness.executor.execute, args=(job,), daemon=True)
    worker.start()
    deadline = time.monotonic() + 30
    while not harness.events("receiver_ready") and time.monotonic() < deadline:
        assert worker.is_alive(), harness.failures()
        time.sleep(0.05)
    assert harness.events("receiver_ready"), "the receiver never got ready"

    OneWayController(
        LinkSpec(broker_url=broker.url, qos=1),
        [Target(str(job.spec["topic"]))],
        message_count=10,
        payload_size=32,
        clock=lambda: time.time_ns() + AHEAD_NS,
    ).run()
    worker.join(60)

    assert harness.failures() == []
    records = read_records(RunFiles.of(harness.state_dir, job.run_id).csv)
    assert [r.outcome for r in records] == [OK] * 10
    median = statistics.median(
        (r.t_recv_ns - r.t_send_ns) / 1e6 for r in records if r.t_recv_ns is not None
    )
    assert 30.0 - 5.0 <= median < 30.0 + MARGIN_MS
    (clock,) = harness.events("clock_offset")
    # Probes across the one-sided 30 ms link would be off by ~15 ms.
    assert abs(clock["before"]["offset_ms"] - AHEAD_NS / 1e6) < 5.0
    assert harness.events("network_enforced")[0]["network"]["verification"]["ok"] is True


def test_two_devices_of_one_host_run_the_same_run_each_behind_its_own_link(
    harness: Harness, broker: Broker, platform: Any, tmp_path: Path, key: Any
) -> None:
    """make up's local testbed: several agents on one machine take the same run, and each
    opens its own link (its namespace is named after the run AND the device)."""
    other = Harness(
        platform, tmp_path / "other", key, device_id="0a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d"
    )
    run_id = str(uuid.uuid4())
    jobs = [
        kit.job(run_id=run_id, broker_url=broker.url, qos=1, message_count=15,
                network_profile=DELAY_20MS_EACH_WAY)
        for kit in (harness, other)
    ]  # fmt: skip
    threads = [
        threading.Thread(target=kit.executor.execute, args=(job,))
        for kit, job in zip((harness, other), jobs)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)

    for kit in (harness, other):
        assert kit.failures() == []
        assert 40.0 <= median_rtt_ms(kit, run_id) < 40.0 + MARGIN_MS
        assert no_link_left(run_id, kit.device_id)
