"""The methods paragraph names each run's own protocol, transport and measured quantity."""

from __future__ import annotations

import pytest

from results.services import run_methods_paragraph, run_statistics_compute
from results.tests.conftest import MS, messaging_spec

MESSAGES = {"pi-a": [MS, 2 * MS]}
MQTT_ONLY = ("MQTT over TCP", "broker's copy", "MQTT 3.1.1")


def _paragraph(make_run, **spec) -> str:
    made = make_run(MESSAGES, spec=messaging_spec(**spec))
    return run_methods_paragraph(run=made.run, statistics=run_statistics_compute(run=made.run))


@pytest.mark.django_db
def test_coap_paragraph_names_coap_over_udp_its_type_and_the_request_response_round_trip(
    make_run,
):
    text = _paragraph(make_run, protocol="coap", coap_type="con", coap_method="get")

    for expected in (
        "2 messages",  # the records
        "100 CoAP confirmable (CON) GET requests carrying 66 bytes over UDP to the agent's "
        "own CoAP echo server on the device (127.0.0.1, resource /echo) without payload "
        "security",
        "timed each round trip from before securing the request to after the response "
        "carrying the body back was received and unsecured",
        "retransmitted after an ACK timeout of 2,000 ms (times a random factor up to 1.5), "
        "the wait doubling each time, up to 4 times (RFC 7252 §4.2)",
        "a request not answered within 5000 ms counted as lost",
        "The mean round-trip time was 1.50 ms",
    ):
        assert expected in text
    for wrong in (*MQTT_ONLY, "QoS"):
        assert wrong not in text


@pytest.mark.django_db
def test_non_confirmable_coap_paragraph_promises_no_retransmission(make_run):
    text = _paragraph(make_run, protocol="coap", coap_type="non", coap_method="put")
    assert "CoAP non-confirmable (NON) PUT requests" in text
    assert "retransmitted" not in text


@pytest.mark.django_db
def test_mqttsn_paragraph_names_the_gateway_udp_and_its_qos(make_run):
    text = _paragraph(
        make_run, protocol="mqttsn", qos=-1, topic_id_type="short", security="aes-128-cbc"
    )
    for expected in (
        "over MQTT-SN 1.2 (QoS -1, published without a connection, UDP) to a two-character "
        "short topic name through the agent's own transparent MQTT-SN gateway",
        "bridged to the broker over MQTT 3.1.1, secured with AES-128-CBC",
        "after the broker's copy had come back through the gateway and was unsecured",
    ):
        assert expected in text
    assert "MQTT over TCP" not in text


@pytest.mark.django_db
def test_a_target_device_run_names_the_server_or_gateway_on_the_target_not_loopback(make_run):
    target = "0b7e1d1e-0000-4000-8000-000000000001"
    coap = _paragraph(make_run, protocol="coap", target_device=target)
    assert (
        "over UDP to the agent's own CoAP echo server on the experiment's target device "
        "(resource /echo)" in coap
    )
    mqttsn = _paragraph(make_run, protocol="mqttsn", qos=1, target_device=target)
    assert (
        "through the agent's own transparent MQTT-SN gateway on the experiment's target "
        "device, which bridged to the broker" in mqttsn
    )
    for text in (coap, mqttsn):
        assert "127.0.0.1" not in text


@pytest.mark.django_db
def test_one_way_paragraph_names_the_one_way_delay_and_the_clock_correction(make_run):
    text = _paragraph(
        make_run, protocol="srup", srup_signature="ed25519", measurement="one_way", qos=1
    )
    for expected in (
        "One-way delays were measured",
        "The platform, as controller, published 100 SRUP data messages of 66 bytes to each "
        "device over SRUP (signed MQTT) with Ed25519 signatures over MQTT 3.1.1 (QoS 1, MQTT "
        "over TCP)",
        "from the controller's send time (its wall clock, taken before signing) to after the "
        "message was received and verified and its sequence ID checked",
        "corrected by its clock offset to the platform",
        "The mean one-way delay was 1.50 ms",
    ):
        assert expected in text
    assert "round trip" not in text
    assert "broker's copy" not in text


