from __future__ import annotations

import json
from typing import Any

import pytest

from iotsecbench_contract.brokerurl import BrokerAddress, parse_mqtt_url, redact_url
from iotsecbench_contract.errors import BrokerUrlError, JobSpecError
from iotsecbench_contract.jobspec import (
    DEFAULT_RECONNECT_BUDGET_S,
    RECORDS,
    SAMPLES,
    DataTopic,
    HealthCheckSpec,
    LinkSpec,
    NetworkProfileJob,
    OneWayReceiverFields,
    Schedule,
    Upload,
    choice_field,
    hex_field,
)

PEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"


def test_link_defaults_and_round_trip() -> None:
    link = LinkSpec.parse({"broker_url": "mqtt://broker:1883", "qos": 0})
    assert link == LinkSpec(broker_url="mqtt://broker:1883")
    assert link.reconnect_budget_s == DEFAULT_RECONNECT_BUDGET_S
    assert not link.mqtt5
    assert link.to_dict() == {
        "broker_url": "mqtt://broker:1883",
        "mqtt_version": "3.1.1",
        "qos": 0,
        "reconnect_budget_s": 30.0,
    }
    assert LinkSpec.parse(link.to_dict()) == link


def test_tls_link_pins_1_3_by_default_and_round_trips() -> None:
    link = LinkSpec.parse(
        {"broker_url": "mqtts://broker", "mqtt_version": "5", "qos": 2, "ca_cert": PEM}
    )
    assert (link.tls_version, link.mqtt5, link.broker.port) == ("1.3", True, 8883)
    assert LinkSpec.parse(link.to_dict()) == link
    assert "ca_cert" not in repr(link)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({}, "spec.broker_url is missing"),
        ({"broker_url": "mqtt://x"}, r"spec.qos must be an integer in 0..2, got None"),
        ({"broker_url": "http://x"}, "spec.broker_url must start with mqtt:// or mqtts://"),
        ({"broker_url": "mqtt://x", "mqtt_version": "4"}, "mqtt_version '4' is not supported"),
        ({"broker_url": "mqtt://x", "qos": 3}, r"spec.qos must be an integer in 0..2, got 3"),
        ({"broker_url": "mqtt://x", "tls_version": "1.3"}, "need an mqtts:// broker_url"),
        ({"broker_url": "mqtts://x", "tls_version": "1.1"}, "'1.1' is not supported"),
        ({"broker_url": "mqtts://x", "client_cert": PEM}, "go together"),
        ({"broker_url": "mqtts://x", "ca_cert": "nope"}, "spec.ca_cert must be PEM text"),
        (
            {"broker_url": "mqtt://x", "qos": 1, "reconnect_budget_s": -1},
            r"spec.reconnect_budget_s must be a number in 0..3600, got -1",
        ),
    ],
)
def test_link_refuses_bad_fields_naming_them(spec: dict[str, Any], message: str) -> None:
    with pytest.raises(JobSpecError, match=message):
        LinkSpec.parse(spec)


def test_schedule_parses_round_trips_and_samples() -> None:
    spec = {
        "payload_size": 16,
        "message_count": 3,
        "interval_ms": 2,
        "timeout_ms": 500,
        "interval_distribution": "uniform",
        "interval_seed": 7,
    }
    schedule = Schedule.parse(spec, min_payload=1, max_payload=64)
    assert schedule.to_dict() == {**spec, "interval_ms": 2.0, "timeout_ms": 500.0}
    assert schedule.timeout_ns == 500_000_000
    sample = schedule.interval_sampler()
    assert 0 <= sample() <= 4_000_000
    with pytest.raises(JobSpecError, match=r"spec.payload_size must be an integer in 1..8"):
        Schedule.parse(spec, min_payload=1, max_payload=8)
    with pytest.raises(JobSpecError, match="interval_seed must be an integer"):
        Schedule.parse({**spec, "interval_seed": True}, min_payload=1, max_payload=64)
    with pytest.raises(JobSpecError, match="interval_distribution 'gamma'"):
        Schedule.parse({**spec, "interval_distribution": "gamma"}, min_payload=1, max_payload=64)


