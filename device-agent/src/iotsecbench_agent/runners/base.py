"""The common base of protocol runners, and the registry that picks one for a job.

A runner measures one run: ``setup`` connects (and imports anything protocol- or
OS-specific, so the package imports everywhere), ``run`` measures and emits one Record per
message, ``cleanup`` releases everything and is always called, also after a failure.

Messaging runners are registered by ``protocol`` and ``measurement`` (one runner per
pair: the ``mqtt`` round trip and the ``mqtt`` one-way receiver are two); the runner of
another job kind (a benchmark kind, e.g. ``cipher_bench``, §7, or ``throughput``, §8) sets
``kind`` and is found through the list of kinds, ``jobkinds.py``. A runner whose
``log`` is ``SAMPLES`` emits ``samplelog.Sample`` through ``context.emit_sample`` instead
of records.
"""

from __future__ import annotations

import abc
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Protocol, TypeVar

from iotsecbench_contract.resources import RunResources

from iotsecbench_agent.errors import DataPlaneError, RunAborted, UnsupportedJob
from iotsecbench_agent.runners.resources import ResourceWindow, Traffic
from iotsecbench_agent.storage.recordlog import Record
from iotsecbench_agent.storage.samplelog import Sample

MESSAGING = "messaging"
# What a runner logs: one Record per message (§6) or one Sample per repetition (§7) or
# window (§8).
RECORDS = "records"
SAMPLES = "samples"


class RunClock:
    """One monotonic clock anchored to wall time once per run (§5 of the contract).

    ``perf_counter_ns`` readings are what the hot path takes; ``wall_ns`` turns one into
    ``anchor_wall + (reading - anchor_mono)``. Two converted readings differ by exactly the
    ``perf_counter_ns`` difference, so an RTT is immune to wall-clock steps during the run.
    """

    def __init__(self) -> None:
        self.anchor_wall = time.time_ns()
        self.anchor_mono = time.perf_counter_ns()

    def wall_ns(self, perf_ns: int) -> int:
        return self.anchor_wall + (perf_ns - self.anchor_mono)


@dataclass
class RunContext:
    """What a runner gets besides its spec."""

    run_id: str
    device_id: str
    clock: RunClock
    emit: Callable[[Record], None]
    stop: threading.Event
    # Set by the executor for runners whose ``log`` is SAMPLES.
    emit_sample: Callable[[Sample], None] | None = None
    # With an enforced network profile (enforcement.py): the relay's address, where the
    # runner connects instead of the broker (TLS still checks the broker's name).
    broker_via: tuple[str, int] | None = None
    # Publishes a control-plane event for this run's job ({"event": name, ...}; the
    # executor adds job_id and run_id): e.g. a one-way receiver saying it is ready.
    publish_event: Callable[[dict[str, Any]], None] | None = None
    # The device's API token, for runners that call the platform themselves (a one-way
    # receiver's clock probes to POST /api/agent/time/).
    api_token: str | None = None
    # Called once with a messaging run's resources when its measured window closes (also
    # when ``run`` raised): the executor keeps them for the final upload chunk.
    report_resources: Callable[[RunResources], None] | None = None


class SpecType(Protocol):
    """A runner's spec class: ``parse`` a job's spec, or raise UnsupportedJob."""

    @classmethod
    def parse(cls, spec: Mapping[str, Any]) -> Any: ...