@pytest.mark.django_db
def test_srup_round_trip_paragraph_times_the_signed_request_and_its_verified_reply(make_run):
    text = _paragraph(make_run, protocol="srup", srup_signature="rsa-2048", transport="tls1.3")
    assert (
        "100 SRUP data messages of 66 bytes over SRUP (signed MQTT) with RSA-2048 (PKCS#1 "
        "v1.5, SHA-256) signatures over MQTT 3.1.1 (QoS 1, MQTT over TLS 1.3)" in text
    )
    assert "from before building and signing the request to after the reply was received" in text
    assert "broker's copy" not in text


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("qos", "ack"),
    [
        (1, "the arrival of the broker's PUBACK (QoS 1)"),
        (2, "the arrival of the broker's PUBCOMP, which completes the QoS 2 exchange"),
    ],
)
def test_mqtt_ack_paragraph_names_the_acknowledgement_time_and_its_packet(make_run, qos, ack):
    text = _paragraph(make_run, protocol="mqtt", measurement="ack", qos=qos)
    for expected in (
        "Acknowledgement times were measured",
        f"over MQTT 3.1.1 (QoS {qos}, MQTT over TCP) without payload security",
        f"timed each from before securing the message to {ack}",
        "nothing was subscribed, so no copy came back",
        "a message not acknowledged within 5000 ms counted as lost",
        "The mean acknowledgement time was 1.50 ms",
    ):
        assert expected in text
    for wrong in ("round trip", "round-trip", "broker's copy was received"):
        assert wrong not in text


@pytest.mark.django_db
def test_coap_ack_paragraph_times_con_to_ack_not_the_echo(make_run):
    text = _paragraph(
        make_run, protocol="coap", measurement="ack", coap_type="con", coap_method="put"
    )
    for expected in (
        "Acknowledgement times were measured",
        "100 CoAP confirmable (CON) PUT requests carrying 66 bytes over UDP",
        "to when its socket read the ACK carrying the request's Message ID (a piggybacked "
        "response or an empty ACK)",
        "retransmitted after an ACK timeout of 2,000 ms",
        "The mean acknowledgement time was 1.50 ms",
    ):
        assert expected in text
    for wrong in (*MQTT_ONLY, "QoS", "round trip", "round-trip"):
        assert wrong not in text


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("protocol", "overrides", "arrow"),
    [
        ("mqtt", {"qos": 1}, "(publish → PUBACK)"),
        ("mqtt", {"qos": 2}, "(publish → PUBCOMP)"),
        ("coap", {"coap_type": "con", "coap_method": "put"}, "(CON → ACK)"),
        ("mqttsn", {"qos": 1}, "(publish → PUBACK;"),
    ],
)
def test_ack_paragraph_names_the_exchange_it_timed_in_arrow_notation(
    make_run, protocol, overrides, arrow
):
    text = _paragraph(make_run, protocol=protocol, measurement="ack", **overrides)
    assert arrow in text
    assert "The mean acknowledgement time was 1.50 ms" in text


@pytest.mark.django_db
def test_mqttsn_ack_paragraph_times_publish_to_the_gateways_puback(make_run):
    text = _paragraph(make_run, protocol="mqttsn", measurement="ack", qos=1)
    expected = [
        "Acknowledgement times were measured",
        "over MQTT-SN 1.2 (QoS 1, UDP) to a topic registered by name through the agent's own "
        "transparent MQTT-SN gateway",
        "to when the client had received the gateway's PUBACK carrying the PUBLISH's MsgId",
        "nothing was subscribed, so no copy came back",
        "a message not acknowledged within 5000 ms counted as lost",
    ]
    assert [phrase for phrase in expected if phrase not in text] == []
    wrong = ["round trip", "round-trip", "broker's copy had come back"]
    assert [phrase for phrase in wrong if phrase in text] == []


@pytest.mark.parametrize(
    ("spec", "quantity"),
    [
        ({"measurement": "round_trip", "protocol": "mqtt"}, "round-trip time"),
        ({"measurement": "one_way", "protocol": "srup"}, "one-way delay"),
        (
            {"measurement": "ack", "protocol": "mqtt", "qos": 1},
            "acknowledgement time (publish → PUBACK)",
        ),
        (
            {"measurement": "ack", "protocol": "mqtt", "qos": 2},
            "acknowledgement time (publish → PUBCOMP)",
        ),
        (
            {"measurement": "ack", "protocol": "mqttsn", "qos": 1},
            "acknowledgement time (publish → PUBACK)",
        ),
        ({"measurement": "ack", "protocol": "coap"}, "acknowledgement time (CON → ACK)"),
    ],
)
def test_measured_quantity_names_what_the_runs_figures_are(spec, quantity):
    from results.services.methods_ack import measured_quantity

    assert measured_quantity(spec) == quantity
