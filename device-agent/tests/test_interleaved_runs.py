"""Interleaved runs: the MQTT and CoAP round-trip runners alternate mechanisms message by
message on one connection, against a real Mosquitto / the agent's CoAP echo server and
real AES (integration)."""

from __future__ import annotations

import threading
import uuid
from typing import Any

import pytest
from iotsecbench_contract.errors import JobSpecError
from iotsecbench_contract.interleave import INDEX_BYTES
from iotsecbench_contract.mechanisms import describe

from iotsecbench_agent.errors import UnsupportedJob
from iotsecbench_agent.jobkinds import runner_for
from iotsecbench_agent.links.mqtt_wire import publish_packet_size
from iotsecbench_agent.runners import RunClock, RunContext
from iotsecbench_agent.runners.interleave import Rotation
from iotsecbench_agent.security.base import DecryptError
from iotsecbench_agent.storage.recordlog import OK, Record
from testkit import Broker, Observer

pytestmark = pytest.mark.integration

DEVICE = "6f1c1a52-3c1e-4a8e-9a57-1d0c2b7e9f10"
ROTATION = ["none", "null", "aes-128-cbc"]
PAYLOAD = 66


def run(job_spec: dict[str, Any]) -> list[Record]:
    records: list[Record] = []
    context = RunContext(
        run_id=str(uuid.uuid4()),
        device_id=DEVICE,
        clock=RunClock(),
        emit=records.append,
        stop=threading.Event(),
    )
    runner_for("messaging", job_spec)(job_spec, context).execute()
    return records


def mqtt_spec(broker: Broker, **overrides: Any) -> dict[str, Any]:
    return {
        "protocol": "mqtt",
        "mqtt_version": "3.1.1",
        "qos": 1,
        "security": "none",
        "interleave_mechanisms": ROTATION,
        "payload_size": PAYLOAD,
        "message_count": 30,
        "interval_ms": 0,
        "measurement": "round_trip",
        "timeout_ms": 2000,
        "broker_url": broker.url,
        "topic": f"iotsecbench/data/{uuid.uuid4()}/{DEVICE}",
        **overrides,
    }


def secured_size(name: str) -> int:
    return INDEX_BYTES + PAYLOAD + describe(name).overhead(PAYLOAD)


def test_mqtt_interleaved_run_alternates_mechanisms_and_unsecures_each_echo(
    broker: Broker,
) -> None:
    job_spec = mqtt_spec(broker)
    observer = Observer(broker, job_spec["topic"])
    try:
        records = run(job_spec)
        observer.wait_for(lambda o: len(o.messages) == 30, what="30 payloads")
    finally:
        observer.close()

    assert [r.seq for r in records] == list(range(30))
    assert [r.mechanism for r in records] == ROTATION * 10
    # Every echo came back, was unsecured with its own mechanism and carried its tag.
    assert {r.outcome for r in records} == {OK}
    wire = [payload for _topic, payload, _retained in observer.messages]
    assert [p[0] for p in wire] == [0, 1, 2] * 10  # the clear mechanism index
    assert [len(p) for p in wire] == [secured_size(n) for n in ROTATION] * 10
    tag = (3).to_bytes(8, "big")
    assert wire[3][INDEX_BYTES:].startswith(tag)  # none: the payload itself
    assert wire[5][INDEX_BYTES:].find(tag) == -1  # aes-128-cbc: no plaintext tag on the wire
    # The wire size of each message is its own mechanism's (the index byte included).
    assert [r.wire_bytes for r in records[:3]] == [
        publish_packet_size(topic=job_spec["topic"], payload_size=secured_size(n), qos=1)
        for n in ROTATION
    ]
    # The harness floor beside every secured message, none beside the unsecured ones.
    for r in records:
        assert (r.floor_secure_ns is None) == (r.mechanism == "none")
        assert r.unsecure_ns is not None


def test_coap_interleaved_run_alternates_mechanisms_on_one_echo_server() -> None:
    job_spec = {
        "protocol": "coap",
        "measurement": "round_trip",
        "security": "none",
        "interleave_mechanisms": ["none", "aes-128-cbc"],
        "payload_size": PAYLOAD,
        "message_count": 12,
        "interval_ms": 0,
        "timeout_ms": 2000,
    }
    records = run(job_spec)

    assert [r.mechanism for r in records] == ["none", "aes-128-cbc"] * 6
    assert {r.outcome for r in records} == {OK}


def test_interleaved_job_is_refused_with_security_or_a_lone_mechanism(broker: Broker) -> None:
    with pytest.raises(JobSpecError, match="leave security at none"):
        run(mqtt_spec(broker, security="aes-128-cbc"))
    with pytest.raises(JobSpecError, match="2 to 8 mechanisms"):
        run(mqtt_spec(broker, interleave_mechanisms=["aes-128-cbc"]))


def test_rotation_refuses_an_index_outside_it_as_a_decrypt_error() -> None:
    rotation = Rotation(("none", "aes-128-cbc"))
    rotation.select(1)
    secured = rotation.secure(b"x" * 20)
    assert secured[0] == 1
    assert rotation.unsecure(secured) == b"x" * 20
    with pytest.raises(DecryptError, match="index 7"):
        rotation.unsecure(b"\x07" + secured[1:])


def test_interleaved_job_names_a_mechanism_the_agent_lacks(
    broker: Broker, monkeypatch: pytest.MonkeyPatch
) -> None:
    from iotsecbench_agent.security import registry

    # An agent built without AES (the registry's list without it; the registry untouched).
    known = [n for n in registry.names() if n != "aes-128-cbc"]
    monkeypatch.setattr(registry, "names", lambda: known)
    with pytest.raises(UnsupportedJob, match="'aes-128-cbc' is not supported"):
        run(mqtt_spec(broker))
