"""The MQTT round-trip runner over TLS 1.2 / 1.3 against a Mosquitto with a test CA, and its
TLS wire bytes against a packet capture."""

from __future__ import annotations

import tempfile
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
from iotsecbench_contract.errors import JobSpecError

from iotsecbench_agent.errors import DataPlaneError
from iotsecbench_agent.jobkinds import runner_for
from iotsecbench_agent.links.mqtt_wire import CountingTLSSocket, publish_packet_size
from iotsecbench_agent.runners import RunClock, RunContext
from iotsecbench_agent.runners.mqtt_roundtrip import MqttRoundTripRunner
from iotsecbench_agent.storage.recordlog import OK, Record
from testkit import Capture, TlsBroker, tshark_binary

pytestmark = pytest.mark.integration

DEVICE = "6f1c1a52-3c1e-4a8e-9a57-1d0c2b7e9f10"
# TLS record overhead with the AES-GCM suites OpenSSL picks here: 5-byte header + 16-byte
# tag, plus the inner content-type byte (1.3) or the 8-byte explicit nonce (1.2).
RECORD_OVERHEAD = {"1.3": 5 + 1 + 16, "1.2": 5 + 8 + 16}


def tls_spec(tls: TlsBroker, listener: str = "1.3", **overrides: Any) -> dict[str, Any]:
    run_id = str(uuid.uuid4())
    return {
        "protocol": "mqtt",
        "mqtt_version": "3.1.1",
        "qos": 1,
        "security": "none",
        "payload_size": 66,
        "message_count": 5,
        "interval_ms": 0,
        "measurement": "round_trip",
        "timeout_ms": 2000,
        "broker_url": tls.url(listener),
        "tls_version": listener[:3],
        "ca_cert": tls.pki.pem("ca.crt"),
        "topic": f"iotsecbench/data/{run_id}/{DEVICE}",
        **overrides,
    }


def context(records: list[Record]) -> RunContext:
    return RunContext(
        run_id=str(uuid.uuid4()),
        device_id=DEVICE,
        clock=RunClock(),
        emit=records.append,
        stop=threading.Event(),
    )


def run(spec: dict[str, Any]) -> list[Record]:
    records: list[Record] = []
    runner_for("messaging", spec)(spec, context(records)).execute()
    return records


@pytest.mark.parametrize("version", ["1.2", "1.3"])
def test_roundtrip_over_tls_counts_tls_records_as_wire_bytes(
    tls_broker: TlsBroker, version: str
) -> None:
    job_spec = tls_spec(tls_broker, version)
    records = run(job_spec)

    assert [r.seq for r in records] == list(range(5))
    assert {r.outcome for r in records} == {OK}
    plain = publish_packet_size(topic=job_spec["topic"], payload_size=66, qos=1)
    assert {r.wire_bytes for r in records} == {plain + RECORD_OVERHEAD[version]}


def test_roundtrip_over_tls_pins_the_negotiated_version(tls_broker: TlsBroker) -> None:
    # Mosquitto's tls_version is a minimum: its "1.2" listener would take 1.3 too, so the
    # client's pin decides there; a client pinned to 1.2 cannot talk to the 1.3 listener.
    with pytest.raises(DataPlaneError, match="TLS handshake failed"):
        run(tls_spec(tls_broker, "1.3", tls_version="1.2"))
    runner = MqttRoundTripRunner(tls_spec(tls_broker, "1.2"), context([]))
    runner.setup()
    try:
        sock = runner.link.metered_socket()
        assert isinstance(sock, CountingTLSSocket)
        assert sock.version == "TLSv1.2"
    finally:
        runner.cleanup()


def test_roundtrip_over_tls_fails_clearly_when_ca_is_wrong(tls_broker: TlsBroker) -> None:
    spec = tls_spec(tls_broker, ca_cert=tls_broker.pki.pem("other-ca.crt"))
    with pytest.raises(
        DataPlaneError,
        match="certificate was not accepted: self-signed certificate in certificate chain",
    ):
        run(spec)


