"""Job verification (§4): one test per rejection reason, and acceptance, through the real
JobIntake with a fake control plane standing in for MQTT."""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path
from typing import Any

import pytest
from Crypto.PublicKey.ECC import EccKey

from iotsecbench_agent.platform.controlplane import Topics
from iotsecbench_agent.platform.events import EventPublisher, JobIntake
from iotsecbench_agent.platform.jobs import SEQ_FILE, Job, JobVerifier, SeqStore
from testkit import FakeControlPlane, make_job, new_key, sign_envelope

DEVICE = "6f1c1a52-3c1e-4a8e-9a57-1d0c2b7e9f10"
OTHER_DEVICE = "0b7e2f0e-9d5c-4c43-8f6e-4b1f6c2a8d33"


class Harness:
    def __init__(self, key: EccKey, state_dir: Path, now: float | None = None) -> None:
        self.transport = FakeControlPlane()
        self.submitted: list[Job] = []
        verifier = JobVerifier(
            public_key=key.public_key().export_key(format="raw"),
            device_id=DEVICE,
            seq_store=SeqStore(state_dir),
            clock=(lambda: now) if now is not None else time.time,
        )
        self.intake = JobIntake(
            verifier=verifier,
            events=EventPublisher(self.transport, Topics(f"iotsecbench/agents/{DEVICE}")),
            submit=self.submitted.append,
        )

    def events(self) -> list[dict[str, Any]]:
        return self.transport.on("/events")

    def rejection(self) -> dict[str, Any]:
        assert self.submitted == [], "a rejected job must run nothing"
        (event,) = self.events()
        assert event["event"] == "job_rejected"
        return event


@pytest.fixture
def harness(key: EccKey, tmp_path: Path) -> Harness:
    return Harness(key, tmp_path)


def test_job_rejected_as_malformed_when_envelope_is_unsigned(harness: Harness) -> None:
    payload = base64.b64encode(json.dumps(make_job(device_id=DEVICE, seq=1)).encode()).decode()
    harness.intake.handle(json.dumps({"alg": "ed25519", "payload": payload}).encode())

    event = harness.rejection()
    assert event["reason"] == "malformed"
    assert event["seq"] is None


def test_job_rejected_as_malformed_when_envelope_is_not_json(harness: Harness) -> None:
    harness.intake.handle(b"\xff not json")

    assert harness.rejection()["reason"] == "malformed"


def test_job_rejected_as_malformed_when_alg_is_not_ed25519(harness: Harness, key: EccKey) -> None:
    envelope = json.loads(sign_envelope(key, make_job(device_id=DEVICE, seq=1)))
    envelope["alg"] = "none"
    harness.intake.handle(json.dumps(envelope).encode())

    assert harness.rejection()["reason"] == "malformed"


def test_job_rejected_as_bad_signature_when_signed_by_another_key(harness: Harness) -> None:
    harness.intake.handle(sign_envelope(new_key(), make_job(device_id=DEVICE, seq=1)))

    event = harness.rejection()
    assert event["reason"] == "bad_signature"
    assert event["seq"] is None  # nothing from an unverified payload is trusted, not even seq


def test_job_rejected_as_bad_signature_when_payload_was_altered(
    harness: Harness, key: EccKey
) -> None:
    envelope = json.loads(sign_envelope(key, make_job(device_id=DEVICE, seq=1)))
    job = json.loads(base64.b64decode(envelope["payload"]))
    job["spec"]["message_count"] = 1_000_000
    envelope["payload"] = base64.b64encode(json.dumps(job).encode()).decode()
    harness.intake.handle(json.dumps(envelope).encode())

    assert harness.rejection()["reason"] == "bad_signature"


def test_job_rejected_as_foreign_when_addressed_to_another_device(
    harness: Harness, key: EccKey
) -> None:
    harness.intake.handle(sign_envelope(key, make_job(device_id=OTHER_DEVICE, seq=4)))

    event = harness.rejection()
    assert event == {"ts": event["ts"], "event": "job_rejected", "reason": "foreign", "seq": 4}


