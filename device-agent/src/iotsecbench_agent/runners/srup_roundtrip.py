"""SRUP round-trip runner (protocol ``srup``; job fields in docs/srup.md).

The controller end signs a SRUP message carrying the payload and publishes it on
``SRUP/<device id>``; the device end (the echo peer, ``srup.peer.EchoPeer``) verifies it
and answers with a signed data message carrying the same token; the controller verifies
that reply and the round trip is complete. Both ends check signatures and accept a
sender's message only if its sequence ID is above the last one seen (``srup.receiver``).

Measurement choices, and why:

- The connection is ``mqtt_link.MqttLink`` (own client, TCP_NODELAY, wire bytes counted at
  the socket, TLS below paho with the job's client certificate), as for MQTT. With
  ``srup_peer: local`` (default) the agent runs the echo peer itself, on a second
  connection with the same credentials, and ``pump`` services both in this thread: the
  peer answers as soon as its request arrives, with no thread hand-off to measure. With
  ``external`` another party holding the device's key answers (the tests' scripted
  device; another agent later).
- ``t_send`` is taken BEFORE the request is built and signed (token, encoding,
  signature: ``secure_ns``), ``t_recv`` AFTER the reply has been decoded, verified and
  its sequence ID checked (``unsecure_ns``), both by ``timing.time_secure`` /
  ``time_unsecure``. The peer's verification and signing happen between the two, inside
  the round trip, as on a real device. Keys are loaded (or, for RSA without a key in the
  job, generated once per process) in ``setup``; so is the ``null`` mechanism timed after
  each round trip as the record's harness floor (``timing.HarnessFloor``).
- Both ends subscribe to ``SRUP/<device id>`` and publish there, as the reference
  library's endpoints do, so each receives its own messages back and skips them by
  sender ID before any cryptography.
- Which reply is ours: the reply carries the request's token. While a request is in
  flight, the first message that fails a check (malformed, unknown sender, bad signature:
  ``rejected_signature``; verified but not a fresh sequence ID: ``rejected_replay``) is
  counted as its outcome, as the MQTT runner counts a corrupted echo; a verified message
  with another token is a late reply to an earlier request and is ignored. Messages
  between requests are not looked at.
- A lost connection (``mqtt_link.ride_out``, as for MQTT): the request in flight at the
  cut is recorded ``lost`` and never sent again; both ends connect again (clean
  sessions, ``SRUP/<device id>`` subscribed again) within ``reconnect_budget_s`` and the
  run goes on with the next seq and the next sequence ID.
- ``wire_bytes`` is the request's PUBLISH (the TLS records carrying it over TLS), counted
  at the controller's socket: SRUP message + MQTT header + TLS record overhead.
"""

from __future__ import annotations

import logging
import re
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import paho.mqtt.client as mqtt
from iotsecbench_contract.jobspec import (
    ROUND_TRIP,
    LinkSpec,
    Schedule,
    choice_field,
    hex_field,
)
from iotsecbench_contract.topics import SRUP_ID_HEX_DIGITS, srup_id, srup_topic

from iotsecbench_agent.errors import UnsupportedJob
from iotsecbench_agent.links.mqtt_link import ConnectionLost, MqttLink, pump, ride_out
from iotsecbench_agent.links.mqtt_wire import OutboundMeter
from iotsecbench_agent.runners.base import Runner, message_seqs, register, require
from iotsecbench_agent.runners.mqtt_roundtrip import SECURITY_NONE, SeqTags
from iotsecbench_agent.runners.resources import Traffic, link_traffic
from iotsecbench_agent.runners.timing import (
    HarnessFloor,
    Reply,
    round_trip_record,
    time_secure,
    time_unsecure,
)
from iotsecbench_agent.security.base import MechanismError
from iotsecbench_agent.security.mechanisms import Signature
from iotsecbench_agent.srup.codec import (
    MAX_FIELD_BYTES,
    encode_action,
    encode_data,
    new_token,
    sender_of,
)
from iotsecbench_agent.srup.keys import DEFAULT_SIGNATURE, SIGNATURES, load_key
from iotsecbench_agent.srup.peer import EchoPeer
from iotsecbench_agent.srup.receiver import Receiver, outcome_of
from iotsecbench_agent.storage.recordlog import LOST, OK

