"""Runs with records, built the way production stores them: COPY of the agents' CSV format
(measurements.services.csv_copy), then the summary computed on completion."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from django.db import transaction

from accounts.models import Workspace
from core.testing.factories import DeviceFactory, ExperimentFactory
from devices.models import Device
from experiments.models import Experiment, ExperimentKind, Run, RunDevice, RunStatus
from measurements.models import Stream
from measurements.services import STREAMS, bench_summarize, csv_copy, run_summarize

T0 = 1_763_770_000_000_000_000
MS = 1_000_000  # ns

FACTS = {
    "hostname": "pi",
    "hardware_model": "Raspberry Pi 4 Model B Rev 1.4",
    "cpu_model": "ARM Cortex-A72",
    "cpu_cores": 4,
    "ram_bytes": 4 * 2**30,
    "kernel": "6.6.51+rpt-rpi-v8",
    "os": "Debian GNU/Linux 12 (bookworm)",
    "python_version": "3.11.2",
    "agent_version": "0.1.0",
    "libraries": {"paho-mqtt": "2.2.0", "pycryptodome": "4.4.0"},
    "clock_offset_ns": None,
}


def messaging_spec(**overrides: Any) -> dict[str, Any]:
    """A spec as experiments.services.designs._experiment_spec freezes it for a messaging run."""
    return {
        "broker_url": "mqtt://127.0.0.1:1883",
        "transport": "tcp",
        "protocol": "mqtt",
        "mqtt_version": "3.1.1",
        "qos": 1,
        "security": "none",
        "payload_size": 66,
        "message_count": 100,
        "interval_ms": 0,
        "interval_distribution": "fixed",
        "interval_seed": secrets.randbits(32),
        "measurement": "round_trip",
        "timeout_ms": 5000,
        **overrides,
    }


# A message: its round trip in ns (None: lost), or (rtt or None, outcome).
Message = int | None | tuple[int | None, str]


def _csv(messages: Sequence[Message], wire_bytes: int = 145, rotation: Sequence[str] = ()) -> bytes:
    """The records' CSV; in an interleaved run (``rotation``) each names its mechanism."""
    lines = [STREAMS[Stream.RECORDS].header.decode()]
    for seq, message in enumerate(messages):
        rtt, outcome = message if isinstance(message, tuple) else (message, None)
        outcome = outcome or ("lost" if rtt is None else "ok")
        t_send = T0 + seq * MS
        t_recv = "" if rtt is None else str(t_send + rtt)
        # secure_ns, unsecure_ns, floor_secure_ns, floor_unsecure_ns
        costs = ",,,," if rtt is None else ",1000,2000,100,200"
        mechanism = rotation[seq % len(rotation)] if rotation else ""
        lines.append(f"{seq},{t_send},{t_recv},66,{wire_bytes},{outcome}{costs},{mechanism}")
    return ("\n".join(lines) + "\n").encode()


@dataclass
class MadeRun:
    run: Run
    parts: list[RunDevice]


MakeRun = Callable[..., MadeRun]


@pytest.fixture
def make_run(personas: Any) -> MakeRun:
    """make_run({"pi-a": [rtt_ns, ...], ...}, spec=..., status=..., experiment=...,
    wire_bytes=...) (every record of the run gets those wire bytes)."""
    devices: dict[tuple[Any, str], Device] = {}

    def make(
        messages: dict[str, Sequence[Message]],
        *,
        spec: dict[str, Any] | None = None,
        status: str = RunStatus.DONE,
        experiment: Experiment | None = None,
        workspace: Workspace | None = None,
        name: str = "MQTT baseline",
        wire_bytes: int = 145,
    ) -> MadeRun:
        workspace = workspace or personas.workspace
        used = []
        for device_name in messages:
            key = (workspace.pk, device_name)
            if key not in devices:
                devices[key] = DeviceFactory.create(
                    workspace=workspace, name=device_name, facts=FACTS
                )
            used.append(devices[key])
        if experiment is None:
            experiment = ExperimentFactory.create(workspace=workspace, devices=used, name=name)
        run = Run.objects.create(
            experiment=experiment, status=status, spec=spec or messaging_spec()
        )
        parts = []
        with transaction.atomic():
            for device in used:
                part = RunDevice.objects.create(
                    run=run, device=device, status=status, facts=device.facts
                )
                csv_copy(
                    stream=STREAMS[Stream.RECORDS],
                    run_device_id=part.pk,
                    body=_csv(
                        messages[device.name],
                        wire_bytes,
                        run.spec.get("interleave_mechanisms") or (),
                    ),
                )
                parts.append(part)
        if status == RunStatus.DONE:
            run_summarize(run_id=run.pk)
        return MadeRun(run, parts)

    return make


def bench_spec(**overrides: Any) -> dict[str, Any]:
    """A spec as experiments.services.designs._experiment_spec freezes it for a benchmark run."""
    return {
        "mechanisms": ["aes-128-cbc", "ed25519"],
        "data_sizes": [16, 8192],
        "repetitions": 2,
        **overrides,
    }


# A sample: (mechanism, operation, data_bytes, wall_ns, cpu_ns, peak_rss_kb, packets or None);
# repetitions are numbered in order per mechanism, operation and size.
Sample = tuple[str, str, int, int, int, int, int | None]
MakeBenchRun = Callable[..., MadeRun]


@pytest.fixture
def make_bench_run(personas: Any) -> MakeBenchRun:
    """make_bench_run({"pi-a": [sample, ...]}, kind=..., spec=..., planned=...): a completed
    benchmark run, its samples COPYed as agents upload them and summarised."""

    def make(
        samples: dict[str, Sequence[Sample]],
        *,
        kind: str = ExperimentKind.CIPHER_BENCH,
        spec: dict[str, Any] | None = None,
        planned: int = 0,
        experiment: Any = None,
        repeat: int = 1,
        status: str = RunStatus.DONE,
    ) -> MadeRun:
        """`experiment`: add the run to it (its devices, by name), else a new one."""
        if experiment is None:
            devices = [
                DeviceFactory.create(workspace=personas.workspace, name=name, facts=FACTS)
                for name in samples
            ]
            experiment = ExperimentFactory.create(
                workspace=personas.workspace, devices=devices, name="OpenSSL on Pi", kind=kind
            )
        else:
            devices = [experiment.devices.get(name=name) for name in samples]
        run = Run.objects.create(
            experiment=experiment, status=status, spec=spec or bench_spec(), repeat=repeat
        )
        parts = []
        with transaction.atomic():
            for device in devices:
                part = RunDevice.objects.create(
                    run=run,
                    device=device,
                    status=RunStatus.DONE,
                    facts=device.facts,
                    total=planned,
                )
                lines = [STREAMS[Stream.SAMPLES].header.decode()]
                repetition: dict[tuple[str, str, int], int] = {}
                for mechanism, operation, size, wall, cpu, rss, packets in samples[device.name]:
                    key = (mechanism, operation, size)
                    repetition[key] = repetition.get(key, -1) + 1
                    lines.append(
                        f"{mechanism},{operation},{size},{repetition[key]},{wall},{cpu},{rss},"
                        + ("" if packets is None else str(packets))
                        + ","  # calls: one call per repetition
                    )
                csv_copy(
                    stream=STREAMS[Stream.SAMPLES],
                    run_device_id=part.pk,
                    body=("\n".join(lines) + "\n").encode(),
                )
                parts.append(part)
        bench_summarize(run_id=run.pk)
        return MadeRun(run, parts)

    return make
