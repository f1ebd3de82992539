"""Each protocol's message, as the product reports it, against a packet capture.

A run goes through the whole product (API, worker, agent, broker) while ``tshark`` captures
the loopback; then the run's ``/sizes/`` breakdown must agree with the packets: the
measured wire bytes (the agent's socket count) equal the transport payload tshark saw for
each of the device's messages, the modelled frame equals the captured frame length, and
the model explains every byte (``model_agrees``, nothing ``unexplained``). The agent's own
tests check the same per message at the runner (device-agent/tests/
test_wire_sizes_capture.py); this is the end-to-end check of the figure users see.

SRUP's messages travel in TLS records on the listener the control plane shares: without
the session keys a capture cannot read them, so its messages are told apart by connection
(the run's data-plane connection is the one carrying the run's equal-sized application-data
records, one per message) and checked against both the SRUP run's ``/sizes/`` and the SRUP
frame an MQTT run with the same payload reports beside its own (``reference_frames``).
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import statistics
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from e2e.conftest import ARTIFACTS, Product
from e2e.test_full_path import wait_run_finished

MESSAGES = 20
PAYLOAD = 66
MQTT_PUBLISH = 3
TLS_APPLICATION_DATA = 0x17
TLS_RECORD_HEADER = 5
# The largest record an MQTT acknowledgement (PUBACK etc.: 4 bytes) or ping (2 bytes) makes:
# TLS 1.2 with AES-GCM adds 5 + 8 + 16 bytes (TLS 1.3: 5 + 1 + 16). A SRUP message (its
# signature alone is 64 to 512 bytes) is always larger.
TLS_ACK_RECORD_MAX = TLS_RECORD_HEADER + 8 + 16 + 4
MQTTSN_CONNECT = 0x04
MQTTSN_PUBLISH = 0x0C
COAP_REQUEST_CODES = {1, 2, 3, 4}  # GET, POST, PUT, DELETE
FIELDS = (
    "frame.len",
    "tcp.srcport",
    "tcp.dstport",
    "tcp.payload",
    "udp.srcport",
    "udp.dstport",
    "udp.payload",
)


@dataclass(frozen=True)
class Packet:
    frame_len: int
    transport: str  # "tcp" or "udp"
    src_port: int
    dst_port: int
    payload: bytes


def _packet(line: str) -> Packet | None:
    values = line.rstrip("\n").split("\t")
    if len(values) != len(FIELDS) or not values[0]:
        return None
    frame_len, tcp_src, tcp_dst, tcp_payload, udp_src, udp_dst, udp_payload = values
    if udp_src:
        return Packet(int(frame_len), "udp", int(udp_src), int(udp_dst), _hex(udp_payload))
    if tcp_src:
        return Packet(int(frame_len), "tcp", int(tcp_src), int(tcp_dst), _hex(tcp_payload))
    return None


def _hex(value: str) -> bytes:
    return bytes.fromhex(value.replace(":", ""))


class LiveCapture:
    """``tshark -i lo`` printing one line per packet (frame length, ports, transport
    payload). Start and stop each wait for a UDP probe to the prober's own port to come
    out of tshark, so every packet between the two is in ``packets``."""

    def __init__(self, capture_filter: str) -> None:
        binary = shutil.which("tshark")
        assert binary is not None, "tshark not found: apt-get install tshark (make tshark)"
        self.packets: list[Packet] = []
        self._seen = threading.Condition()
        self._prober = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._prober.bind(("127.0.0.1", 0))
        self.probe_port = self._prober.getsockname()[1]
        command = [binary, "-i", "lo", "-f", f"({capture_filter}) or udp port {self.probe_port}"]
        command += ["-l", "-n", "-T", "fields", "-E", "separator=/t"]
        command += [arg for field in FIELDS for arg in ("-e", field)]
        self.process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._probe()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            packet = _packet(line)
            if packet is not None:
                with self._seen:
                    self.packets.append(packet)
                    self._seen.notify_all()

    def _probes_seen(self) -> int:
        return sum(1 for p in self.packets if p.dst_port == self.probe_port)

    def _probe(self) -> None:
        deadline = time.monotonic() + 60
        with self._seen:
            before = self._probes_seen()
        while time.monotonic() < deadline and self.process.poll() is None:
            self._prober.sendto(b"probe", ("127.0.0.1", self.probe_port))
            with self._seen:
                if self._seen.wait_for(lambda: self._probes_seen() > before, timeout=0.5):
                    return
        raise AssertionError("tshark is not capturing on lo")

    def stop(self) -> list[Packet]:
        self._probe()  # everything sent before this probe has been printed
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._prober.close()
        return [p for p in self.packets if self.probe_port not in (p.src_port, p.dst_port)]


@contextlib.contextmanager
def captured(capture_filter: str) -> Iterator[Callable[[], list[Packet]]]:
    capture = LiveCapture(capture_filter)
    packets: list[Packet] = []
    try:
        yield lambda: packets
    finally:
        packets.extend(capture.stop())


def _run(product: Product, design: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """One device's run of `design`; returns the finished run and its /sizes/ answer."""
    device = product.wait_devices_online()[0]
    experiment = product.api(
        "POST",
        "/api/experiments/",
        {
            "payload_size": PAYLOAD,
            "message_count": MESSAGES,
            "device_ids": [device["id"]],
            **design,
        },
    )
    run = product.api("POST", f"/api/experiments/{experiment['id']}/runs/")
    run = wait_run_finished(product, run["id"])
    assert run["status"] == "done", run["error"]
    return run, product.api("GET", f"/api/runs/{run['id']}/sizes/")


