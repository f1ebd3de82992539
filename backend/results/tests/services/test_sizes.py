"""The message-size breakdown: byte counts worked by hand, and the model checked against the
device agent's own encoders (the agent is installed in the development venv)."""

from __future__ import annotations

import re
import uuid

import pytest
from iotsecbench_contract.framing import mqtt_publish_header_bytes as mqtt_header_bytes
from iotsecbench_contract.mechanisms import NAMES as MECHANISM_NAMES
from iotsecbench_contract.mechanisms import describe

from experiments.models import RunDevice
from experiments.services.jobs import _job_for
from measurements.models import MessageRecord
from results.services.size_model import SRUP_TOPIC, Framing, mechanism_framing, message_parts
from results.services.sizes import (
    ETHERNET_HEADER_BYTES,
    IPV4_HEADER_BYTES,
    TCP_HEADER_BYTES,
    TCP_MSS,
    TCP_TIMESTAMPS_BYTES,
    WireBytes,
    run_address,
    run_sizes_compute,
    run_wire_bytes,
    size_breakdown,
)
from results.tests.conftest import MS, messaging_spec

RUN_ID = uuid.UUID(int=1)
TOPIC = "iotsecbench/data/" + "r" * 36 + "/" + "d" * 36  # as dispatched: 90 bytes
HEADERS = ETHERNET_HEADER_BYTES + IPV4_HEADER_BYTES + TCP_HEADER_BYTES + TCP_TIMESTAMPS_BYTES


def _bytes(breakdown) -> dict[str, int]:
    return {c.key: c.bytes for c in breakdown.components if c.bytes}


def _wire(median: int) -> WireBytes:
    return WireBytes(messages=10, median=median, min=median, max=median)


# --- MQTT header --------------------------------------------------------------------------


def test_qos1_publish_of_payload_1_to_test_d1_is_14_bytes():
    # fixed header: type 0x32 (1) + remaining length 12 (1); topic length (2); "test/d1" (7);
    # packet id (2); payload "1" (1): 1 + 1 + 2 + 7 + 2 + 1 = 14 bytes of TCP payload.
    header = mqtt_header_bytes(topic_bytes=len("test/d1"), body_bytes=1, qos=1, mqtt5=False)
    assert header == 6
    assert header + len("test/d1") + 1 == 14


def test_mqtt_header_drops_the_packet_id_at_qos0_and_adds_a_properties_length_in_mqtt5():
    assert mqtt_header_bytes(topic_bytes=7, body_bytes=1, qos=0, mqtt5=False) == 4
    assert mqtt_header_bytes(topic_bytes=7, body_bytes=1, qos=1, mqtt5=True) == 7


def test_mqtt_remaining_length_takes_a_second_byte_from_128():
    # remaining = 2 + 1 + 2 + body: 127 fits one varint byte, 128 needs two.
    assert mqtt_header_bytes(topic_bytes=1, body_bytes=122, qos=1, mqtt5=False) == 6
    assert mqtt_header_bytes(topic_bytes=1, body_bytes=123, qos=1, mqtt5=False) == 7


def test_mqtt_parts_add_up_to_the_agents_publish_packet_size():
    from iotsecbench_agent.links.mqtt_wire import publish_packet_size

    for qos in (0, 1, 2):
        for version in ("3.1.1", "5"):
            for payload in (8, 66, 121, 122, 200, 20_000):
                spec = messaging_spec(qos=qos, mqtt_version=version, payload_size=payload)
                parts = message_parts(spec=spec, address=TOPIC)
                expected = publish_packet_size(
                    topic=TOPIC, payload_size=payload, qos=qos, mqtt5=version == "5"
                )
                assert sum(parts.values()) == expected, (qos, version, payload)


# --- security mechanisms -------------------------------------------------------------------


def test_aes_128_cbc_adds_a_16_byte_iv_and_pads_66_bytes_to_80():
    parts = message_parts(spec=messaging_spec(security="aes-128-cbc"), address="test/d1")
    # 66 = 4 blocks + 2 bytes: 14 bytes of PKCS#7 padding; the IV goes in front.
    assert (parts["iv"], parts["payload"], parts["padding"], parts["tag"]) == (16, 66, 14, 0)


