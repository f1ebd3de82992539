from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import Workspace
from core.testing.factories import DeviceFactory, ExperimentFactory
from devices.authentication import token_hash
from experiments.models import Run, RunDevice, RunStatus

# The upload header of agents before interleaved runs (docs/control-plane.md §6; the current
# one adds `mechanism`), and the one of agents before the harness floor: both still accepted.
HEADER = (
    "seq,t_send_ns,t_recv_ns,app_bytes,wire_bytes,outcome,secure_ns,unsecure_ns,"
    "floor_secure_ns,floor_unsecure_ns"
)
HEADER_BEFORE_FLOOR = "seq,t_send_ns,t_recv_ns,app_bytes,wire_bytes,outcome,secure_ns,unsecure_ns"
T0 = 1_763_770_000_000_000_000


def csv_chunk(rows: list[tuple[int, int, int | None, str]], *, floors: bool = True) -> bytes:
    """Rows of (seq, t_send_ns, rtt_ns or None, outcome) in the agents' upload format:
    secure_ns = 1000 + seq, unsecure_ns = 2000 + seq and their floors 300 + seq and
    400 + seq on delivered rows, all four empty on lost ones. ``floors=False``: the format
    of agents before the floor (no floor columns)."""
    lines = [HEADER if floors else HEADER_BEFORE_FLOOR]
    for seq, t_send, rtt, outcome in rows:
        t_recv = "" if rtt is None else str(t_send + rtt)
        costs = ",," if rtt is None else f",{1000 + seq},{2000 + seq}"
        if floors:
            costs += ",," if rtt is None else f",{300 + seq},{400 + seq}"
        lines.append(f"{seq},{t_send},{t_recv},66,70,{outcome}{costs}")
    return ("\n".join(lines) + "\n").encode()


@dataclass
class RunningRun:
    run: Run
    parts: list[RunDevice]
    agents: list[APIClient]


def running_run_in(workspace: Workspace, names: tuple[str, ...]) -> RunningRun:
    """A running run of `workspace` on one new device per name, and an agent client each."""
    clients, devices = [], []
    for name in names:
        secret = secrets.token_urlsafe(16)
        devices.append(
            DeviceFactory.create(workspace=workspace, name=name, token_hash=token_hash(secret))
        )
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Device {secret}")
        clients.append(client)
    experiment = ExperimentFactory.create(workspace=workspace, devices=devices)
    run = Run.objects.create(experiment=experiment, status=RunStatus.RUNNING)
    parts = [
        RunDevice.objects.create(run=run, device=d, total=100, status=RunStatus.RUNNING)
        for d in devices
    ]
    return RunningRun(run, parts, clients)


@pytest.fixture
def running_run(personas) -> RunningRun:
    return running_run_in(personas.workspace, ("pi-a", "pi-b"))


def upload(
    client: APIClient,
    run: Run,
    body: bytes,
    *,
    index: int,
    final: bool,
    total: int | None,
    key: str | None = None,
    stream: str = "records",
) -> Any:  # DRF test response (json() is patched on)
    headers = {
        "Idempotency-Key": key or f"{run.pk}:{index}:{id(client)}",
        "X-Chunk-Index": str(index),
        "X-Final-Chunk": "true" if final else "false",
    }
    if total is not None:
        headers["X-Record-Total"] = str(total)
    return client.post(
        f"/api/agent/runs/{run.pk}/{stream}/", body, content_type="text/csv", headers=headers
    )
