from __future__ import annotations

import logging
import secrets
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any, cast

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone
from iotsecbench_contract.jobspec import HEALTH_CHECK, HealthCheckSpec
from iotsecbench_contract.topics import health_topic, jobs_topic

from accounts.models import Workspace
from devices.authentication import token_hash
from devices.broker import (
    BrokerAdminFailed,
    CertificateRequestInvalid,
    broker_device_grant,
    broker_device_revoke,
    ca_certificate_pem,
    device_certificate,
    device_data_credentials,
    identities_enabled,
)
from devices.errors import DeviceBusy, DeviceOffline, EnrollmentTokenInvalid
from devices.models import Device, EnrollmentToken
from devices.signals import device_revoking

logger = logging.getLogger(__name__)

CSR_MISSING_MESSAGE = (
    "This platform's broker gives every device its own identity: the enrollment needs a "
    "`csr` (a certificate signing request for a key made on the device). Update the agent "
    "(`pip install -U iotsecbench-agent`) and run `iotsecbench-agent enroll` again."
)
ENROLLMENT_REFUSED_MESSAGE = (
    "This enrollment token is unknown, already used or expired. Create a new one on the "
    "Devices page and run `iotsecbench-agent enroll` again."
)
# Secrets get a readable prefix: it says what a leaked string is, and a secret can never
# start with "-", which a command line would take for an option (seen: `--token -x...`).
ENROLLMENT_TOKEN_PREFIX = "iotsb_enroll_"  # noqa: S105 (a public prefix, not a secret)
DEVICE_TOKEN_PREFIX = "iotsb_device_"  # noqa: S105 (a public prefix, not a secret)
# Facts are free-form but bounded: an agent cannot fill the database through them.
FACTS_MAX_KEYS = 64


@transaction.atomic
def enrollment_token_create(
    *, workspace: Workspace, user: User | AnonymousUser | None
) -> tuple[EnrollmentToken, str]:
    """Create a one-time enrollment token. Returns the row and the secret (shown once)."""
    secret = ENROLLMENT_TOKEN_PREFIX + secrets.token_urlsafe(24)
    token = EnrollmentToken(
        workspace=workspace,
        created_by=user if isinstance(user, User) else None,
        token_hash=token_hash(secret),
        expires_at=timezone.now() + timedelta(hours=settings.ENROLLMENT_TOKEN_TTL_HOURS),
    )
    token.full_clean()
    token.save()
    return token, secret


def _clean_facts(facts: dict[str, Any]) -> dict[str, Any]:
    return dict(list(facts.items())[:FACTS_MAX_KEYS])


@dataclass(frozen=True)
class BrokerIdentity:
    """What an enrolled device needs for the broker (devices/broker.py); no secret of the
    platform's and not the device's key, which never left it."""

    ca_cert: str
    client_cert: str
    data_username: str
    data_password: str


@transaction.atomic
def device_enroll(
    *, token: str, name: str, facts: dict[str, Any], csr: str | None = None
) -> tuple[Device, str, BrokerIdentity | None]:
    """Exchange a one-time enrollment token for a device identity, its API token and, with
    broker identities on, its broker identity: a certificate for the CSR's key and its
    data-plane credentials, granted on the broker before the token's claim commits (a broker
    that refuses leaves the token unused).

    The token is claimed with a conditional UPDATE, so two agents racing with the same token
    cannot both enroll: exactly one sees the row count 1.
    """
    now = timezone.now()
    hashed = token_hash(token)
    claimed = EnrollmentToken.objects.filter(
        token_hash=hashed, used_at__isnull=True, expires_at__gt=now
    ).update(used_at=now)
    if claimed != 1:
        raise EnrollmentTokenInvalid(ENROLLMENT_REFUSED_MESSAGE)
    enrollment = EnrollmentToken.objects.get(token_hash=hashed)
    api_token = DEVICE_TOKEN_PREFIX + secrets.token_urlsafe(32)
    device = Device(
        workspace=enrollment.workspace,
        name=name,
        token_hash=token_hash(api_token),
        facts=_clean_facts(facts),
        last_seen_at=now,
    )
    device.full_clean()
    device.save()
    enrollment.device = device
    enrollment.save(update_fields=["device"])
    if not identities_enabled():
        return device, api_token, None
    if not csr:
        raise CertificateRequestInvalid(CSR_MISSING_MESSAGE)
    certificate = device_certificate(device_id=str(device.pk), csr_pem=csr)
    device.broker_certificate = certificate
    device.save(update_fields=["broker_certificate"])
    broker_device_grant(device_id=str(device.pk))
    username, password = device_data_credentials(str(device.pk))
    return device, api_token, BrokerIdentity(ca_certificate_pem(), certificate, username, password)


def device_facts_update(*, device: Device, facts: dict[str, Any]) -> Device:
    device.facts = _clean_facts(facts)
    device.last_seen_at = timezone.now()
    device.save(update_fields=["facts", "last_seen_at"])
    return device


def device_status_apply(*, device_id: str, online: bool, at: datetime) -> bool:
    """Apply an online/offline status message unless a newer one was applied already."""
    updated = (
        Device.objects.filter(pk=device_id)
        .filter(Q(status_at__isnull=True) | Q(status_at__lte=at))
        .update(online=online, status_at=at, last_seen_at=timezone.now())
    )
    return updated == 1