logger = logging.getLogger(__name__)

DATA = "data"
ACTION = "action"
MESSAGES = (DATA, ACTION)
LOCAL = "local"
EXTERNAL = "external"
PEERS = (LOCAL, EXTERNAL)
REQUEST_DATA_ID = b"data"
# The SRUP paper's action byte: 0xFF switches the device's LED on, 0x00 off; requests
# alternate, starting with on.
ACTION_ON = 0xFF
ACTION_OFF = 0x00
# Slots of the generated RSA keys (registry.rsa_key): two parties, two key pairs.
CONTROLLER_SLOT = "srup-controller"
DEVICE_SLOT = "srup-device"
_HEX_ID = re.compile(f"[0-9a-fA-F]{{{SRUP_ID_HEX_DIGITS}}}")


@dataclass(frozen=True)
class SrupSpec:
    link: LinkSpec
    schedule: Schedule
    signature: str = DEFAULT_SIGNATURE
    message: str = DATA
    peer: str = LOCAL
    # None: derived from the agent's device id / the run id (``topics.srup_id``).
    device_id: int | None = None
    controller_id: int | None = None
    # Keys from the job (hex of PEM/DER, or Ed25519's raw 32 bytes); None: generated.
    controller_key: bytes | None = field(default=None, repr=False)
    device_key: bytes | None = field(default=None, repr=False)

    @classmethod
    def parse(cls, spec: Mapping[str, Any]) -> SrupSpec:
        if spec.get("topic") is not None:
            raise UnsupportedJob("spec.topic is not used by srup: its topic is SRUP/<device id>")
        security = spec.get("security", SECURITY_NONE)
        if security != SECURITY_NONE or spec.get("security_key") is not None:
            raise UnsupportedJob(
                "srup signs its messages itself (spec.srup_signature); "
                "spec.security must be none and spec.security_key absent"
            )
        message = choice_field(spec, "srup_message", MESSAGES, DATA)
        peer = choice_field(spec, "srup_peer", PEERS, LOCAL)
        controller_key = hex_field(spec, "srup_controller_key")
        device_key = hex_field(spec, "srup_device_key")
        if peer == EXTERNAL and (controller_key is None or device_key is None):
            raise UnsupportedJob(
                "with srup_peer external the other end must hold the keys: "
                "spec.srup_controller_key and spec.srup_device_key are required"
            )
        if message == ACTION:
            # An action message carries exactly one byte, the action.
            schedule = Schedule.parse(spec, min_payload=1, max_payload=1)
        else:
            # The data carries the seq (below 8 bytes modulo 256**n, ``SeqTags``); replies
            # are matched by token, so any size from 1 byte up is unambiguous here.
            schedule = Schedule.parse(spec, min_payload=1, max_payload=MAX_FIELD_BYTES)
        return cls(
            link=LinkSpec.parse(spec),
            schedule=schedule,
            signature=choice_field(spec, "srup_signature", SIGNATURES, DEFAULT_SIGNATURE),
            message=message,
            peer=peer,
            device_id=_id_field(spec, "srup_device_id"),
            controller_id=_id_field(spec, "srup_controller_id"),
            controller_key=controller_key,
            device_key=device_key,
        )


