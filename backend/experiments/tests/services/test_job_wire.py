"""The jobs built through the contract's dataclasses (iotsecbench_contract.jobspec) are byte
for byte the jobs the platform built before, by hand (#18 point 1): ``_old_job_for`` is the
pre-contract code, kept here as the reference for the wire format."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from django.conf import settings

from core.testing.factories import DeviceFactory
from devices.services import job_header
from experiments.kinds import kind_get
from experiments.models import Measurement, Protocol, Run, RunDevice, TopicIdType
from experiments.services.jobs import UPLOAD_CHUNK_RECORDS, UPLOAD_CHUNK_SAMPLES, _job_for
from experiments.services.oneway import _one_way_job
from netprofiles.models import DelayTable, NetworkProfile, ProfileKind

_SHORT = "0123456789abcdefghijklmnopqrstuvwxyz"


def _old_job_for(run_device: RunDevice, *, seq: int, now: float) -> dict[str, Any]:
    run = run_device.run
    device_id = str(run_device.device_id)
    base_url = f"{settings.PLATFORM_PUBLIC_URL}/api/agent/runs/{run.pk}"
    job = job_header(
        device_id=device_id,
        seq=seq,
        job_id=str(run_device.job_id),
        run_id=str(run.pk),
        kind=run.experiment.kind,
        now=now,
    )
    if kind_get(run.experiment.kind).samples:
        job["spec"] = run.spec
        job["upload"] = {"url": f"{base_url}/samples/", "chunk_samples": UPLOAD_CHUNK_SAMPLES}
        return job
    one_way = run.spec.get("measurement") == Measurement.ONE_WAY
    srup = run.spec.get("protocol") == Protocol.SRUP and not one_way
    topic: dict[str, Any] = {} if srup else {"topic": f"iotsecbench/data/{run.pk}/{device_id}"}
    if run.spec.get("protocol") == Protocol.MQTTSN:
        key = f"{run.pk}/{device_id}"
        digest = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")
        if run.spec.get("topic_id_type") == TopicIdType.SHORT:
            first, second = divmod(digest % len(_SHORT) ** 2, len(_SHORT))
            topic = {"topic": _SHORT[first] + _SHORT[second]}
        elif run.spec.get("topic_id_type") == TopicIdType.PREDEFINED:
            topic = {"topic": topic["topic"], "mqttsn_topic_id": 1 + digest % 65534}
    job["spec"] = {**run.spec, **topic}
    if "network_profile" in run.spec:
        frozen = run.spec["network_profile"]
        names = {d.get("table") for d in frozen["spec"].values() if d.get("table")}
        tables = {t.name: list(t.values) for t in DelayTable.objects.filter(name__in=names)}
        job["spec"]["network_profile"] = {
            "name": frozen["name"],
            "spec": frozen["spec"],
            "tables": tables,
        }
    if one_way:
        job["spec"].update(_one_way_job(run, run_device).to_dict())
    job["upload"] = {"url": f"{base_url}/records/", "chunk_records": UPLOAD_CHUNK_RECORDS}
    return job


BENCH = {"mechanisms": ["aes-128-cbc", "null"], "data_sizes": [16, 4096], "repetitions": 3}
DESIGNS: dict[str, dict[str, Any]] = {
    "mqtt": {},
    "mqtt-one-way-aes": {"measurement": "one_way", "payload_size": 16, "security": "aes-128-cbc"},
    "mqttsn": {"protocol": "mqttsn"},
    "mqttsn-short": {"protocol": "mqttsn", "topic_id_type": "short"},
    "mqttsn-predefined": {"protocol": "mqttsn", "topic_id_type": "predefined"},
    "coap": {"protocol": "coap"},
    "profile": {"network_profile": "PROFILE"},
    "cipher-bench": {"kind": "cipher_bench", **BENCH},
    "throughput": {"kind": "throughput", **BENCH, "window_ms": 100},
    "cipher-bench-openssl-cli": {
        "kind": "cipher_bench",
        **BENCH,
        "mechanisms": ["aes-128-cbc", "rc4"],
        "crypto_library": "openssl-cli",
    },
    "throughput-openssl": {
        "kind": "throughput",
        **BENCH,
        "window_ms": 100,
        "crypto_library": "openssl",
    },
    # At the contract's limits (iotsecbench_contract.limits), through its dataclasses.
    "cipher-bench-limits": {
        "kind": "cipher_bench",
        "mechanisms": ["null"],
        "data_sizes": [1, 1 << 30],
        "repetitions": 10_000,
    },
    "throughput-limits": {
        "kind": "throughput",
        "mechanisms": ["none"],
        "data_sizes": [1, 65_507],
        "repetitions": 1_000,
        "window_ms": 10_000,
    },
}


@pytest.mark.parametrize("design", list(DESIGNS))
@pytest.mark.django_db
def test_each_kinds_job_is_byte_for_byte_the_hand_built_one(
    personas, owner_client, monkeypatch, design
):
    monkeypatch.setattr("django.db.transaction.on_commit", lambda fn, **kw: None)
    devices = [DeviceFactory.create(workspace=personas.workspace) for _ in range(2)]
    body: dict[str, Any] = {
        "name": f"wire {design}",
        "device_ids": [str(d.pk) for d in devices],
        **DESIGNS[design],
    }
    if body.get("network_profile") == "PROFILE":
        DelayTable.objects.create(
            name="T1", mu_ms=50, sigma_ms=5, values=list(range(-64, 64)), source="test"
        )
        spec = {"ingress": {"delay_ms": 50, "jitter_ms": 5, "distribution": "table", "table": "T1"}}
        profile = NetworkProfile.objects.create(
            workspace=personas.workspace, name="lab", slug="lab", kind=ProfileKind.USER, spec=spec
        )
        body["network_profile"] = str(profile.pk)
    created = owner_client.post("/api/experiments/", body, format="json")
    assert created.status_code == 201, created.json()
    owner_client.post(f"/api/experiments/{created.json()['id']}/runs/")
    run = Run.objects.get(experiment_id=created.json()["id"])
    for part in RunDevice.objects.filter(run=run).select_related("run__experiment"):
        new = _job_for(part, seq=7, now=1000.0)
        old = _old_job_for(part, seq=7, now=1000.0)
        # What job_envelope signs (sort_keys) and what it would send unsorted: both equal.
        assert json.dumps(new, sort_keys=True) == json.dumps(old, sort_keys=True)
        assert json.dumps(new) == json.dumps(old)
