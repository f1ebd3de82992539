"""Which runs are repeats and which are paired for a comparison (results.pairing)."""

from __future__ import annotations

from typing import Any

from results.pairing import Candidate, conditions, pairs, repeat_key, treatment
from results.tests.conftest import messaging_spec

DEVICES = frozenset({"pi-1", "pi-2", "pi-3", "pi-4", "pi-5"})


def _candidate(
    key: str,
    devices: frozenset[str] = DEVICES,
    kind: str = "messaging",
    repeat: int = 1,
    **spec: Any,
):
    return Candidate(
        key=key, kind=kind, spec=messaging_spec(**spec), device_ids=devices, repeat=repeat
    )


def _sides(found) -> list[tuple[Any, Any]]:
    """Each pair's baseline and treatment: a run's key, or a tuple of keys when aggregated."""
    return [
        (p.baseline[0], p.treatment[0]) if p.repeat is not None else (p.baseline, p.treatment)
        for p in found
    ]


def test_srup_runs_pair_with_mqtt_per_network_condition_never_across_both():
    # The SRUP paper's design: SRUP against plain MQTT under each network condition.
    runs = [
        _candidate("srup-lan", network_profile="lan", protocol="srup", srup_signature="rsa-2048"),
        _candidate("mqtt-lan", network_profile="lan"),
        _candidate("mqtt-4g", network_profile="4g"),
        _candidate("srup-4g", network_profile="4g", protocol="srup", srup_signature="rsa-2048"),
    ]
    found = pairs(runs)
    # SRUP-lan against MQTT-4g differs in two parameters: never a pair.
    assert _sides(found) == [
        ("mqtt-lan", "srup-lan"),  # MQTT is the baseline although given second
        ("srup-lan", "srup-4g"),  # the network condition is a parameter too
        ("mqtt-lan", "mqtt-4g"),
        ("mqtt-4g", "srup-4g"),
    ]
    assert [p.parameter for p in found] == [
        "protocol",
        "network_profile",
        "network_profile",
        "protocol",
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
    assert _sides(found) == [("plain-lan", "signed-lan"), ("signed-lan", "signed-4g")]
    assert found[0].differs_in == {"security": ("none", "rsa-2048-pkcs1v15")}


def test_baseline_is_the_run_without_security_even_when_given_second():
    found = pairs([_candidate("aes", security="aes-128-cbc"), _candidate("plain")])
    assert _sides(found) == [("plain", "aes")]


def test_two_mechanisms_pair_in_the_order_given():
    found = pairs([_candidate("ed", security="ed25519"), _candidate("aes", security="aes-128-cbc")])
    assert _sides(found) == [("ed", "aes")]


def test_the_null_mechanism_is_the_baseline_of_a_real_one_never_the_treatment():
    found = pairs([_candidate("aes", security="aes-128-cbc"), _candidate("null", security="null")])
    assert _sides(found) == [("null", "aes")]


def test_the_smaller_value_is_the_baseline_of_a_condition_pair():
    found = pairs([_candidate("big", payload_size=1024), _candidate("small", payload_size=16)])
    assert _sides(found) == [("small", "big")]
    assert found[0].parameter == "payload_size"
    assert found[0].differs_in == {"payload_size": (16, 1024)}


def test_runs_that_differ_in_two_parameters_are_not_paired():
    found = pairs([_candidate("a"), _candidate("b", security="aes-128-cbc", payload_size=1024)])
    assert found == []


def test_single_runs_pair_only_within_one_repeat():
    found = pairs(
        [
            _candidate("aes-1", security="aes-128-cbc", repeat=1),
            _candidate("none-2", repeat=2),
            _candidate("none-1", repeat=1),
        ]
    )
    # aes has one run: it pairs with none's run of the same repeat, not with repeat 2's.
    assert _sides(found) == [("none-1", "aes-1")]
    assert found[0].repeat == 1


def test_a_three_mechanism_two_repeat_matrix_gives_three_pairs_over_repeats():
    # The matrix: none / null / aes-128-cbc, two repeats each, given shuffled. It
    # used to give 12 pairs, across repeats and some reversed ("aes-128-cbc -> null").
    runs = [
        _candidate("aes-1", security="aes-128-cbc", repeat=1),
        _candidate("null-1", security="null", repeat=1),
        _candidate("none-1", repeat=1),
        _candidate("null-2", security="null", repeat=2),
        _candidate("none-2", repeat=2),
        _candidate("aes-2", security="aes-128-cbc", repeat=2),
    ]
    assert _sides(pairs(runs)) == [
        (("null-1", "null-2"), ("aes-1", "aes-2")),
        (("none-1", "none-2"), ("aes-1", "aes-2")),
        (("none-1", "none-2"), ("null-1", "null-2")),
    ]
    assert all(p.repeat is None for p in pairs(runs))


def test_tls_pairs_with_tcp_although_broker_url_and_ca_differ():
    tls = _candidate(
        "tls",
        transport="tls1.3",
        tls_version="1.3",
        broker_url="mqtts://127.0.0.1:8883",
        ca_cert="-----BEGIN CERTIFICATE-----",
    )
    found = pairs([tls, _candidate("tcp")])
    assert _sides(found) == [("tcp", "tls")]
    assert found[0].parameter == "transport"
    assert found[0].differs_in == {"transport": ("tcp", "tls1.3"), "tls_version": (None, "1.3")}


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
