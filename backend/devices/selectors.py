from __future__ import annotations

from uuid import UUID

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from accounts.models import Workspace
from devices.models import Device


def device_list(*, workspace: Workspace) -> QuerySet[Device]:
    return Device.objects.filter(workspace=workspace, revoked_at__isnull=True).order_by("name")


def device_get(*, workspace: Workspace, device_id: UUID) -> Device:
    """The device if it is in the workspace; 404 otherwise (no existence leak)."""
    return get_object_or_404(device_list(workspace=workspace), pk=device_id)
