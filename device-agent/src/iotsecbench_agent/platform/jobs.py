"""Signed jobs (§4 of docs/control-plane.md): envelope parsing, Ed25519 verification, and
the seq/expiry/device checks, in the contract's order.

A job is run only if it is signed by the platform's enrolled key, addressed to this device,
not expired, and newer than every job accepted before. The highest accepted ``seq`` is
persisted atomically in the state directory, so a restart does not reopen the replay window.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import math
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from Crypto.Signature import eddsa

from iotsecbench_agent.errors import AgentError
from iotsecbench_agent.storage.fsutil import atomic_write_text

logger = logging.getLogger(__name__)

SEQ_FILE = "job_seq.json"
JOB_FORMAT_VERSION = 1
ED25519_SIGNATURE_BYTES = 64

MALFORMED = "malformed"
BAD_SIGNATURE = "bad_signature"
FOREIGN = "foreign"
EXPIRED = "expired"
REPLAYED = "replayed"


class JobRejected(AgentError):
    """A job failed verification; ``reason`` is the contract's rejection reason."""

    def __init__(self, reason: str, detail: str, *, seq: int | None = None) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail
        self.seq = seq


@dataclass(frozen=True)
class UploadTarget:
    url: str
    chunk_records: int  # lines per chunk: `chunk_records` (§6) or `chunk_samples` (§7)


@dataclass(frozen=True)
class Job:
    """A verified job. ``spec`` stays a mapping: each runner validates its own kind's spec,
    so a well-signed job with an unsupported spec fails visibly (job_failed) rather than
    being indistinguishable from a forged one."""

    device_id: str
    seq: int
    issued_at: float
    expires_at: float
    job_id: str
    run_id: str
    kind: str
    spec: Mapping[str, Any]
    upload: UploadTarget | None  # None for the CONTROL_KINDS


