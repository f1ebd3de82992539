"""A run whose network profile cannot be enforced fails before anything is sent, with a
reason that says what to do; none of these need root (each refusal comes first)."""

from __future__ import annotations

import os

import pytest

from iotsecbench_agent.storage.recordlog import RunFiles, RunMeta, read_records
from netemu_run_kit import Harness

TIM_BAD_3G = {
    "ingress": {
        "delay_ms": 122.649579,
        "jitter_ms": 40.359329,
        "distribution": "table",
        "table": "TIM.bad.3G.no_roaming",
    }
}


def only_failure(harness: Harness, run_id: str) -> str:
    (message,) = harness.failures()
    assert RunMeta.load(RunFiles.of(harness.state_dir, run_id).meta).status == "failed"
    assert harness.events("network_enforced") == []
    return message


def test_run_fails_saying_root_is_needed_when_agent_is_not_root(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    job = harness.job(network_profile={"name": "LAN", "spec": {}})

    harness.executor.execute(job)

    message = only_failure(harness, job.run_id)
    assert message == (
        "network profile 'LAN' cannot be enforced: needs root (network namespaces and TUN "
        "devices) (run the agent as root on a Linux host with iproute2 and either sch_netem "
        "or /dev/net/tun, or start the run without a network profile); nothing was sent"
    )
    assert read_records(RunFiles.of(harness.state_dir, job.run_id).csv) == []


def test_run_fails_naming_the_table_when_profile_table_is_nowhere(harness: Harness) -> None:
    spec = {"ingress": {**TIM_BAD_3G["ingress"], "table": "Nowhere.bad.3G"}}
    job = harness.job(network_profile={"name": "Nowhere 3G", "spec": spec})

    harness.executor.execute(job)

    message = only_failure(harness, job.run_id)
    assert message.startswith(
        "network profile 'Nowhere 3G' cannot be enforced: measured table 'Nowhere.bad.3G' "
        "not found in "
    )
    assert "send its values in spec.network_profile.tables" in message
    assert message.endswith("; nothing was sent")


def test_run_fails_naming_the_field_when_profile_spec_is_invalid(harness: Harness) -> None:
    job = harness.job(network_profile={"name": "x", "spec": {"both": {"loss_pct": 120}}})

    harness.executor.execute(job)

    assert only_failure(harness, job.run_id) == (
        "spec.network_profile.spec: both.loss_pct: 120 is above 100; allowed: a number from "
        "0 to 100 (percent), from 0 to 100"
    )


@pytest.mark.parametrize(
    ("network", "expected"),
    [
        ("LAN", "spec.network_profile must be an object"),
        ({"spec": {}}, "spec.network_profile.name must be a non-empty string"),
        (
            {"name": "x", "spec": {}, "tables": {"../etc": [0]}},
            "spec.network_profile.tables: '../etc' is not a table name",
        ),
        (
            {"name": "x", "spec": {}, "tables": {"t": [0.5]}},
            "spec.network_profile.tables.t must be a list of 1–16384 integers",
        ),
    ],
)
def test_run_fails_when_network_profile_field_is_malformed(
    harness: Harness, network: object, expected: str
) -> None:
    job = harness.job(network_profile=network)

    harness.executor.execute(job)

    assert only_failure(harness, job.run_id) == expected


def test_run_fails_when_job_kind_cannot_go_through_a_link(harness: Harness) -> None:
    job = harness.job(
        kind="cipher_bench",
        mechanisms=["aes-128-cbc"],
        data_sizes=[16],
        repetitions=1,
        network_profile={"name": "LAN", "spec": {}},
    )

    harness.executor.execute(job)

    assert only_failure(harness, job.run_id) == (
        "spec.network_profile is not supported for cipher_bench runs (only MQTT and SRUP "
        "round trips go through an emulated link)"
    )