@register
class SrupRoundTripRunner(Runner):
    protocol = "srup"
    measurements = (ROUND_TRIP,)
    spec_type = SrupSpec
    network_profiles = True

    def __init__(self, spec: Mapping[str, Any], context: Any) -> None:
        super().__init__(spec, context)
        self.spec = SrupSpec.parse(spec)
        given = self.spec
        self.device_id = srup_id(context.device_id) if given.device_id is None else given.device_id
        self.controller_id = (
            srup_id(context.run_id) if given.controller_id is None else given.controller_id
        )
        if self.controller_id == self.device_id:
            raise UnsupportedJob("the SRUP controller and device need different IDs")
        self.topic = srup_topic(self.device_id)
        # Each request is unique (its token): credit wire bytes per payload.
        self.meter = OutboundMeter(mqtt5=self.spec.link.mqtt5, by_payload=True)
        self.peer: EchoPeer | None = None
        self._peer_meter = OutboundMeter(mqtt5=self.spec.link.mqtt5, by_payload=True)
        self._peer_replies: list[bytes] = []
        self.peer_wire_bytes = 0  # the replies' PUBLISH bytes at the peer's socket
        self._controller: MqttLink | None = None
        self._peer_link: MqttLink | None = None
        self._links: tuple[MqttLink, ...] = ()
        self._signer: Signature | None = None
        self._receiver: Receiver | None = None
        self._floor: HarnessFloor | None = None
        self._reply = Reply()
        self._arrived = self._reply.arrived
        self._awaiting: bytes | None = None  # the token of the request in flight
        self._sequence_id = 0  # of the next request ``_request`` builds
        self._token = b""  # of the last request ``_request`` built

    @property
    def link(self) -> MqttLink:
        """The controller's (measured) connection, after ``setup``."""
        return require(self._controller)

    @property
    def peer_rejections(self) -> dict[str, int]:
        """Requests the local echo peer refused, by outcome."""
        return dict(self.peer.rejected) if self.peer is not None else {}

    def setup(self) -> None:
        spec = self.spec
        try:
            controller = load_key(spec.signature, spec.controller_key, slot=CONTROLLER_SLOT)
            device = load_key(spec.signature, spec.device_key, slot=DEVICE_SLOT)
            self._signer = controller.require_signer("controller")
            self._receiver = Receiver({self.device_id: device.verifier})
            if spec.peer == LOCAL:
                self.peer = EchoPeer(
                    device_id=self.device_id,
                    signer=device.require_signer("device"),
                    receiver=Receiver({self.controller_id: controller.verifier}),
                )
        except MechanismError as exc:
            raise UnsupportedJob(str(exc)) from None
        # SRUP always signs: every run has a mechanism to set the floor under.
        self._floor = HarnessFloor()
        client_id = f"isb-{self.context.run_id[:8]}-{self.context.device_id[:8]}"
        if self.peer is not None:
            self._peer_link = MqttLink(
                spec.link,
                meter=self._peer_meter,
                client_id=f"{client_id}-d",
                on_message=self._on_request,
                via=self.context.broker_via,
            )
            self._links += (self._peer_link,)
            self._peer_link.connect()
            self._peer_link.subscribe(self.topic)
        self._controller = MqttLink(
            spec.link,
            meter=self.meter,
            client_id=f"{client_id}-c",
            on_message=self._on_reply,
            via=self.context.broker_via,
        )
        self._links += (self._controller,)
        self._controller.connect()
        # Both ends subscribed (SUBACKs received) before the first request.
        self._controller.subscribe(self.topic)

    def run(self) -> None:
        link = self.link
        links = self._links
        self._require_signer()  # before anything is sent
        floor = self._floor
        request = self._request
        topic = self.topic
        spec = self.spec
        schedule = spec.schedule
        action = spec.message == ACTION
        clock = self.context.clock
        stop = self.context.stop
        timeout_ns = schedule.timeout_ns
        next_interval_ns = schedule.interval_sampler()
        tags = SeqTags(schedule.payload_size)
        for seq in message_seqs(schedule.message_count, stop):
            if action:
                payload = bytes((ACTION_OFF if seq % 2 else ACTION_ON,))
            else:
                payload = tags.payload(seq)
            self._arrived.clear()
            self._sequence_id = seq + 1
            wire, t_send, t_signed = time_secure(request, payload)
            self._awaiting = self._token
            cut: ConnectionLost | None = None
            try:
                link.publish(topic, wire)
                pump(links, self._arrived, t_send + timeout_ns)
            except ConnectionLost as exc:
                # Recorded as it stands (lost unless the reply was read just before the
                # failure); the request is never sent again.
                cut = exc
            self._awaiting = None
            arrived = self._arrived.is_set()
            # The round trip is over (t_recv taken): the floor beside it, on the same size.
            wire_bytes = self.meter.take_payload_bytes(wire)
            reply = self._reply
            outcome = reply.outcome if arrived else LOST
            times = (t_send, t_signed, reply.t_recv)
            self.context.emit(
                round_trip_record(
                    clock, floor, seq, payload, times, wire_bytes, outcome, reply.unsecure_ns
                )
            )
            self._settle_peer_meter()
            interval_ns = next_interval_ns()
            try:
                if cut is not None:
                    raise cut
                if interval_ns and seq + 1 < schedule.message_count:
                    # Both ends stay serviced while waiting; it starts after the reply.
                    pump(links, stop, time.perf_counter_ns() + interval_ns)
            except ConnectionLost as exc:
                # Both ends connect again (peer first, as in setup); the sequence IDs go
                # on rising, so neither end's replay check is disturbed.
                ride_out(
                    links,
                    exc,
                    budget_s=spec.link.reconnect_budget_s,
                    stop=stop,
                    run_id=self.context.run_id,
                )

    def cleanup(self) -> None:
        if self.peer is not None and self.peer.rejected:
            logger.info(
                "agent.srup_peer_rejections run_id=%s %s",
                self.context.run_id,
                " ".join(f"{k}={v}" for k, v in sorted(self.peer.rejected.items())),
            )
        self._signer = None
        self._receiver = None
        self._floor = None
        links, self._links = self._links, ()
        self._controller = self._peer_link = None
        for link in links:
            link.close()

    def data_socket(self) -> socket.socket:
        """The raw TCP socket of the controller's connection (after ``setup``)."""
        return self.link.data_socket()

    def traffic(self) -> Traffic:
        """The controller's connection only: a local echo peer stands in for the device,
        another party, and its connection is not the measured client's (its CPU time is in
        the process's, though: runners/resources.py)."""
        return link_traffic(self._controller)

    def _require_signer(self) -> Signature:
        return require(self._signer)

    def _request(self, payload: bytes) -> bytes:
        """The signed request carrying ``payload`` (this run's ``secure``, timed by
        ``time_secure``): a fresh token (kept in ``_token``), sequence ID
        ``_sequence_id``, the controller's signature."""
        sign = self._require_signer().sign
        self._token = token = new_token()
        if self.spec.message == ACTION:
            return encode_action(
                sequence_id=self._sequence_id,
                sender_id=self.controller_id,
                token=token,
                action=payload[0],
                sign=sign,
            )
        return encode_data(
            sequence_id=self._sequence_id,
            sender_id=self.controller_id,
            token=token,
            data_id=REQUEST_DATA_ID,
            data=payload,
            sign=sign,
        )

    def _settle_peer_meter(self) -> None:
        """Let the peer's meter parse what the peer wrote, so that it keeps no history
        (outside the timed window, like the controller's)."""
        replies, self._peer_replies = self._peer_replies, []
        for reply in replies:
            self.peer_wire_bytes += self._peer_meter.take_payload_bytes(reply)

    # paho callbacks: they run in this thread, inside pump.

    def _on_reply(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        receiver = self._receiver
        if self._awaiting is None or self._arrived.is_set() or receiver is None:
            return  # between two requests, or after our reply
        data = message.payload
        wire = data if isinstance(data, bytes) else bytes(data)
        if sender_of(wire) == self.controller_id:
            return  # our own request, routed back to us
        reply, error, t_accept, t_recv = time_unsecure(receiver.accept, wire)
        if reply is not None and reply.token != self._awaiting:
            return  # a late reply to an earlier request
        self._reply.came(t_accept, t_recv, OK if error is None else outcome_of(error))

    def _on_request(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        peer, link = self.peer, self._peer_link
        if peer is None or link is None:
            return
        data = message.payload
        reply = peer.answer(data if isinstance(data, bytes) else bytes(data))
        if reply is not None:
            # Queued by paho (we are inside its callback) and written by pump's next write.
            link.publish(self.topic, reply)
            self._peer_replies.append(reply)


def _id_field(spec: Mapping[str, Any], key: str) -> int | None:
    value = spec.get(key)
    if value is None:
        return None
    if isinstance(value, str) and _HEX_ID.fullmatch(value):
        return int(value, 16)
    raise UnsupportedJob(f"spec.{key} must be {SRUP_ID_HEX_DIGITS} hex digits (a 64-bit SRUP ID)")