def test_field_helpers() -> None:
    assert hex_field({"k": "00ff"}, "k") == b"\x00\xff"
    assert hex_field({}, "k") is None
    with pytest.raises(JobSpecError, match=r"spec\.k must be a hex string"):
        hex_field({"k": "zz"}, "k")
    assert choice_field({}, "c", ("a", "b"), "a") == "a"
    with pytest.raises(JobSpecError, match=r"spec.c 'x' is not supported \(one of: a, b\)"):
        choice_field({"c": "x"}, "c", ("a", "b"), "a")


def test_platform_parts_serialise_as_the_wire_has_them() -> None:
    run = "https://p/api/agent/runs/r1"
    assert Upload(run, RECORDS, 20_000).to_dict() == {
        "url": f"{run}/records/",
        "chunk_records": 20_000,
    }
    assert Upload(run, SAMPLES, 5_000).to_dict() == {
        "url": f"{run}/samples/",
        "chunk_samples": 5_000,
    }
    with pytest.raises(JobSpecError):
        Upload(run, "logs", 1).to_dict()
    assert DataTopic(None).to_dict() == {}
    assert DataTopic("t", 5).to_dict() == {"topic": "t", "mqttsn_topic_id": 5}
    profile = NetworkProfileJob(
        name="3G", spec={"egress": {"table": "A"}, "ingress": {"delay_ms": 1}}
    )
    assert profile.table_names() == {"A"}
    assert profile.to_dict() == {"name": "3G", "spec": dict(profile.spec), "tables": {}}


def test_one_way_fields_round_trip_in_the_old_key_order() -> None:
    fields = OneWayReceiverFields(
        time_url="https://p/api/agent/time/",
        deadline_s=61.5,
        security_key_sealed={"epk": "x"},
        srup_controller_public_key="pk",
        srup_controller_id="00ff",
    )
    wire = fields.to_dict()
    assert list(wire) == [
        "time_url",
        "oneway_deadline_s",
        "security_key_sealed",
        "srup_controller_public_key",
        "srup_controller_id",
    ]
    assert OneWayReceiverFields.parse(wire) == fields
    with pytest.raises(JobSpecError, match=r"spec\.time_url must be the platform.s http"):
        OneWayReceiverFields.parse({**wire, "time_url": "ftp://x"})
    with pytest.raises(JobSpecError, match=r"spec.oneway_deadline_s must be a number >= 1"):
        OneWayReceiverFields.parse({**wire, "oneway_deadline_s": 0})


def test_health_check_spec() -> None:
    spec = HealthCheckSpec("mqtt://b", "iotsecbench/health/d/j", "http://p/api/agent/time/")
    wire = json.dumps(spec.to_dict())
    assert wire == (
        '{"broker_url": "mqtt://b", "topic": "iotsecbench/health/d/j", '
        '"time_url": "http://p/api/agent/time/"}'
    )
    assert HealthCheckSpec.parse(json.loads(wire)) == spec
    with pytest.raises(JobSpecError, match=r"spec\.topic is missing"):
        HealthCheckSpec.parse({"broker_url": "mqtt://b"})


def test_broker_urls() -> None:
    assert parse_mqtt_url("mqtts://u:p%40ss@h") == BrokerAddress("h", 8883, True, "u", "p@ss")
    assert redact_url("mqtt://u:secret@h:1") == "mqtt://u:***@h:1"
    with pytest.raises(BrokerUrlError, match="has an invalid port: 'mqtt://u:\\*\\*\\*@h:x'"):
        parse_mqtt_url("mqtt://u:secret@h:x")
    with pytest.raises(BrokerUrlError, match="--broker has no host"):
        parse_mqtt_url("mqtt://", what="--broker")
