"""The long-running agent: wires the control plane, job intake, executor and heartbeats,
and owns the lifecycle (online status, last will, clean shutdown)."""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from iotsecbench_agent.brokerurl import parse_mqtt_url
from iotsecbench_agent.errors import ConfigError, PlatformRejected, PlatformUnavailable
from iotsecbench_agent.netemu.errors import NetemuError
from iotsecbench_agent.platform.api import PlatformApi, RetryPolicy, upload_policy
from iotsecbench_agent.platform.controlplane import (
    ControlPlane,
    ControlPlaneOptions,
    PahoControlPlane,
    Topics,
    status_message,
)
from iotsecbench_agent.platform.events import JOBS_QOS, EventPublisher, JobIntake
from iotsecbench_agent.platform.identity import BrokerIdentity
from iotsecbench_agent.platform.jobs import JobVerifier, SeqStore
from iotsecbench_agent.platform.progress import Progress
from iotsecbench_agent.platform.uploader import Uploader
from iotsecbench_agent.runtime.config import DEFAULT_UPLOAD_RETRY_S, AgentState
from iotsecbench_agent.runtime.executor import JobExecutor
from iotsecbench_agent.runtime.facts import collect_facts

logger = logging.getLogger(__name__)

# §3 of the contract: every 0.5 s while a job runs, every 10 s when idle.
HEARTBEAT_ACTIVE_S = 0.5
HEARTBEAT_IDLE_S = 10.0
# How long shutdown waits for the current step of a job (it stops between messages).
SHUTDOWN_JOIN_S = 10.0
# The offline status is QoS 1: wait this long for the broker's PUBACK before disconnecting.
OFFLINE_PUBLISH_WAIT_S = 2.0
# Facts are nice to have at start-up, not worth delaying jobs by more than a few seconds.
FACTS_RETRY = RetryPolicy(attempts=3, base_delay_s=1.0)

TransportFactory = Callable[[ControlPlaneOptions], ControlPlane]


@dataclass(frozen=True)
class AgentOptions:
    state_dir: Path
    state: AgentState
    identity: BrokerIdentity = field(default_factory=BrokerIdentity)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    heartbeat_active_s: float = HEARTBEAT_ACTIVE_S
    heartbeat_idle_s: float = HEARTBEAT_IDLE_S
    network_backend: str = "auto"  # enforcement.choose_backend: auto, netem or userspace
    # How long one upload retries 5xx answers and connection errors (config.py).
    upload_retry_s: float = DEFAULT_UPLOAD_RETRY_S


class Agent:
    def __init__(
        self,
        options: AgentOptions,
        *,
        transport_factory: TransportFactory = PahoControlPlane,
    ) -> None:
        self.options = options
        self.stop = threading.Event()
        self._wake = threading.Event()
        state = options.state
        self.topics = Topics(state.topic_prefix)
        self.progress = Progress(on_change=self._wake.set)
        self.transport = transport_factory(
            ControlPlaneOptions(
                broker=parse_mqtt_url(state.mqtt_url),
                client_id=f"iotsecbench-agent-{state.device_id}",
                will=status_message(self.topics, "offline"),
                birth=lambda: status_message(self.topics, "online"),
                tls_context=options.identity.control_tls_context(),
            )
        )
        self.api = PlatformApi(
            server_url=state.server_url, api_token=state.api_token, retry=options.retry
        )
        self.events = EventPublisher(self.transport, self.topics)
        self.executor = JobExecutor(
            state_dir=options.state_dir,
            device_id=state.device_id,
            api=self.api,
            uploader=Uploader(
                self.api, device_id=state.device_id, retry=upload_policy(options.upload_retry_s)
            ),
            events=self.events,
            progress=self.progress,
            stop=self.stop,
            network_backend=options.network_backend,
            identity=options.identity,
        )
        self.intake = JobIntake(
            verifier=JobVerifier(
                public_key=state.public_key_bytes,
                device_id=state.device_id,
                seq_store=SeqStore(options.state_dir),
            ),
            events=self.events,
            submit=self.executor.submit,
        )

    def request_stop(self) -> None:
        """Ask ``run`` to return (safe to call from a signal handler)."""
        self.stop.set()
        self._wake.set()

    def run(self) -> None:
        """Run until ``request_stop``; raises ControlPlaneError/ConfigError on start-up."""
        sweep_stale_links()
        self._post_facts()
        self.transport.subscribe(self.topics.jobs, qos=JOBS_QOS, handler=self.intake.handle)
        self.transport.connect()
        logger.info(
            "agent.started device_id=%s broker=%s",
            self.options.state.device_id,
            self.transport_address(),
        )
        try:
            self.executor.start()
            self._heartbeat_loop()
        finally:
            self._shutdown()

    def transport_address(self) -> str:
        broker = parse_mqtt_url(self.options.state.mqtt_url)
        return f"{broker.host}:{broker.port}"

    def _heartbeat_loop(self) -> None:
        # Phase changes set _wake, so "running", "done" etc. are reported at once; in between
        # the cadence follows the phase.
        while not self.stop.is_set():
            self.events.heartbeat(self.progress)
            interval = (
                self.options.heartbeat_active_s
                if self.progress.active
                else self.options.heartbeat_idle_s
            )
            self._wake.wait(interval)
            self._wake.clear()

    def _shutdown(self) -> None:
        logger.info("agent.stopping")
        self.stop.set()
        try:
            self.executor.shutdown(SHUTDOWN_JOIN_S)
            offline = status_message(self.topics, "offline")
            self.transport.publish(
                offline.topic,
                offline.payload,
                qos=offline.qos,
                retain=offline.retain,
                wait_s=OFFLINE_PUBLISH_WAIT_S,
            )
        finally:
            self.transport.disconnect()
            logger.info("agent.stopped")

    def _post_facts(self) -> None:
        try:
            self.api.post_facts(collect_facts(), policy=FACTS_RETRY)
        except PlatformRejected as exc:
            if exc.status in (401, 403):
                raise ConfigError(
                    f"the platform rejected this device's credentials ({exc}) — re-enroll with "
                    f"`iotsecbench-agent enroll --force --server URL --token TOKEN "
                    f"--state-dir {self.options.state_dir}`"
                ) from None
            logger.warning("agent.facts_rejected error=%s", exc)
        except PlatformUnavailable as exc:
            logger.warning("agent.facts_not_sent error=%s", exc)
        else:
            logger.info("agent.facts_sent")


def sweep_stale_links() -> None:
    """Remove the emulated links of agents that were killed without tearing them down
    (netemu/owners.py); links of live agents on this host are kept. Never fatal: a link
    left here only keeps its 10.77.k.0/30 subnet taken."""
    if os.geteuid() != 0:
        return  # only root makes links, and only root could remove them
    from iotsecbench_agent.netemu.owners import sweep_stale

    try:
        swept = sweep_stale()
    except (NetemuError, OSError) as exc:
        logger.warning("agent.link_sweep_failed error=%s", exc)
        return
    if swept:
        logger.info("agent.links_swept links=%s", ",".join(swept))
