from __future__ import annotations

import uuid

import pytest

from iotsecbench_contract import topics


def test_control_plane_topics_sit_under_the_agents_prefix() -> None:
    device = str(uuid.UUID(int=7))
    assert topics.jobs_topic(device) == f"iotsecbench/agents/{device}/jobs"
    assert topics.agent_topic(device, "heartbeat") == f"iotsecbench/agents/{device}/heartbeat"
    assert topics.platform_subscriptions() == [
        "iotsecbench/agents/+/status",
        "iotsecbench/agents/+/heartbeat",
        "iotsecbench/agents/+/events",
    ]


def test_an_unknown_control_plane_topic_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown control-plane topic 'secrets'"):
        topics.agent_topic("d1", "secrets")


@pytest.mark.parametrize(
    ("topic", "device"),
    [
        ("iotsecbench/agents/abc/status", "abc"),
        ("iotsecbench/agents//status", None),
        ("iotsecbench/data/1/abc", None),
        ("iotsecbench/agents/abc/status/extra", None),
    ],
)
def test_device_of_reads_only_control_plane_topics(topic: str, device: str | None) -> None:
    assert topics.device_of(topic) == device


def test_data_and_health_topics_name_run_device_and_job() -> None:
    assert topics.data_topic(12, "d1") == "iotsecbench/data/12/d1"
    assert topics.health_topic("d1", "j9") == "iotsecbench/health/d1/j9"


def test_srup_topic_is_the_first_64_bits_of_a_uuid_in_hex() -> None:
    device = "0123456789abcdef-fedc-ba98-7654-3210".replace("-", "")
    device_uuid = str(uuid.UUID(device))
    assert topics.srup_topic(topics.srup_id(device_uuid)) == "SRUP/0123456789abcdef"
    # Any other text: the first 8 bytes of its SHA-256, so the id is stable.
    assert topics.srup_id("bench-host") == topics.srup_id("bench-host")
    assert len(topics.srup_topic(topics.srup_id("bench-host"))) == len("SRUP/") + 16