def test_roundtrip_over_tls_checks_the_hostname(tls_broker: TlsBroker) -> None:
    url = f"mqtts://127.0.0.2:{tls_broker.ports['1.3-wrong-host']}"
    with pytest.raises(DataPlaneError, match=r"certificate was not accepted.*mismatch"):
        run(tls_spec(tls_broker, broker_url=url))


def test_roundtrip_over_tls_sends_client_certificate_when_required(tls_broker: TlsBroker) -> None:
    before = set(Path(tempfile.gettempdir()).glob("isb-tls-*"))
    spec = tls_spec(
        tls_broker,
        "1.3-client-cert",
        client_cert=tls_broker.pki.pem("client.crt"),
        client_key=tls_broker.pki.pem("client.key"),
    )
    records = run(spec)

    assert {r.outcome for r in records} == {OK}
    # The key's temporary files are gone again.
    assert set(Path(tempfile.gettempdir()).glob("isb-tls-*")) == before


def test_roundtrip_over_tls_fails_clearly_when_client_certificate_is_missing(
    tls_broker: TlsBroker,
) -> None:
    with pytest.raises(DataPlaneError, match=r"(?i)TLS: .*certificate.required"):
        run(tls_spec(tls_broker, "1.3-client-cert"))


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"tls_version": "1.1"}, "tls_version"),
        ({"ca_cert": "not a pem"}, "ca_cert"),
        ({"client_cert": "-----BEGIN CERTIFICATE-----\n"}, "together"),
        ({"broker_url": "mqtt://127.0.0.1:1883"}, "mqtts"),
    ],
)
def test_runner_rejects_tls_spec_when_fields_are_bad(
    tls_broker: TlsBroker, overrides: dict[str, Any], message: str
) -> None:
    bad = {**tls_spec(tls_broker), **overrides}
    with pytest.raises(JobSpecError, match=message):
        runner_for("messaging", bad).validate_spec(bad)


def test_runner_rejects_a_ca_cert_it_cannot_load(tls_broker: TlsBroker) -> None:
    bad = tls_spec(
        tls_broker, ca_cert="-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
    )
    with pytest.raises(JobSpecError, match="ca_cert"):
        run(bad)


def test_tls_wire_bytes_match_the_tls_records_in_a_packet_capture(
    tls_broker: TlsBroker,
) -> None:
    if tshark_binary() is None:
        pytest.fail("tshark not found on PATH: apt-get install tshark (or `make tshark`)")
    port = tls_broker.ports["1.3"]
    # A payload larger than any other record the client sends, so its record is unique.
    job_spec = tls_spec(tls_broker, "1.3", message_count=1, payload_size=1000)
    records: list[Record] = []
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp).chmod(0o777)
        capture = Capture(port, Path(tmp))
        runner = MqttRoundTripRunner(job_spec, context(records))
        try:
            runner.setup()
            sock = runner.link.metered_socket()
            assert isinstance(sock, CountingTLSSocket)
            client_port = sock.raw.getsockname()[1]
            runner.run()
        finally:
            runner.cleanup()
            capture.stop()
        frames = capture.fields(
            "tcp.srcport",
            "tcp.len",
            "tls.record.opaque_type",
            "tls.record.length",
            display_filter=f"tcp.port == {client_port}",
            decode_as=f"tcp.port=={port},tls",
        )

    [record] = records
    assert record.outcome == OK
    plain = publish_packet_size(topic=job_spec["topic"], payload_size=1000, qos=1)
    assert record.wire_bytes == plain + RECORD_OVERHEAD["1.3"]
    sent = [row for row in frames if int(row[0]) == client_port and int(row[1]) > 0]
    # The PUBLISH went out as one TLS application-data record in one TCP segment.
    carrying = [row for row in sent if int(row[1]) == record.wire_bytes]
    assert len(carrying) == 1
    # TLS 1.3 shows every encrypted record as opaque type 23 (application data).
    assert carrying[0][2:] == ["23", str(record.wire_bytes - 5)]
    # Every byte the client put on the wire (handshake, records, alerts) was counted.
    assert sum(int(row[1]) for row in sent) == sock.bytes_sent
    received = sum(int(row[1]) for row in frames if int(row[0]) == port)
    assert received >= sock.bytes_received > 0
