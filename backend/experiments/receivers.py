"""experiments' answers to the signals of the apps below it (connected in apps.py)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from devices.models import Device
from experiments.selectors import device_unfinished_run_ids


def device_unfinished_runs(*, device: Device, **_: Any) -> list[UUID]:
    """devices.signals.device_revoking: a device with queued or active runs stays."""
    return device_unfinished_run_ids(device=device)
