"""The executor set up for runs with a network profile (test_netemu_run*.py): a fake
platform and control plane, signed jobs, and the check that no link outlives its run."""

from __future__ import annotations

import threading
import uuid
from pathlib import Path
from typing import Any

from Crypto.PublicKey.ECC import EccKey

from iotsecbench_agent.netemu import nsutil
from iotsecbench_agent.platform.api import PlatformApi, RetryPolicy
from iotsecbench_agent.platform.controlplane import Topics
from iotsecbench_agent.platform.events import EventPublisher
from iotsecbench_agent.platform.jobs import Job, JobVerifier, SeqStore
from iotsecbench_agent.platform.progress import Progress
from iotsecbench_agent.platform.uploader import Uploader
from iotsecbench_agent.runtime.enforcement import link_name
from iotsecbench_agent.runtime.executor import JobExecutor
from testkit import TOKEN, FakeControlPlane, FakePlatform, make_job, sign_envelope

DEVICE = "6f1c1a52-3c1e-4a8e-9a57-1d0c2b7e9f10"
FAST = RetryPolicy(attempts=2, base_delay_s=0.01)


def no_link_left(run_id: str, device_id: str = DEVICE) -> bool:
    """True when the run's namespace (``isb-<link_name(run_id, device_id)>``) is gone."""
    return f"isb-{link_name(run_id, device_id)}" not in nsutil.netns_list()


class Harness:
    def __init__(
        self,
        platform: FakePlatform,
        state_dir: Path,
        key: EccKey,
        device_id: str = DEVICE,
        network_backend: str = "auto",
    ) -> None:
        self.device_id = device_id
        self.state_dir = state_dir
        self.key = key
        self.platform = platform
        self.transport = FakeControlPlane()
        self.stop = threading.Event()
        self.run_ids: list[str] = []
        api = PlatformApi(server_url=platform.url, api_token=TOKEN, retry=FAST)
        self.executor = JobExecutor(
            state_dir=state_dir,
            device_id=device_id,
            api=api,
            uploader=Uploader(api, device_id=device_id, retry=FAST),
            events=EventPublisher(self.transport, Topics(f"iotsecbench/agents/{device_id}")),
            progress=Progress(),
            stop=self.stop,
            network_backend=network_backend,
        )
        self._seq = 0

    def job(self, *, kind: str = "messaging", run_id: str | None = None, **spec: Any) -> Job:
        run_id = run_id or str(uuid.uuid4())
        self.run_ids.append(run_id)
        self._seq += 1
        raw = make_job(
            device_id=self.device_id, seq=self._seq, run_id=run_id,
            upload_url=self.platform.records_url(run_id), **spec,
        )  # fmt: skip
        raw["kind"] = kind
        verifier = JobVerifier(
            public_key=self.key.public_key().export_key(format="raw"),
            device_id=self.device_id,
            seq_store=SeqStore(self.state_dir),
        )
        return verifier.accept(sign_envelope(self.key, raw))

    def events(self, name: str) -> list[dict[str, Any]]:
        return [e for e in self.transport.on("/events") if e["event"] == name]

    def failures(self) -> list[str]:
        """The ``job_failed`` messages, each also reported to the platform's fail API."""
        messages = [str(e["message"]) for e in self.events("job_failed")]
        fails = [r for r in self.platform.to("/api/agent/runs/") if r.path.endswith("/fail/")]
        reported = [r.json()["message"] for r in fails]
        assert reported == messages
        return messages
