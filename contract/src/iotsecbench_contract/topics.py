"""The MQTT topic scheme, one place for the platform, its broker ACLs and the agents.

- ``iotsecbench/agents/<device>/{jobs,status,heartbeat,events}``: the control plane. The
  platform publishes signed jobs on ``jobs``; the agent publishes the other three.
- ``iotsecbench/data/<run>/<device>``: a messaging run's data topic (MQTT round trips,
  one-way delays). Its length is part of every MQTT message's size (results' size model).
- ``iotsecbench/health/<device>/<job>``: a health check's echo topic.
- ``SRUP/<device's 64-bit SRUP id in hex>``: a SRUP run's topic, as the reference library
  names it.
- ``<level>/…/<device>``: a topic a design chose (up to OWN_TOPIC_MAX_LEVELS levels, its
  last the device's id), on the platform's broker.
"""

from __future__ import annotations

import hashlib
import uuid

ROOT = "iotsecbench"
AGENTS = f"{ROOT}/agents"
DATA = f"{ROOT}/data"
HEALTH = f"{ROOT}/health"
SRUP_PREFIX = "SRUP/"
SRUP_ID_HEX_DIGITS = 16

# What an agent publishes under its prefix; the platform subscribes to these for every agent.
STATUS = "status"
HEARTBEAT = "heartbeat"
EVENTS = "events"
AGENT_WRITES = (STATUS, HEARTBEAT, EVENTS)
JOBS = "jobs"


def agent_prefix(device_id: str) -> str:
    """``iotsecbench/agents/<device>``, under which an agent's control-plane topics live."""
    return f"{AGENTS}/{device_id}"


def agent_topic(device_id: str, kind: str) -> str:
    """One control-plane topic of a device: ``kind`` is ``jobs`` or one of AGENT_WRITES."""
    if kind != JOBS and kind not in AGENT_WRITES:
        raise ValueError(f"unknown control-plane topic {kind!r}")
    return f"{agent_prefix(device_id)}/{kind}"


def jobs_topic(device_id: str) -> str:
    return agent_topic(device_id, JOBS)


def platform_subscriptions() -> list[str]:
    """What the platform's control-plane listener subscribes to: every agent's writes."""
    return [f"{AGENTS}/+/{kind}" for kind in AGENT_WRITES]


def device_of(topic: str) -> str | None:
    """The device id of a control-plane topic ``iotsecbench/agents/<device>/<kind>``."""
    parts = topic.split("/")
    if len(parts) != 4 or f"{parts[0]}/{parts[1]}" != AGENTS or not parts[2]:
        return None
    return parts[2]


def data_topic(run_id: object, device_id: object) -> str:
    return f"{DATA}/{run_id}/{device_id}"


# A design's own topic (backend experiments.addressing) on the platform's broker: at most
# this many levels, the last one the device's id (the broker grants each device these).
OWN_TOPIC_MAX_LEVELS = 6


def own_topic_filters(device_id: object) -> list[str]:
    """``+/<device>``, ``+/+/<device>`` … up to OWN_TOPIC_MAX_LEVELS levels: the topics a
    device may choose on the platform's broker."""
    return ["+/" * depth + str(device_id) for depth in range(1, OWN_TOPIC_MAX_LEVELS)]


def health_topic(device_id: object, job_id: object) -> str:
    return f"{HEALTH}/{device_id}/{job_id}"


def srup_id(text: str) -> int:
    """A 64-bit SRUP identity for an agent id: a UUID's first 64 bits (the reference
    library's device IDs are half a UUID in hex), any other text's first 8 SHA-256 bytes."""
    try:
        return int(uuid.UUID(text).hex[:SRUP_ID_HEX_DIGITS], 16)
    except ValueError:
        return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def srup_topic(device_id: int) -> str:
    """``SRUP/<64-bit id as 16 hex digits>``."""
    return f"{SRUP_PREFIX}{device_id:0{SRUP_ID_HEX_DIGITS}x}"