def _mqtt_publishes(packets: list[Packet], broker_port: int, topic: bytes) -> list[Packet]:
    """The device's PUBLISH segments to the broker on `topic` (one packet per segment:
    the client sends with TCP_NODELAY, one message per send)."""
    found = []
    for packet in packets:
        body = packet.payload
        if packet.transport != "tcp" or packet.dst_port != broker_port or len(body) < 4:
            continue
        if body[0] >> 4 == MQTT_PUBLISH and topic in body:
            found.append(packet)
    return found


def _tls_messages(packets: list[Packet], broker_port: int) -> list[Packet]:
    """The client-to-broker segments that each carry exactly one TLS application-data
    record larger than an acknowledgement's, from the connection with the most records of
    one length: the run's data-plane connection (the control plane's and the platform's
    publisher's carry few such records, of other lengths), one record per message."""
    by_connection: dict[int, list[Packet]] = {}
    for packet in packets:
        body = packet.payload
        if packet.transport != "tcp" or packet.dst_port != broker_port or len(body) < 5:
            continue
        length = int.from_bytes(body[3:5], "big")
        if (
            body[0] == TLS_APPLICATION_DATA
            and len(body) == TLS_RECORD_HEADER + length
            and len(body) > TLS_ACK_RECORD_MAX
        ):
            by_connection.setdefault(packet.src_port, []).append(packet)
    best: list[Packet] = []
    for records in by_connection.values():
        lengths = [len(p.payload) for p in records]
        common = max(set(lengths), key=lengths.count)
        same = [p for p in records if len(p.payload) == common]
        if len(same) > len(best):
            best = same
    return best


def _write_figures(line: str) -> None:
    print(line)
    ARTIFACTS.mkdir(exist_ok=True)
    with (ARTIFACTS / "capture-figures.txt").open("a") as figures_file:
        figures_file.write(line + "\n")


def _assert_capture_agrees(sizes: dict[str, Any], messages: list[Packet]) -> None:
    assert len(messages) == MESSAGES, f"{len(messages)} messages captured"
    payloads = [len(p.payload) for p in messages]
    frames = [p.frame_len for p in messages]
    _write_figures(
        f"capture: {sizes['protocol']} {sizes['security']}: captured payload {payloads[0]} B,"
        f" frame {frames[0]} B; /sizes/ wire {sizes['wire_bytes_median']} B, frame"
        f" {sizes['frame_bytes']} B, plaintext {sizes['plaintext_bytes']} B"
    )
    # Every message the same size on the wire, and the product's figures equal to it.
    assert min(payloads) == max(payloads), payloads
    assert sizes["messages"] == MESSAGES
    assert (sizes["wire_bytes_min"], sizes["wire_bytes_max"]) == (payloads[0], payloads[0])
    assert sizes["wire_bytes_median"] == statistics.median_low(payloads)
    assert sizes["segments"] == 1
    assert sizes["frame_bytes"] == statistics.median_low(frames)
    assert sizes["model_agrees"] is True, sizes["warning"]
    unexplained = [c["bytes"] for c in sizes["components"] if c["key"] == "unexplained"]
    assert sum(unexplained) == 0, sizes["components"]
    assert sum(c["bytes"] for c in sizes["components"]) == sizes["frame_bytes"]


