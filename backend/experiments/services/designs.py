"""A design: creating it, and what each of its runs freezes (spec, one-way controller keys,
planned total); whether its devices can enforce a network profile.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any
from uuid import UUID

from Crypto.PublicKey import ECC, RSA
from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from iotsecbench_contract import mechanisms
from iotsecbench_contract.errors import JobSpecError
from iotsecbench_contract.interleave import FIELD as INTERLEAVE_FIELD
from iotsecbench_contract.jobspec import BROKER_EXTERNAL

from accounts.models import Workspace
from devices.models import Device
from experiments.describe import DESCRIBED_FIELDS, describe_design
from experiments.errors import (
    DesignOutOfLimits,
    DeviceNotInWorkspace,
    NetworkProfileNotEnforceable,
    TlsBrokerNotConfigured,
)
from experiments.kinds import kind_get
from experiments.matrix import Cell
from experiments.models import (
    CoapMethod,
    CoapType,
    CryptoLibrary,
    Experiment,
    ExperimentKind,
    IntervalDistribution,
    Measurement,
    MqttVersion,
    Protocol,
    SrupSignature,
    TopicIdType,
    Transport,
)
from netprofiles.models import NetworkProfile

DEVICE_NOT_IN_WORKSPACE_MESSAGE = "These devices are not in your workspace, or were revoked: {ids}."
TLS_NOT_CONFIGURED_MESSAGE = (
    "This platform has no TLS broker: set MQTT_TLS_URL and MQTT_TLS_CA_FILE (make up does), "
    "or choose MQTT over TCP."
)
DESIGN_OUT_OF_LIMITS_MESSAGE = (
    "This design no longer fits what a device runs: {problem}. Create it again within that range."
)
NOT_ENFORCEABLE_MESSAGE = (
    "The network profile “{profile}” cannot be enforced on every device, so the run would "
    "not be measured under it. {devices}. Run those agents as root on Linux with "
    "/dev/net/tun (docs/network-emulation.md), or choose other devices or no profile."
)


def workspace_devices(*, workspace: Workspace, device_ids: set[str]) -> list[Device]:
    """The design's devices, or DeviceNotInWorkspace naming every id that is not a device
    of the workspace (another workspace's, revoked, unknown): creating and planning a
    design refuse the same ids the same way."""
    found = list(
        Device.objects.filter(workspace=workspace, pk__in=device_ids, revoked_at__isnull=True)
    )
    missing = sorted(device_ids - {str(d.pk) for d in found})
    if missing:
        raise DeviceNotInWorkspace(
            DEVICE_NOT_IN_WORKSPACE_MESSAGE.format(ids=", ".join(missing)),
            extra={"fields": {"device_ids": [f"Unknown device {i}." for i in missing]}},
        )
    return found


def workspace_target_device(workspace: Workspace, device_id: UUID | None) -> Device | None:
    """The design's target device: one of the workspace's own (not revoked); another
    workspace's answers exactly as an unknown id, so its existence does not leak."""
    if device_id is None:
        return None
    device = Device.objects.filter(
        workspace=workspace, pk=device_id, revoked_at__isnull=True
    ).first()
    if device is None:
        raise DeviceNotInWorkspace(
            DEVICE_NOT_IN_WORKSPACE_MESSAGE.format(ids=device_id),
            extra={"fields": {"target_device": [f"Unknown device {device_id}."]}},
        )
    return device


@transaction.atomic
def experiment_create(
    *,
    workspace: Workspace,
    user: User | AnonymousUser | None,
    name: str,
    device_ids: Sequence[UUID],
    protocol: str,
    qos: int,
    security: str,
    payload_size: int,
    message_count: int,
    interval_ms: int,
    measurement: str,
    mqtt_version: str = MqttVersion.V311,
    transport: str = Transport.TCP,
    srup_signature: str = SrupSignature.RSA_2048,
    coap_type: str = CoapType.CON,
    coap_method: str = CoapMethod.GET,
    topic_id_type: str = TopicIdType.NORMAL,
    topic: str = "",
    mqttsn_topic_id: int | None = None,
    broker_url: str = "",
    coap_url: str = "",
    coap_path: str = "",
    mqttsn_gateway: str = "",
    target_device: UUID | None = None,
    target_host: str = "",
    interval_distribution: str = IntervalDistribution.FIXED,
    kind: str = ExperimentKind.MESSAGING,
    interleave_mechanisms: Sequence[str] = (),
    mechanisms: Sequence[str] = (),
    data_sizes: Sequence[int] = (),
    repetitions: int = 100,
    window_ms: int = 2000,
    target_url: str = "",
    crypto_library: str = CryptoLibrary.PYCRYPTODOME,
    network_profile: NetworkProfile | None = None,
    axes: Sequence[dict[str, Any]] = (),
    exclusions: Sequence[Cell] = (),
    repeats: int = 1,
    order_seed: int | None = None,
    description: str = "",
    description_generated: bool = False,
    preset: str = "",
) -> Experiment:
    """Create a design. ``axes`` and ``exclusions`` are already checked and canonical
    (experiments.matrix.build, as the API's serializer does).

    ``description_generated`` (or a blank ``description``): the description is generated
    from this design, whatever text came with it (e.g. a preset's, written for the preset's
    design); otherwise the given text is kept verbatim."""
    axis_devices = {
        str(i) for axis in axes for value in axis["values"] for i in value.get("device_ids", ())
    }
    devices_found = workspace_devices(
        workspace=workspace, device_ids={str(i) for i in device_ids} | axis_devices
    )
    devices = [d for d in devices_found if str(d.pk) in {str(i) for i in device_ids}]
    experiment = Experiment(
        workspace=workspace,
        created_by=user if isinstance(user, User) else None,
        name=name,
        protocol=protocol,
        qos=qos,
        security=security,
        payload_size=payload_size,
        message_count=message_count,
        interval_ms=interval_ms,
        measurement=measurement,
        mqtt_version=mqtt_version,
        transport=transport,
        srup_signature=srup_signature,
        coap_type=coap_type,
        coap_method=coap_method,
        topic_id_type=topic_id_type,
        topic=topic,
        mqttsn_topic_id=mqttsn_topic_id,
        broker_url=broker_url,
        coap_url=coap_url,
        coap_path=coap_path,
        mqttsn_gateway=mqttsn_gateway,
        target_device=workspace_target_device(workspace, target_device),
        target_host=target_host,
        interval_distribution=interval_distribution,
        kind=kind,
        interleave_mechanisms=list(interleave_mechanisms),
        mechanisms=list(mechanisms),
        data_sizes=list(data_sizes),
        repetitions=repetitions,
        window_ms=window_ms,
        target_url=target_url,
        crypto_library=crypto_library,
        network_profile=network_profile,
        axes=list(axes),
        exclusions=list(exclusions),
        repeats=repeats,
        order_seed=order_seed,
        description=description,
        preset=preset,
    )
    transports = {transport} | {
        value["transport"] for axis in axes for value in axis["values"] if "transport" in value
    }
    if transports != {Transport.TCP} and not (settings.MQTT_TLS_URL and settings.MQTT_TLS_CA_FILE):
        raise TlsBrokerNotConfigured(
            TLS_NOT_CONFIGURED_MESSAGE,
            extra={"fields": {"transport": [TLS_NOT_CONFIGURED_MESSAGE]}},
        )
    if description_generated or not description.strip():
        experiment.description = _generated_description(experiment, devices_found)
        experiment.description_generated = True
    experiment.full_clean()
    experiment.save()
    experiment.devices.set(devices)
    return experiment


def _generated_description(experiment: Experiment, devices: Iterable[Device]) -> str:
    names = {str(d.pk): d.name for d in devices}
    profile_ids = {
        str(value["network_profile"])
        for axis in experiment.axes
        for value in axis["values"]
        if value.get("network_profile")
    }
    names |= {str(p.pk): p.name for p in NetworkProfile.objects.filter(pk__in=profile_ids)}
    design = {field: getattr(experiment, field) for field in DESCRIBED_FIELDS}
    return describe_design(
        {**design, "axes": experiment.axes, "repeats": experiment.repeats}, names
    )


def _experiment_spec(experiment: Experiment) -> dict[str, Any]:
    kind = kind_get(experiment.kind)
    if kind.spec is not None:
        # The contract's dataclass (iotsecbench_contract.benchspec): the design's fields as
        # the agent's plan parses them. A design saved under older limits fails here, with
        # the field, rather than on the device.
        try:
            return kind.spec({f: getattr(experiment, f) for f in kind.spec_fields}).to_dict()
        except JobSpecError as exc:
            message = DESIGN_OUT_OF_LIMITS_MESSAGE.format(problem=str(exc).removeprefix("spec."))
            raise DesignOutOfLimits(
                message, extra={"fields": {exc.field or "non_field_errors": [message]}}
            ) from None
    if experiment.protocol == Protocol.COAP:
        protocol_fields: dict[str, Any] = {
            "coap_type": experiment.coap_type,
            "coap_method": experiment.coap_method,
        }
    elif experiment.protocol == Protocol.MQTTSN:
        protocol_fields = {"topic_id_type": experiment.topic_id_type}
    else:
        protocol_fields = {}
    transport: dict[str, Any] = {"broker_url": settings.MQTT_DATA_URL, **protocol_fields}
    if experiment.transport != Transport.TCP:
        transport = {
            "broker_url": settings.MQTT_TLS_URL,
            "tls_version": experiment.transport.removeprefix("tls"),
            "ca_cert": Path(settings.MQTT_TLS_CA_FILE).read_text(),
        }
    if experiment.protocol == Protocol.SRUP:
        transport["srup_signature"] = experiment.srup_signature
    transport.update(_address_fields(experiment))
    if experiment.interleave_mechanisms:
        # Only when set: a design that does not interleave freezes the same spec as before.
        transport[INTERLEAVE_FIELD] = list(experiment.interleave_mechanisms)
    network: dict[str, Any] = {}
    if experiment.network_profile is not None:
        # Frozen with the run: editing the profile later never changes what a run meant.
        # The measured tables it names are added to each job at dispatch (_job_for).
        profile = experiment.network_profile
        network = {
            "network_profile": {"id": str(profile.pk), "name": profile.name, "spec": profile.spec}
        }
    return {
        **transport,
        **network,
        "transport": experiment.transport,
        "protocol": experiment.protocol,
        "mqtt_version": experiment.mqtt_version,
        "qos": experiment.qos,
        "security": experiment.security,  # a name of iotsecbench_contract.mechanisms
        "payload_size": experiment.payload_size,
        "message_count": experiment.message_count,
        "interval_ms": experiment.interval_ms,
        "interval_distribution": experiment.interval_distribution,
        # One seed per run, kept in the spec: the same schedule can be replayed anywhere.
        "interval_seed": secrets.randbits(32),
        "measurement": experiment.measurement,
        "timeout_ms": 5000,
    }


def _address_fields(experiment: Experiment) -> dict[str, Any]:
    """The design's addressing and targets as the run's spec carries them (only those
    given, so a design without them freezes the same spec as before): an external broker
    replaces the platform's and is marked so that the agent adds none of its platform
    credentials (`broker_external`); `topic` stays a template ({device}), resolved per
    device by the job builder."""
    fields: dict[str, Any] = {}
    if experiment.broker_url:
        fields.update({"broker_url": experiment.broker_url, BROKER_EXTERNAL: True})
    if experiment.topic:
        fields["topic"] = experiment.topic
    if experiment.mqttsn_topic_id is not None:
        fields["mqttsn_topic_id"] = experiment.mqttsn_topic_id
    if experiment.coap_url:
        fields["coap_url"] = experiment.coap_url
    if experiment.coap_path:
        fields["coap_path"] = experiment.coap_path
    if experiment.target_device_id is not None:
        fields["target_device"] = str(experiment.target_device_id)
        if experiment.target_host:
            fields["target_host"] = experiment.target_host
    if experiment.mqttsn_gateway:
        fields["mqttsn_gateway"] = experiment.mqttsn_gateway
    return fields


def _design(experiment: Experiment, cell: Cell, profiles: dict[str, NetworkProfile]) -> Experiment:
    """The experiment as one run of its matrix sees it: a fresh, unsaved copy with the
    cell's values in place of the fixed ones (device_ids are the caller's)."""
    design = Experiment(
        **{f.attname: getattr(experiment, f.attname) for f in Experiment._meta.concrete_fields}
    )
    for parameter, value in cell.items():
        if parameter == "network_profile":
            design.network_profile = None if value is None else profiles[str(value)]
        elif parameter != "device_ids":
            setattr(design, parameter, value)
    if "network_profile" not in cell:
        design.network_profile = experiment.network_profile
    return design


def _planned_total(experiment: Experiment) -> int:
    """What the device's progress counts up to: messages, or benchmark repetitions."""
    if kind_get(experiment.kind).samples:
        # Two operations per mechanism and size: encrypt+decrypt or sign+verify (cipher
        # benchmark), or the secure-only and the send window (throughput).
        return 2 * len(experiment.mechanisms) * len(experiment.data_sizes) * experiment.repetitions
    return experiment.message_count


# SRUP's signatures as the contract's signature mechanisms (the same keys).
_SRUP_MECHANISMS = {
    SrupSignature.RSA_2048: "rsa-2048-pkcs1v15",
    SrupSignature.RSA_4096: "rsa-4096-pkcs1v15",
    SrupSignature.ED25519: "ed25519",
}


def _signing_key(mechanism: str) -> RSA.RsaKey | ECC.EccKey:
    """A fresh private key for a signature mechanism of the contract."""
    info = mechanisms.describe(mechanism)
    if info.name.startswith("rsa-"):
        return RSA.generate(info.key_bits)
    return ECC.generate(curve="ed25519" if info.name == "ed25519" else "P-256")


def _controller_secrets(design: Experiment) -> dict[str, Any]:
    """A one-way run's keys, made per run and never shown by the API (Run.controller): the
    payload key the platform secures with and the devices unsecure with (for a signature,
    a key pair: the devices get its public half), or the SRUP controller's key pair and
    sender id."""
    if design.kind != ExperimentKind.MESSAGING or design.measurement != Measurement.ONE_WAY:
        return {}
    if design.protocol == Protocol.SRUP:
        key = _signing_key(_SRUP_MECHANISMS[SrupSignature(design.srup_signature)])
        return {
            "srup_private_key": _pem(key.export_key(format="PEM")),
            "srup_public_key": _pem(key.public_key().export_key(format="PEM")),
            "srup_controller_id": f"{secrets.randbits(64):016x}",
        }
    if design.security in ("none", "null"):
        return {}
    info = mechanisms.describe(design.security)
    if info.kind == "signature":
        # The controller signs; the devices get the public key only (security_key).
        pair = _signing_key(info.name)
        return {
            "security_key": pair.public_key().export_key(format="DER").hex(),
            "security_private_key": pair.export_key(format="DER").hex(),
        }
    return {"security_key": secrets.token_hex(info.key_bytes or 32)}


def _pem(exported: str | bytes) -> str:
    """pycryptodome exports RSA PEM as bytes and ECC PEM as text."""
    return exported.decode() if isinstance(exported, bytes) else exported


def _require_enforceable(profile: NetworkProfile, devices: Sequence[Device]) -> None:
    unable = _unable_to_enforce(devices)
    if unable:
        raise NetworkProfileNotEnforceable(
            NOT_ENFORCEABLE_MESSAGE.format(profile=profile.name, devices=_reasons(unable)),
            extra={"devices": sorted(unable)},
        )


def _unable_to_enforce(devices: Iterable[Device]) -> dict[str, str]:
    """{device name: why it cannot enforce a network profile} for those that cannot."""
    return {d.name: reason for d in devices if (reason := _cannot_enforce(d)) is not None}


def _reasons(unable: Mapping[str, str]) -> str:
    return "; ".join(f"{name}: {why}" for name, why in unable.items())


def _cannot_enforce(device: Device) -> str | None:
    """Why the device cannot enforce a network profile, from the facts its agent reported
    at start (docs/control-plane.md §2); None when some backend can, or when an older agent
    did not say (the agent then refuses the run itself, before sending anything)."""
    backends = device.facts.get("network_emulation")
    if not isinstance(backends, dict) or not backends:
        return None
    if any(isinstance(b, dict) and b.get("available") for b in backends.values()):
        return None
    reasons = [str(b.get("reason")) for _, b in sorted(backends.items()) if isinstance(b, dict)]
    return " / ".join(r for r in reasons if r) or "no network emulation backend works there"