def device_seen(*, device_id: str) -> None:
    Device.objects.filter(pk=device_id).update(last_seen_at=timezone.now())


def device_next_job_seq(*, device_id: str) -> int:
    """Issue the device's next job sequence number; atomic, never reused."""
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE devices_device SET job_seq = job_seq + 1 WHERE id = %s RETURNING job_seq",
            [device_id],
        )
        row = cursor.fetchone()
    if row is None:
        raise Device.DoesNotExist(device_id)
    return int(row[0])


HEALTH_PENDING = "pending"
DEVICE_OFFLINE_HEALTH_MESSAGE = (
    "{name} is offline: start its agent (`iotsecbench-agent run`), then check it again."
)


def job_header(
    *, device_id: str, seq: int, job_id: str, run_id: str, kind: str, now: float
) -> dict[str, Any]:
    """The fields every job to an agent starts with (docs/control-plane.md §4): version,
    addressee, its next sequence number, issue and expiry times (JOB_TTL_SECONDS), ids and
    kind. The caller adds `spec` (and `upload` for a run) and signs it (job_envelope)."""
    return {
        "v": 1,
        "device_id": device_id,
        "seq": seq,
        "issued_at": now,
        "expires_at": now + settings.JOB_TTL_SECONDS,
        "job_id": job_id,
        "run_id": run_id,
        "kind": kind,
    }


def device_health_check(*, device: Device, run_id: str | None = None) -> Device:
    """Ask the device's agent for a health check (a signed ``health_check`` job): broker
    round trip, clock offset against this platform, crypto self-test and network-profile
    capability. The agent answers with a ``health_report`` event (device_health_apply).
    ``run_id``: the run whose preparing step asked (it starts only if every device passes)."""
    from core.mqtt import mqtt_publish_many
    from devices.signing import job_envelope

    if not device.online:
        raise DeviceOffline(DEVICE_OFFLINE_HEALTH_MESSAGE.format(name=device.name))
    now = timezone.now()
    job_id = str(uuid.uuid4())
    header = job_header(
        device_id=str(device.pk),
        seq=device_next_job_seq(device_id=str(device.pk)),
        job_id=job_id,
        run_id=job_id,
        kind=HEALTH_CHECK,
        now=time.time(),
    )
    spec = HealthCheckSpec(
        broker_url=settings.MQTT_URL,
        topic=health_topic(device.pk, job_id),
        time_url=f"{settings.PLATFORM_PUBLIC_URL}/api/agent/time/",
    )
    job = {**header, "spec": spec.to_dict()}
    health = {"status": HEALTH_PENDING, "job_id": job_id, "requested_at": now.isoformat()}
    if run_id is not None:
        health["run_id"] = run_id  # the run that waits for the answer (experiments.services.jobs)
    Device.objects.filter(pk=device.pk).update(health=health)
    mqtt_publish_many([(jobs_topic(str(device.pk)), job_envelope(job), 1, False)])
    device.health = health
    return device


def device_health_apply(*, device_id: str, report: dict[str, Any]) -> bool:
    """Store a health_report if it answers the device's pending check (an old or forged
    job id changes nothing)."""
    device = Device.objects.filter(pk=device_id).first()
    if device is None or device.health.get("job_id") != report.get("job_id"):
        return False
    raw_checks = report.get("checks")
    checks: list[Any] = raw_checks if isinstance(raw_checks, list) else []
    status = "passed" if report.get("status") == "passed" else "failed"
    health = {
        **device.health,
        "status": status,
        "checked_at": timezone.now().isoformat(),
        "checks": [
            {
                "name": str(c.get("name", "")),
                "ok": bool(c.get("ok")),
                "detail": str(c.get("detail", "")),
                "value": c.get("value") if isinstance(c.get("value"), (int, float)) else None,
            }
            for c in checks
            if isinstance(c, dict)
        ],
        "error": str(report.get("error", "")),
    }
    Device.objects.filter(pk=device_id).update(health=health)
    return True


DEVICE_BUSY_MESSAGE = (
    "{name} has queued or running runs ({runs}); cancel them before revoking the device."
)


@transaction.atomic
def device_revoke(*, device: Device) -> Device:
    """Revoke an agent: its API token stops working at once (the hash is replaced), its
    control-plane messages are ignored, it is offered no more runs. Refused while it has
    queued or active runs."""
    device = Device.objects.select_for_update().get(pk=device.pk)
    answers = device_revoking.send(sender=Device, device=device)
    busy = [work_id for _receiver, ids in answers for work_id in cast("list[object]", ids)][:3]
    if busy:
        raise DeviceBusy(
            DEVICE_BUSY_MESSAGE.format(name=device.name, runs=", ".join(str(r) for r in busy))
        )
    device.revoked_at = timezone.now()
    device.online = False
    device.token_hash = f"revoked-{uuid.uuid4().hex}"
    device.save(update_fields=["revoked_at", "online", "token_hash"])
    # Its broker identities go once this commits; a broker that is down then gets it from
    # broker_sync at its next start (the platform already ignores the device's messages).
    transaction.on_commit(partial(_broker_revoke, str(device.pk)))
    return device


def _broker_revoke(device_id: str) -> None:
    try:
        broker_device_revoke(device_id=device_id)
    except BrokerAdminFailed:
        logger.exception("devices.broker_revoke_failed device=%s", device_id)
