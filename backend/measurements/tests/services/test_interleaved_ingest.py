"""Ingest of an interleaved run's records (issue #20 point 3): each record's mechanism is
stored; records of agents before interleaved runs (10 columns) are stored without one."""

from __future__ import annotations

import pytest

from core.testing.factories import DeviceFactory, ExperimentFactory
from experiments.models import Run, RunDevice, RunStatus
from measurements.models import MessageRecord, Stream
from measurements.services.ingest import STREAMS, csv_copy

pytestmark = pytest.mark.django_db


def _part(personas) -> RunDevice:
    device = DeviceFactory.create(workspace=personas.workspace)
    experiment = ExperimentFactory.create(workspace=personas.workspace, devices=[device])
    run = Run.objects.create(experiment=experiment, status=RunStatus.RUNNING, spec={})
    return RunDevice.objects.create(run=run, device=device, status=RunStatus.RUNNING)


def test_ingest_stores_the_mechanism_each_record_names(personas):
    part = _part(personas)
    stream = STREAMS[Stream.RECORDS]
    rotation = ["none", "null", "aes-128-cbc"]
    lines = [stream.header.decode()] + [
        f"{seq},{1000 + seq},{2000 + seq},66,163,ok,10,20,1,2,{rotation[seq % 3]}"
        for seq in range(6)
    ]
    csv_copy(stream=stream, run_device_id=part.pk, body=("\n".join(lines) + "\n").encode())

    stored = list(MessageRecord.objects.filter(run_device=part).order_by("seq"))
    assert [r.mechanism for r in stored] == rotation * 2


def test_ingest_stores_no_mechanism_for_records_of_older_agents(personas):
    part = _part(personas)
    stream = STREAMS[Stream.RECORDS]
    header = ",".join(stream.columns[:10])
    body = f"{header}\n0,1000,2000,66,163,ok,10,20,1,2\n".encode()
    csv_copy(stream=stream, run_device_id=part.pk, body=body)

    assert MessageRecord.objects.get(run_device=part).mechanism is None
