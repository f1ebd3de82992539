"""The SRUP paper's comparison beside a run's own frame (issue #19 point 2): byte counts
worked by hand from the paper's Figure 13 and the agent's SRUP codec."""

from __future__ import annotations

import pytest

from experiments.models import Transport
from results.services.size_reference import TLS_RECORD_OVERHEAD_BYTES, reference_frames
from results.services.sizes import size_breakdown
from results.tests.conftest import messaging_spec
from results.tests.services.test_sizes import RUN_ID, _wire

# The paper's plain message: QoS 1, a 1-byte action on test/d1, no TLS.
PAPERS_MQTT = messaging_spec(protocol="mqtt", qos=1, payload_size=1, topic="test/d1")
# SRUP's data message for that action: 30 bytes of fields, 36-byte token, 256-byte RSA-2048
# signature, the 1-byte action = 323; PUBLISH to SRUP/<16 hex> (21): 1 + 2 (remaining
# 2 + 21 + 2 + 323 = 348) + 2 + 21 + 2 + 323 = 351; one TLS 1.2 AES-GCM record (+29) = 380
# bytes of TCP payload; one segment's Ethernet, IPv4 and TCP (timestamps) headers (+66).
SRUP_MESSAGE, SRUP_SOCKET, SRUP_FRAME = 351, 380, 446


def test_plain_mqtt_frame_of_the_papers_action_is_14_bytes_of_tcp_payload_and_80_on_the_wire():
    breakdown = size_breakdown(run_id=RUN_ID, spec=PAPERS_MQTT, address="test/d1", wire=_wire(14))

    assert (breakdown.plaintext_bytes, breakdown.model_agrees) == (14, True)
    assert breakdown.frame_bytes == 80


def test_mqtt_run_reports_srups_frame_for_the_same_action_beside_it():
    breakdown = size_breakdown(run_id=RUN_ID, spec=PAPERS_MQTT, address="test/d1", wire=_wire(14))

    (srup,) = breakdown.reference_frames
    assert srup.protocol == "srup"
    assert (srup.message_bytes, srup.socket_bytes, srup.frame_bytes) == (
        SRUP_MESSAGE,
        SRUP_SOCKET,
        SRUP_FRAME,
    )
    overhead = TLS_RECORD_OVERHEAD_BYTES[Transport.TLS12]
    assert srup.socket_bytes - srup.message_bytes == overhead == 29
    assert "RSA-2048" in srup.stack
    assert "TLS 1.2" in srup.stack
    assert srup.paper_frame_bytes == 430


def test_srup_run_reports_the_plain_mqtt_frame_on_test_d1_beside_it():
    spec = messaging_spec(
        protocol="srup", srup_signature="rsa-2048", transport="tls1.2", qos=1, payload_size=1
    )

    (plain,) = reference_frames(spec)
    assert (plain.protocol, plain.topic) == ("mqtt", "test/d1")
    assert (plain.message_bytes, plain.socket_bytes, plain.frame_bytes) == (14, 14, 80)
    assert plain.paper_frame_bytes == 80


def test_reference_frame_follows_the_runs_payload_and_names_no_paper_figure_for_another():
    (srup,) = reference_frames(messaging_spec(protocol="mqtt", qos=1, payload_size=66))

    assert srup.message_bytes == SRUP_MESSAGE + 65
    assert srup.paper_frame_bytes is None


@pytest.mark.parametrize(
    "spec",
    [
        messaging_spec(protocol="coap", coap_type="con", coap_method="get"),
        messaging_spec(protocol="mqttsn", topic_id_type="normal"),
    ],
    ids=["coap", "mqttsn"],
)
def test_udp_protocols_get_no_reference_frame(spec):
    assert reference_frames(spec) == []


def test_srup_reference_matches_the_agents_encoded_data_message_for_one_byte():
    from iotsecbench_agent.srup.codec import encode_data, new_token

    encoded = encode_data(
        sequence_id=1,
        sender_id=2,
        token=new_token(),
        data_id=b"data",
        data=b"\x01",
        sign=lambda signed: bytes(256),
    )
    # PUBLISH header (1 + 2 + 2 + 2) and the 21-byte topic around the SRUP message.
    assert len(encoded) + 7 + 21 == SRUP_MESSAGE