def test_cbc_pads_a_whole_block_when_the_payload_fills_its_last_one():
    assert Framing(iv=16, pad_block=16).padding(64) == 16
    assert Framing(iv=8, pad_block=8).padding(63) == 1


def test_aead_adds_a_nonce_and_a_tag_and_a_signature_its_length():
    gcm = message_parts(spec=messaging_spec(security="aes-256-gcm"), address="test/d1")
    assert (gcm["iv"], gcm["tag"], gcm["padding"]) == (12, 16, 0)
    rsa = message_parts(spec=messaging_spec(security="rsa-4096-pss"), address="test/d1")
    assert rsa["signature"] == 512


def _framing_numbers(framing: str, *names: str) -> int:
    """Sum of the `name(n)` fields of an agent framing string, e.g. iv(16)."""
    pattern = rf"\b(?:{'|'.join(names)})\((\d+)\)"
    return sum(int(n) for n in re.findall(pattern, framing))


@pytest.mark.parametrize("name", MECHANISM_NAMES)
def test_every_catalogue_mechanism_has_the_framing_the_contract_states(name):
    info = describe(name)
    framing = mechanism_framing(name)
    assert framing is not None
    for size in range(0, 40):
        total = framing.iv + framing.padding(size) + framing.tag + framing.signature
        assert total == info.overhead(size), (name, size)
    assert framing.iv == _framing_numbers(info.framing, "iv", "nonce", "zeros")
    assert framing.tag == _framing_numbers(info.framing, "tag", "mac")
    assert framing.signature == _framing_numbers(info.framing, "signature", "r", "s")


def test_an_unknown_mechanism_has_no_framing():
    assert mechanism_framing("rot13") is None
    with pytest.raises(ValueError, match="rot13"):
        message_parts(spec=messaging_spec(security="rot13"), address="test/d1")


# --- SRUP ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("signature", "size"), [("ed25519", 64), ("rsa-2048", 256)])
def test_srup_parts_add_up_to_the_agents_encoded_data_message(signature, size):
    from iotsecbench_agent.srup.codec import encode_data, new_token

    spec = messaging_spec(protocol="srup", srup_signature=signature, payload_size=66)
    parts = message_parts(spec=spec, address=SRUP_TOPIC)
    encoded = encode_data(
        sequence_id=1,
        sender_id=2,
        token=new_token(),
        data_id=b"data",
        data=bytes(66),
        sign=lambda signed: bytes(size),
    )
    assert (parts["srup_header"], parts["token"], parts["signature"]) == (30, 36, size)
    srup = sum(parts[k] for k in ("srup_header", "token", "signature", "payload"))
    assert srup == len(encoded)
    assert parts["topic"] == len("SRUP/0123456789abcdef") == 21


# --- the breakdown -------------------------------------------------------------------------


def test_tcp_breakdown_matches_the_measured_packet_and_adds_one_segments_headers():
    spec = messaging_spec(qos=1, payload_size=66)
    # 1 + 2 (remaining 160) + 2 + 90 + 2 + 66 = 163, the e2e test's figure.
    breakdown = size_breakdown(run_id=RUN_ID, spec=spec, address=TOPIC, wire=_wire(163))

    assert breakdown.plaintext_bytes == 163
    assert (breakdown.residual_bytes, breakdown.model_agrees, breakdown.warning) == (0, True, None)
    assert breakdown.segments == 1
    assert _bytes(breakdown) == {
        "link": 14,
        "ip": 20,
        "tcp": 32,
        "mqtt_header": 7,
        "topic": 90,
        "payload": 66,
    }
    assert breakdown.frame_bytes == 163 + HEADERS
    assert {c.key: c.basis for c in breakdown.components}["link"] == "assumed"


def test_tls_record_overhead_is_the_measured_bytes_beyond_the_modelled_packet():
    spec = messaging_spec(transport="tls1.3", security="aes-128-cbc")
    plain = sum(message_parts(spec=spec, address=TOPIC).values())
    breakdown = size_breakdown(run_id=RUN_ID, spec=spec, address=TOPIC, wire=_wire(plain + 22))

    tls = next(c for c in breakdown.components if c.key == "tls")
    assert (tls.bytes, tls.basis) == (22, "measured")
    assert breakdown.model_agrees
    assert breakdown.frame_bytes == plain + 22 + HEADERS


