from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

import pytest
from rest_framework.test import APIClient

from core.testing.factories import DeviceFactory, ExperimentFactory
from devices.authentication import token_hash
from experiments.models import Run, RunDevice, RunStatus

HEADER = "seq,t_send_ns,t_recv_ns,app_bytes,wire_bytes,outcome,secure_ns,unsecure_ns"
T0 = 1_763_770_000_000_000_000


def csv_chunk(rows: list[tuple[int, int, int | None, str]]) -> bytes:
    """Rows of (seq, t_send_ns, rtt_ns or None, outcome) in the agents' upload format."""
    lines = [HEADER]
    for seq, t_send, rtt, outcome in rows:
        t_recv = "" if rtt is None else str(t_send + rtt)
        costs = ",," if rtt is None else f",{1000 + seq},{2000 + seq}"
        lines.append(f"{seq},{t_send},{t_recv},66,70,{outcome}{costs}")
    return ("\n".join(lines) + "\n").encode()


@dataclass
class RunningRun:
    run: Run
    parts: list[RunDevice]
    agents: list[APIClient]


@pytest.fixture
def running_run(personas) -> RunningRun:
    clients, devices = [], []
    for name in ("pi-a", "pi-b"):
        secret = secrets.token_urlsafe(16)
        devices.append(
            DeviceFactory.create(
                workspace=personas.workspace, name=name, token_hash=token_hash(secret)
            )
        )
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Device {secret}")
        clients.append(client)
    experiment = ExperimentFactory.create(workspace=personas.workspace, devices=devices)
    run = Run.objects.create(experiment=experiment, status=RunStatus.RUNNING)
    parts = [
        RunDevice.objects.create(run=run, device=d, total=100, status=RunStatus.RUNNING)
        for d in devices
    ]
    return RunningRun(run, parts, clients)


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