class Runner(abc.ABC):
    """Base of every protocol runner; subclasses register with ``@register``."""

    kind: ClassVar[str] = MESSAGING
    log: ClassVar[str] = RECORDS
    protocol: ClassVar[str]
    measurements: ClassVar[tuple[str, ...]]
    # True for runners that connect through ``context.broker_via`` (so a job may carry
    # ``spec.network_profile``); the executor refuses a profile for any other runner.
    network_profiles: ClassVar[bool] = False
    # The runner's spec class, whose ``parse`` is what ``validate_spec`` checks a job's
    # spec with (a runner may override ``validate_spec`` instead).
    spec_type: ClassVar[type[SpecType] | None] = None

    def __init__(self, spec: Mapping[str, Any], context: RunContext) -> None:
        self.context = context
        self.validate_spec(spec)

    @classmethod
    def validate_spec(cls, spec: Mapping[str, Any]) -> None:
        """Raise UnsupportedJob (with a message for the user) if this runner cannot run it."""
        if cls.spec_type is None:
            raise NotImplementedError(f"{cls.__name__} has no spec_type nor validate_spec")
        cls.spec_type.parse(spec)

    @classmethod
    def planned_total(cls, spec: Mapping[str, Any]) -> int:
        """What progress counts up to (heartbeat ``total``): messages by default."""
        total = spec.get("message_count")
        return total if isinstance(total, int) and not isinstance(total, bool) else 0

    @abc.abstractmethod
    def setup(self) -> None:
        """Connect and prepare; nothing is measured yet."""

    @abc.abstractmethod
    def run(self) -> None:
        """Measure every message, calling ``context.emit`` once per message in order."""

    @abc.abstractmethod
    def cleanup(self) -> None:
        """Release connections; called after ``setup``, whatever happened."""

    def traffic(self) -> Traffic | None:
        """Bytes the run's client socket(s) have sent and received so far, over every
        socket the runner opened (a reconnect's too); what ``run`` adds is the run's
        ``bytes_sent``/``bytes_received`` (runners/resources.py). Every messaging runner
        overrides it; None (benchmark kinds): the run reports no resources."""
        return None

    def execute(self) -> None:
        """``setup``, ``run`` (the measured window, whose resources go to
        ``context.report_resources``), then ``cleanup`` whatever happened."""
        report = self.context.report_resources
        try:
            self.setup()
            if report is None or self.traffic() is None:
                # Nobody asked (a health check's probe run), or nothing to report: no window
                # (opening one resets the process's peak-memory mark).
                self.run()
                return
            window = ResourceWindow(self._traffic)
            try:
                self.run()
            finally:
                report(window.close())
        finally:
            self.cleanup()

    def _traffic(self) -> Traffic:
        traffic = self.traffic()
        if traffic is None:
            raise DataPlaneError(f"{type(self).__name__} stopped counting its sockets' bytes")
        return traffic


T = TypeVar("T")


def require(value: T | None) -> T:
    """``value``, which ``setup`` sets; DataPlaneError if the runner is used before it."""
    if value is None:
        raise DataPlaneError("runner used before setup()")
    return value


def message_seqs(count: int, stop: threading.Event) -> Iterator[int]:
    """The seqs of a run's ``count`` messages, in order; RunAborted instead of the next
    one once ``stop`` is set."""
    for seq in range(count):
        if stop.is_set():
            raise RunAborted(f"stopped after {seq} of {count} messages")
        yield seq


# Messaging runners by protocol, then by measurement (one runner per pair).
_RUNNERS: dict[str, dict[str, type[Runner]]] = {}

R = TypeVar("R", bound=type[Runner])


def register(cls: R) -> R:
    """Class decorator: make ``cls`` the runner for its ``protocol`` and each of its
    ``measurements`` (messaging runners; a benchmark kind's runner is in its ``BenchKind``)."""
    if cls.kind != MESSAGING:
        raise RuntimeError(f"{cls.__name__} runs {cls.kind!r} jobs: list its kind in jobkinds.py")
    by_measurement = _RUNNERS.setdefault(cls.protocol, {})
    for measurement in cls.measurements:
        if measurement in by_measurement:
            raise RuntimeError(f"two runners for {cls.protocol!r} {measurement!r}")
        by_measurement[measurement] = cls
    return cls


def messaging_runner_for(spec: Mapping[str, Any]) -> type[Runner]:
    """The messaging runner for a job's spec (its ``protocol`` and ``measurement``), or
    UnsupportedJob saying what is not supported. A job of any kind is looked up with
    ``jobkinds.runner_for``."""
    protocol = spec.get("protocol")
    runners = _RUNNERS.get(protocol) if isinstance(protocol, str) else None
    if runners is None:
        known = ", ".join(sorted(_RUNNERS)) or "none"
        raise UnsupportedJob(f"protocol {protocol!r} is not supported (supported: {known})")
    measurement = spec.get("measurement")
    cls = runners.get(measurement) if isinstance(measurement, str) else None
    if cls is None:
        raise UnsupportedJob(
            f"measurement {measurement!r} is not supported for {protocol} "
            f"(supported: {', '.join(runners)})"
        )
    return cls