class SeqStore:
    """The highest accepted job ``seq``, persisted in ``<state-dir>/job_seq.json``."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / SEQ_FILE

    def highest(self) -> int | None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            # Failing closed: an unreadable replay window must not silently reset to "none".
            raise AgentError(f"cannot read {self.path}: {exc}") from None
        value = _as_int(data.get("highest_seq")) if isinstance(data, dict) else None
        if value is None:
            raise AgentError(f"{self.path} holds no integer `highest_seq`")
        return value

    def store(self, seq: int) -> None:
        atomic_write_text(self.path, json.dumps({"highest_seq": seq}) + "\n")


class JobVerifier:
    """Verifies raw envelopes for one device. ``accept`` checks and records the seq under a
    lock, so two deliveries of one job cannot both pass the replay check."""

    def __init__(
        self,
        *,
        public_key: bytes,
        device_id: str,
        seq_store: SeqStore,
        clock: Callable[[], float] = time.time,
    ) -> None:
        try:
            self._key = eddsa.import_public_key(public_key)
        except ValueError as exc:
            raise AgentError(f"job_public_key is not an Ed25519 key: {exc}") from None
        self._device_id = device_id
        self._seq_store = seq_store
        self._clock = clock
        self._lock = threading.Lock()

    def accept(self, raw: bytes) -> Job:
        """Verify ``raw`` and record its seq as the highest accepted; raise JobRejected."""
        payload = self._verified_payload(raw)
        with self._lock:
            job = self._check(payload)
            self._seq_store.store(job.seq)
        return job

    def _verified_payload(self, raw: bytes) -> bytes:
        # 1. envelope shape and algorithm
        try:
            envelope = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise JobRejected(MALFORMED, "envelope is not JSON") from None
        if not isinstance(envelope, dict):
            raise JobRejected(MALFORMED, "envelope is not a JSON object")
        if envelope.get("alg") != "ed25519":
            raise JobRejected(MALFORMED, f"unsupported alg {envelope.get('alg')!r}")
        payload = _b64_field(envelope, "payload")
        signature = _b64_field(envelope, "sig")
        if len(signature) != ED25519_SIGNATURE_BYTES:
            raise JobRejected(MALFORMED, f"signature is {len(signature)} bytes, not 64")
        # 2. signature over exactly the payload bytes
        try:
            eddsa.new(self._key, "rfc8032").verify(payload, signature)
        except ValueError:
            raise JobRejected(BAD_SIGNATURE, "signature does not verify") from None
        return payload

    def _check(self, payload: bytes) -> Job:
        try:
            job = json.loads(payload.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise JobRejected(MALFORMED, "signed payload is not JSON") from None
        if not isinstance(job, dict):
            raise JobRejected(MALFORMED, "signed payload is not a JSON object")
        if job.get("v") != JOB_FORMAT_VERSION:
            raise JobRejected(MALFORMED, f"unsupported job version {job.get('v')!r}")
        seq = _as_int(job.get("seq"))
        if seq is None or seq < 0:
            raise JobRejected(MALFORMED, "`seq` is not a non-negative integer")
        # 3. addressed to this device
        if job.get("device_id") != self._device_id:
            raise JobRejected(FOREIGN, f"job is for device {job.get('device_id')!r}", seq=seq)
        # 4. not expired
        expires_at = _number(job, "expires_at", seq)
        if expires_at <= self._clock():
            raise JobRejected(EXPIRED, f"expired at {expires_at}", seq=seq)
        # 5. newer than anything accepted before
        highest = self._seq_store.highest()
        if highest is not None and seq <= highest:
            raise JobRejected(REPLAYED, f"seq {seq} <= highest accepted {highest}", seq=seq)
        return _parse_job(job, seq=seq, expires_at=expires_at)


# Jobs that act on the agent rather than measure (docs/control-plane.md §4): no upload.
CONTROL_KINDS = ("cancel", "health_check", "serve")


def _parse_job(job: Mapping[str, Any], *, seq: int, expires_at: float) -> Job:
    spec = job.get("spec")
    if not isinstance(spec, dict):
        raise JobRejected(MALFORMED, "`spec` is not an object", seq=seq)
    kind = job.get("kind")
    if not isinstance(kind, str) or not kind:
        raise JobRejected(MALFORMED, "`kind` is not a string", seq=seq)
    return Job(
        device_id=str(job["device_id"]),
        seq=seq,
        issued_at=_number(job, "issued_at", seq),
        expires_at=expires_at,
        job_id=_uuid(job, "job_id", seq),
        run_id=_uuid(job, "run_id", seq),
        kind=kind,
        spec=spec,
        upload=None if kind in CONTROL_KINDS else _upload(job, seq),
    )


def _upload(job: Mapping[str, Any], seq: int) -> UploadTarget:
    upload = job.get("upload")
    if not isinstance(upload, dict):
        raise JobRejected(MALFORMED, "`upload` is not an object", seq=seq)
    url = upload.get("url")
    # Records (§6) come in chunks of `chunk_records`, cipher-bench samples (§7) of
    # `chunk_samples`; either way it is the number of CSV lines per upload chunk.
    chunk_key = "chunk_samples" if "chunk_samples" in upload else "chunk_records"
    chunk_records = _as_int(upload.get(chunk_key))
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise JobRejected(MALFORMED, "`upload.url` is not an http(s) URL", seq=seq)
    if chunk_records is None or chunk_records < 1:
        raise JobRejected(MALFORMED, f"`upload.{chunk_key}` is not a positive integer", seq=seq)
    return UploadTarget(url=url, chunk_records=chunk_records)


def _b64_field(envelope: Mapping[str, Any], key: str) -> bytes:
    value = envelope.get(key)
    if not isinstance(value, str):
        raise JobRejected(MALFORMED, f"`{key}` is missing or not a string")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise JobRejected(MALFORMED, f"`{key}` is not valid base64") from None


def _number(job: Mapping[str, Any], key: str, seq: int) -> float:
    value = job.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise JobRejected(MALFORMED, f"`{key}` is not a number", seq=seq)
    return float(value)


def _uuid(job: Mapping[str, Any], key: str, seq: int) -> str:
    value = job.get(key)
    try:
        # Run ids become file names under runs/: only canonical UUIDs get that far.
        if isinstance(value, str) and str(uuid.UUID(value)) == value:
            return value
    except ValueError:
        pass
    raise JobRejected(MALFORMED, f"`{key}` is not a lower-case UUID", seq=seq)


def _as_int(value: object) -> int | None:
    """``value`` if it is a JSON integer (not a bool, not a float), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None
