"""Which runs are repeats and which are paired for a comparison (results.pairing)."""

from __future__ import annotations

from typing import Any

from results.pairing import Candidate, conditions, pairs, repeat_key, treatment
from results.tests.conftest import messaging_spec

DEVICES = frozenset({"pi-1", "pi-2", "pi-3", "pi-4", "pi-5"})


def _candidate(key: str, devices: frozenset[str] = DEVICES, kind: str = "messaging", **spec: Any):
    return Candidate(key=key, kind=kind, spec=messaging_spec(**spec), device_ids=devices)


def test_srup_runs_pair_with_mqtt_per_network_condition_and_never_across():
    # The SRUP paper's design: SRUP against plain MQTT under each network condition.
    runs = [
        _candidate("srup-lan", network_profile="lan", protocol="srup", srup_signature="rsa-2048"),
        _candidate("mqtt-lan", network_profile="lan"),
        _candidate("mqtt-4g", network_profile="4g"),
        _candidate("srup-4g", network_profile="4g", protocol="srup", srup_signature="rsa-2048"),
    ]
    found = pairs(runs)
    assert [(p.baseline, p.treatment) for p in found] == [
        ("mqtt-lan", "srup-lan"),  # MQTT is the baseline although given second
        ("mqtt-4g", "srup-4g"),
    ]
    assert found[0].differs_in == {
        "protocol": ("mqtt", "srup"),
        "srup_signature": (None, "rsa-2048"),
    }


def test_payload_security_pairs_per_condition_too():
    runs = [
        _candidate("plain-lan", network_profile="lan"),
        _candidate("signed-lan", network_profile="lan", security="rsa-2048-pkcs1v15"),
        _candidate("signed-4g", network_profile="4g-medium", security="rsa-2048-pkcs1v15"),
    ]
    found = pairs(runs)
    assert [(p.baseline, p.treatment) for p in found] == [("plain-lan", "signed-lan")]
    assert found[0].differs_in == {"security": ("none", "rsa-2048-pkcs1v15")}


def test_baseline_is_the_run_without_security_even_when_given_second():
    found = pairs([_candidate("aes", security="aes-128-cbc"), _candidate("plain")])
    assert [(p.baseline, p.treatment) for p in found] == [("plain", "aes")]


def test_two_mechanisms_pair_in_the_order_given():
    found = pairs([_candidate("ed", security="ed25519"), _candidate("aes", security="aes-128-cbc")])
    assert [(p.baseline, p.treatment) for p in found] == [("ed", "aes")]


def test_tls_pairs_with_tcp_although_broker_url_and_ca_differ():
    tls = _candidate(
        "tls",
        transport="tls1.3",
        tls_version="1.3",
        broker_url="mqtts://127.0.0.1:8883",
        ca_cert="-----BEGIN CERTIFICATE-----",
    )
    found = pairs([tls, _candidate("tcp")])
    assert [(p.baseline, p.treatment) for p in found] == [("tcp", "tls")]
    assert found[0].differs_in == {"transport": ("tcp", "tls1.3")}


def test_runs_under_other_conditions_devices_or_kinds_are_not_paired():
    base = _candidate("base")
    assert pairs([base, _candidate("qos2", security="ed25519", qos=2)]) == []
    assert pairs([base, _candidate("other", DEVICES - {"pi-5"}, security="ed25519")]) == []
    assert pairs([base, _candidate("bench", kind="throughput", security="ed25519")]) == []


def test_repeats_are_not_pairs_but_share_a_repeat_key():
    a, b = _candidate("a", interval_seed=1), _candidate("b", interval_seed=2, ca_cert="x")
    assert pairs([a, b]) == []
    assert repeat_key(a.spec) == repeat_key(b.spec)
    assert repeat_key(a.spec) != repeat_key(messaging_spec(payload_size=128))


def test_conditions_and_treatment_split_the_spec():
    spec = messaging_spec(network_profile="lan")
    assert treatment(spec) == {
        "protocol": "mqtt",
        "mqtt_version": "3.1.1",
        "transport": "tcp",
        "security": "none",
    }
    assert set(conditions(spec)) == {
        "qos",
        "payload_size",
        "message_count",
        "interval_ms",
        "interval_distribution",
        "measurement",
        "timeout_ms",
        "network_profile",
    }