def test_an_mqtt_runs_sizes_equal_the_captured_publishes(product: Product) -> None:
    data_port = urlparse(product.stack.env["MQTT_DATA_URL"]).port
    assert data_port is not None
    with captured(f"tcp port {data_port}") as packets:
        run, sizes = _run(
            product,
            {"name": "e2e capture mqtt", "protocol": "mqtt", "qos": 1, "security": "none"},
        )
    publishes = _mqtt_publishes(packets(), data_port, run["id"].encode())
    _assert_capture_agrees(sizes, publishes)
    # MQTT 3.1.1 PUBLISH, QoS 1: fixed header 2, topic length 2, packet id 2, the payload.
    assert sizes["plaintext_bytes"] == len(publishes[0].payload)
    assert publishes[0].frame_len == len(publishes[0].payload) + 14 + 20 + 20 + 12


def test_a_coap_runs_sizes_equal_the_captured_requests(product: Product) -> None:
    with captured("udp") as packets:
        _, sizes = _run(
            product,
            {
                "name": "e2e capture coap",
                "protocol": "coap",
                "coap_type": "con",
                "coap_method": "put",
                "security": "aes-128-cbc",
            },
        )
    requests = [
        p
        for p in packets()
        if len(p.payload) >= 4 and p.payload[0] >> 6 == 1 and p.payload[1] in COAP_REQUEST_CODES
    ]
    _assert_capture_agrees(sizes, requests)
    # The token is the measured remainder (aiocoap's tokens are 2 bytes here).
    assert 0 <= sizes["residual_bytes"] <= 8
    assert requests[0].frame_len == len(requests[0].payload) + 14 + 20 + 8


def test_an_mqttsn_runs_sizes_equal_the_captured_publishes(product: Product) -> None:
    with captured("udp") as packets:
        _, sizes = _run(
            product,
            {
                "name": "e2e capture mqtt-sn",
                "protocol": "mqttsn",
                "qos": 1,
                "security": "aes-128-cbc",
            },
        )
    # The gateway is the port the client's CONNECT went to; its PUBLISHes to that port are
    # the device's messages (the gateway's forwards come back the other way).
    seen = packets()
    connects = [p for p in seen if len(p.payload) >= 2 and p.payload[1] == MQTTSN_CONNECT]
    assert connects, "no MQTT-SN CONNECT captured"
    gateway = connects[0].dst_port
    publishes = [
        p
        for p in seen
        if p.dst_port == gateway and len(p.payload) >= 2 and p.payload[1] == MQTTSN_PUBLISH
    ]
    _assert_capture_agrees(sizes, publishes)
    assert publishes[0].payload[0] == len(publishes[0].payload)  # the one-byte length field
    assert publishes[0].frame_len == len(publishes[0].payload) + 14 + 20 + 8


def test_a_srup_runs_captured_messages_equal_its_sizes_and_an_mqtt_runs_reference_frame(
    product: Product,
) -> None:
    # The SRUP paper's message: a 1-byte action at QoS 1, RSA-2048, MQTT 3.1.1 over TLS 1.2.
    paper = {"payload_size": 1, "qos": 1, "security": "none"}
    _, mqtt_sizes = _run(product, {"name": "e2e capture mqtt 1 B", "protocol": "mqtt", **paper})
    tls_port = urlparse(product.stack.env["MQTT_TLS_URL"]).port
    assert tls_port is not None
    with captured(f"tcp port {tls_port}") as packets:
        _, sizes = _run(
            product,
            {
                "name": "e2e capture srup",
                "protocol": "srup",
                "srup_signature": "rsa-2048",
                "transport": "tls1.2",
                **paper,
            },
        )
    messages = _tls_messages(packets(), tls_port)
    _assert_capture_agrees(sizes, messages)
    reference = {r["protocol"]: r for r in mqtt_sizes["reference_frames"]}["srup"]
    captured_bytes = len(messages[0].payload)
    _write_figures(
        f"capture: srup rsa-2048 tls1.2 1 B: captured TLS record {captured_bytes} B, frame"
        f" {messages[0].frame_len} B; the MQTT run's SRUP reference: PUBLISH"
        f" {reference['message_bytes']} B, TCP payload {reference['socket_bytes']} B, frame"
        f" {reference['frame_bytes']} B"
    )
    # The SRUP frame an MQTT run reports for the same payload is what SRUP sent.
    assert reference["socket_bytes"] == captured_bytes == sizes["wire_bytes_median"]
    assert reference["frame_bytes"] == messages[0].frame_len == sizes["frame_bytes"]
    assert (reference["message_bytes"], reference["socket_bytes"], reference["frame_bytes"]) == (
        351,
        380,
        446,
    )