def test_breakdown_flags_a_model_that_claims_more_bytes_than_were_measured():
    spec = messaging_spec(transport="tls1.2")
    plain = sum(message_parts(spec=spec, address=TOPIC).values())
    breakdown = size_breakdown(run_id=RUN_ID, spec=spec, address=TOPIC, wire=_wire(plain - 3))

    assert breakdown.residual_bytes == -3
    assert not breakdown.model_agrees
    assert breakdown.warning is not None
    assert "3 fewer" in breakdown.warning
    assert _bytes(breakdown).get("tls", 0) == 0


def test_breakdown_shows_bytes_plain_tcp_cannot_explain_and_flags_them():
    spec = messaging_spec()
    plain = sum(message_parts(spec=spec, address=TOPIC).values())
    breakdown = size_breakdown(run_id=RUN_ID, spec=spec, address=TOPIC, wire=_wire(plain + 5))

    assert _bytes(breakdown)["unexplained"] == 5
    assert not breakdown.model_agrees
    assert breakdown.warning is not None
    assert "5 more" in breakdown.warning


def test_a_message_larger_than_one_segment_pays_the_headers_once_per_segment():
    spec = messaging_spec(payload_size=3000)
    plain = sum(message_parts(spec=spec, address=TOPIC).values())  # 3099
    breakdown = size_breakdown(run_id=RUN_ID, spec=spec, address=TOPIC, wire=_wire(plain))

    assert breakdown.segments == 3 == -(-plain // TCP_MSS)
    assert (_bytes(breakdown)["link"], _bytes(breakdown)["tcp"]) == (3 * 14, 3 * 32)


# --- from the database ---------------------------------------------------------------------


@pytest.mark.django_db
def test_wire_bytes_are_the_lower_median_over_delivered_messages_only(make_run):
    made = make_run({"pi-a": [MS, MS, None]}, wire_bytes=163)
    extra = make_run({"pi-b": [MS, MS]}, wire_bytes=170, experiment=made.run.experiment)
    # Same experiment, another run: never mixed in.
    assert run_wire_bytes(run=extra.run) == WireBytes(messages=2, median=170, min=170, max=170)
    assert run_wire_bytes(run=made.run) == WireBytes(messages=2, median=163, min=163, max=163)


@pytest.mark.django_db
def test_wire_bytes_median_is_a_measured_value_the_lower_middle_of_an_even_count(make_run):
    made = make_run({"pi-a": [MS, MS, MS, MS]}, wire_bytes=100)
    records = MessageRecord.objects.filter(run_device=made.parts[0])
    records.filter(seq__gte=2).update(wire_bytes=200)  # 100, 100, 200, 200
    assert run_wire_bytes(run=made.run) == WireBytes(messages=4, median=100, min=100, max=200)

    records.filter(seq=0).update(outcome="lost", t_recv_ns=None)  # 100, 200, 200
    assert run_wire_bytes(run=made.run) == WireBytes(messages=3, median=200, min=100, max=200)


@pytest.mark.django_db
def test_run_without_delivered_messages_has_no_breakdown(make_run):
    made = make_run({"pi-a": [None, None]})
    assert run_wire_bytes(run=made.run) is None
    assert run_sizes_compute(run=made.run) is None


@pytest.mark.django_db
def test_topic_is_the_one_the_job_was_dispatched_with(make_run):
    made = make_run({"pi-a": [MS]})
    part = RunDevice.objects.select_related("run__experiment").get(pk=made.parts[0].pk)
    topic = _job_for(part, seq=1, now=0.0)["spec"]["topic"]
    assert run_address(run=made.run) == topic
    assert len(topic.encode()) == 90

    srup = make_run({"pi-a": [MS]}, spec=messaging_spec(protocol="srup", srup_signature="ed25519"))
    assert len(run_address(run=srup.run)) == 21
