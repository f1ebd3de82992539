from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from accounts.models import Workspace


class Device(models.Model):
    """An enrolled device agent (a Raspberry Pi or a local emulated device)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="devices")
    name = models.CharField(max_length=120)
    # SHA-256 of the agent's API token; the token itself is shown to the agent once.
    token_hash = models.CharField(max_length=64, unique=True)
    facts = models.JSONField(default=dict, blank=True)
    online = models.BooleanField(default=False)
    # Time of the newest status message applied. Status messages can arrive out of order
    # (a retained "online" replayed after a newer last-will "offline"): older ones are ignored.
    status_at = models.DateTimeField(null=True, blank=True)
    last_seen_at = models.DateTimeField(null=True, blank=True)
    # The last job sequence number issued to this device. Only ever grows (see
    # devices.services.device_next_job_seq); the agent refuses any job not above the last
    # one it accepted.
    job_seq = models.BigIntegerField(default=0)
    # The latest health check (devices.services.device_health_check): {status: pending |
    # passed | failed, job_id, requested_at, checked_at, checks: [{name, ok, detail,
    # value}], error}; {} before the first.
    health = models.JSONField(default=dict, blank=True)
    enrolled_at = models.DateTimeField(auto_now_add=True)
    # The broker client certificate issued at enrollment for the key the agent made (PEM;
    # devices/broker.py): secrets a job must carry are sealed to its public key.
    broker_certificate = models.TextField(blank=True, default="")
    # Revoked (devices.services.device_revoke): its token no longer works, its messages are
    # ignored, it gets no jobs and leaves the devices list; its past runs keep it.
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class EnrollmentToken(models.Model):
    """A one-time secret with which one agent enrolls into a workspace."""

    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="enrollment_tokens"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    device = models.OneToOneField(
        Device, on_delete=models.SET_NULL, null=True, blank=True, related_name="enrollment"
    )