def test_job_rejected_as_expired_when_expires_at_has_passed(harness: Harness, key: EccKey) -> None:
    harness.intake.handle(sign_envelope(key, make_job(device_id=DEVICE, seq=5, expires_in_s=-1)))

    event = harness.rejection()
    assert (event["reason"], event["seq"]) == ("expired", 5)


def test_job_rejected_as_expired_when_expires_at_equals_now(key: EccKey, tmp_path: Path) -> None:
    job = make_job(device_id=DEVICE, seq=5)
    harness = Harness(key, tmp_path, now=job["expires_at"])
    harness.intake.handle(sign_envelope(key, job))

    assert harness.rejection()["reason"] == "expired"


def test_job_rejected_as_replayed_when_seq_was_already_accepted(
    harness: Harness, key: EccKey
) -> None:
    envelope = sign_envelope(key, make_job(device_id=DEVICE, seq=7))
    harness.intake.handle(envelope)
    harness.intake.handle(envelope)  # the very same signed message again
    harness.intake.handle(sign_envelope(key, make_job(device_id=DEVICE, seq=6)))

    accepted, replayed, older = harness.events()
    assert accepted["event"] == "job_accepted"
    assert (replayed["reason"], replayed["seq"]) == ("replayed", 7)
    assert (older["reason"], older["seq"]) == ("replayed", 6)
    assert len(harness.submitted) == 1


def test_job_rejected_as_replayed_when_agent_restarted_since_accepting_it(
    key: EccKey, tmp_path: Path
) -> None:
    envelope = sign_envelope(key, make_job(device_id=DEVICE, seq=9))
    Harness(key, tmp_path).intake.handle(envelope)

    restarted = Harness(key, tmp_path)  # new verifier, same state directory
    restarted.intake.handle(envelope)

    assert restarted.rejection()["reason"] == "replayed"


def test_job_rejected_as_malformed_when_signed_payload_lacks_upload(
    harness: Harness, key: EccKey, tmp_path: Path
) -> None:
    job = make_job(device_id=DEVICE, seq=1)
    del job["upload"]
    harness.intake.handle(sign_envelope(key, job))

    assert harness.rejection()["reason"] == "malformed"
    assert not (tmp_path / SEQ_FILE).exists(), "a rejected job must not consume its seq"


@pytest.mark.parametrize("kind", ["cancel", "health_check"])
def test_control_jobs_need_no_upload_and_are_accepted_without_one(
    harness: Harness, key: EccKey, kind: str
) -> None:
    job = {**make_job(device_id=DEVICE, seq=3), "kind": kind, "spec": {"job_id": "x"}}
    del job["upload"]
    harness.intake.handle(sign_envelope(key, job))

    (submitted,) = harness.submitted
    assert (submitted.kind, submitted.upload) == (kind, None)


def test_job_accepted_when_signed_fresh_and_newer(
    harness: Harness, key: EccKey, tmp_path: Path
) -> None:
    job = make_job(device_id=DEVICE, seq=17)
    harness.intake.handle(sign_envelope(key, job))

    (submitted,) = harness.submitted
    assert (submitted.job_id, submitted.run_id, submitted.seq) == (
        job["job_id"],
        job["run_id"],
        17,
    )
    assert submitted.upload is not None
    assert submitted.upload.chunk_records == 5000
    (event,) = harness.events()
    assert event == {"ts": event["ts"], "event": "job_accepted", "job_id": job["job_id"], "seq": 17}
    assert json.loads((tmp_path / SEQ_FILE).read_text()) == {"highest_seq": 17}
    (published,) = harness.transport.published
    assert (published.topic, published.qos, published.retain) == (
        f"iotsecbench/agents/{DEVICE}/events",
        1,
        False,
    )


def test_seq_store_fails_closed_when_file_is_corrupt(key: EccKey, tmp_path: Path) -> None:
    (tmp_path / SEQ_FILE).write_text("{not json")
    harness = Harness(key, tmp_path)
    harness.intake.handle(sign_envelope(key, make_job(device_id=DEVICE, seq=100)))

    assert harness.rejection()["reason"] == "malformed"
