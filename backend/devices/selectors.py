from __future__ import annotations

from django.db.models import QuerySet

from accounts.models import Workspace
from devices.models import Device


def device_list(*, workspace: Workspace) -> QuerySet[Device]:
    return Device.objects.filter(workspace=workspace).order_by("name")
