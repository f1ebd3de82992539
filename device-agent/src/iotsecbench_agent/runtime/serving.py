"""Serving a run as its target device (job kind ``serve``; docs/coap.md, docs/mqttsn.md
"Another device as the target").

A design may name another enrolled device of its workspace as what its clients talk to:
the MQTT-SN paper's two-Pi topology (client Pi → Wi-Fi → gateway Pi) or a device acting as
CoAP server. The platform sends that device a ``serve`` job before the clients' jobs:

- ``role: "gateway"`` runs the agent's transparent MQTT-SN gateway (``mqttsn.gateway``) in
  front of the job's ``broker_url`` (the platform's broker, with this device's own data-plane
  credentials added on the device by ``platform.identity``: none travel in the job), with
  the run's ``predefined`` topic ids;
- ``role: "server"`` runs the agent's CoAP echo server (``runners.coap_server``) with its
  resource at ``coap_path`` (default ``echo``).

It listens on a free UDP port of the address this device reaches the platform's broker
from (the local address of a UDP socket connected towards the broker's host: no packet is
sent) and reports ``target_serving`` with ``address`` ("host:port", the host replaced by
the job's ``advertise_host`` when the design names one): the platform sends the clients
there.
It serves, beside any job the executor runs, until the platform cancels the job (the run
ended) or the agent stops; a server that cannot start is reported ``target_failed`` with
the reason, and so is a gateway whose thread ended while the run still needed it.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from iotsecbench_contract.jobspec import DEFAULT_RECONNECT_BUDGET_S, TARGET_FAILED, TARGET_SERVING

from iotsecbench_agent.brokerurl import host_port, parse_mqtt_url
from iotsecbench_agent.errors import AgentError, UnsupportedJob
from iotsecbench_agent.platform.jobs import Job

logger = logging.getLogger(__name__)

GATEWAY = "gateway"
SERVER = "server"
# How often a serving job looks at its stop flag and at its server's thread.
WATCH_S = 0.5

Report = Callable[[dict[str, Any], Job], None]


class _Server(Protocol):
    @property
    def address(self) -> tuple[str, int]: ...

    def alive(self) -> bool: ...

    def close(self) -> None: ...


def advertised_host(spec: Mapping[str, Any], bound: str) -> str:
    """The address the run's clients are sent to: ``advertise_host`` when the job names one
    (a NAT or a name in front of this device), else the address it listens on."""
    given = spec.get("advertise_host")
    if given is None:
        return bound
    if not isinstance(given, str) or not given:
        raise UnsupportedJob("spec.advertise_host must be a host address")
    return given


def route_host(spec: Mapping[str, Any]) -> str:
    """This device's local address on the route to the platform's broker: where a peer on
    the same network reaches it."""
    broker = parse_mqtt_url(_text(spec, "broker_url"))
    family = socket.AF_INET6 if ":" in broker.host else socket.AF_INET
    with socket.socket(family, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect((broker.host, broker.port))
        except OSError as exc:
            raise AgentError(f"no route to the broker {broker.host}: {exc}") from None
        return str(probe.getsockname()[0])


def _text(spec: Mapping[str, Any], name: str) -> str:
    value = spec.get(name)
    if not isinstance(value, str) or not value:
        raise UnsupportedJob(f"spec.{name} is missing")
    return value


class _GatewayServer:
    def __init__(self, spec: Mapping[str, Any], host: str) -> None:
        from iotsecbench_agent.mqttsn.gateway import Gateway

        predefined = spec.get("predefined") or {}
        if not isinstance(predefined, Mapping):
            raise UnsupportedJob("spec.predefined must map topic ids to topic names")
        try:
            topics = {int(k): str(v) for k, v in predefined.items()}
        except ValueError:
            raise UnsupportedJob("spec.predefined must map topic ids to topic names") from None
        budget = spec.get("reconnect_budget_s", DEFAULT_RECONNECT_BUDGET_S)
        self._gateway = Gateway(
            parse_mqtt_url(_text(spec, "broker_url")),
            host=host,
            port=0,
            predefined=topics,
            reconnect_budget_s=float(budget),
        )
        self._gateway.start()

    @property
    def address(self) -> tuple[str, int]:
        return self._gateway.address

    def alive(self) -> bool:
        return self._gateway.alive()

    def close(self) -> None:
        self._gateway.close()


class _CoapServer:
    def __init__(self, spec: Mapping[str, Any], host: str) -> None:
        from iotsecbench_agent.runners.coap_roundtrip import check_coap_path
        from iotsecbench_agent.runners.coap_server import ECHO_PATH, CoapEchoServer

        path = spec.get("coap_path")
        self._server = CoapEchoServer(
            host=host, port=0, path=ECHO_PATH if path is None else check_coap_path(path)
        ).start()

    @property
    def address(self) -> tuple[str, int]:
        return self._server.host, self._server.port

    def alive(self) -> bool:
        return True  # its event loop ends only at close

    def close(self) -> None:
        self._server.stop()


SERVERS: dict[str, Callable[[Mapping[str, Any], str], _Server]] = {
    GATEWAY: _GatewayServer,
    SERVER: _CoapServer,
}


class Serving:
    """The serve jobs this agent runs, each in a thread of its own, by job id."""

    def __init__(self, report: Report, agent_stop: threading.Event) -> None:
        self._report = report
        self._agent_stop = agent_stop
        self._lock = threading.Lock()
        self._stops: dict[str, threading.Event] = {}
        self._threads: dict[str, threading.Thread] = {}

    def start(self, job: Job) -> None:
        stop = threading.Event()
        thread = threading.Thread(
            target=self._serve, args=(job, stop), name="agent-serve", daemon=True
        )
        with self._lock:
            self._stops[job.job_id] = stop
            self._threads[job.job_id] = thread
        thread.start()

    def cancel(self, job_id: str) -> bool:
        """Stop a serve job (the platform's cancel at the run's end). False: no such job."""
        with self._lock:
            stop = self._stops.get(job_id)
        if stop is None:
            return False
        stop.set()
        return True

    def join(self, job_id: str, timeout: float) -> None:
        with self._lock:
            thread = self._threads.get(job_id)
        if thread is not None:
            thread.join(timeout)

    def _serve(self, job: Job, stop: threading.Event) -> None:
        server: _Server | None = None
        try:
            server = self._open(job)
            host, port = server.address
            address = host_port(advertised_host(job.spec, host), port)
        except Exception as exc:  # noqa: BLE001 (every cause is reported to the platform)
            message = str(exc) if isinstance(exc, AgentError) else repr(exc)
            logger.warning("agent.serve_failed job_id=%s error=%s", job.job_id, message)
            self._report({"event": TARGET_FAILED, "message": message}, job)
            if server is not None:
                server.close()
            self._forget(job.job_id)
            return
        logger.info("agent.serving job_id=%s run_id=%s address=%s", job.job_id, job.run_id, address)
        self._report({"event": TARGET_SERVING, "address": address}, job)
        try:
            while not (stop.wait(WATCH_S) or self._agent_stop.is_set()):
                if not server.alive():
                    message = f"the {job.spec.get('role')} on {address} stopped serving"
                    self._report({"event": TARGET_FAILED, "message": message}, job)
                    break
        finally:
            server.close()
            self._forget(job.job_id)
            logger.info("agent.serve_ended job_id=%s", job.job_id)

    def _open(self, job: Job) -> _Server:
        role = job.spec.get("role")
        if role not in SERVERS:
            raise UnsupportedJob(f"spec.role must be one of {', '.join(SERVERS)}, got {role!r}")
        return SERVERS[role](job.spec, route_host(job.spec))

    def _forget(self, job_id: str) -> None:
        with self._lock:
            self._stops.pop(job_id, None)
            self._threads.pop(job_id, None)
