"""The common base of protocol runners, and the registry that picks one for a job.

A runner measures one run: ``setup`` connects (and imports anything protocol- or
OS-specific, so the package imports everywhere), ``run`` measures and emits one Record per
message, ``cleanup`` releases everything and is always called, also after a failure.
"""

from __future__ import annotations

import abc
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, TypeVar

from iotsecbench_agent.errors import UnsupportedJob
from iotsecbench_agent.recordlog import Record

MESSAGING = "messaging"


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


class Runner(abc.ABC):
    """Base of every protocol runner; subclasses register with ``@register``."""

    protocol: ClassVar[str]
    measurements: ClassVar[tuple[str, ...]]

    def __init__(self, spec: Mapping[str, Any], context: RunContext) -> None:
        self.context = context
        self.validate_spec(spec)

    @classmethod
    @abc.abstractmethod
    def validate_spec(cls, spec: Mapping[str, Any]) -> None:
        """Raise UnsupportedJob (with a message for the user) if this runner cannot run it."""

    @abc.abstractmethod
    def setup(self) -> None:
        """Connect and prepare; nothing is measured yet."""

    @abc.abstractmethod
    def run(self) -> None:
        """Measure every message, calling ``context.emit`` once per message in order."""

    @abc.abstractmethod
    def cleanup(self) -> None:
        """Release connections; called after ``setup``, whatever happened."""

    def execute(self) -> None:
        try:
            self.setup()
            self.run()
        finally:
            self.cleanup()


_RUNNERS: dict[str, type[Runner]] = {}

R = TypeVar("R", bound=type[Runner])


def register(cls: R) -> R:
    """Class decorator: make ``cls`` the runner for its ``protocol``."""
    if cls.protocol in _RUNNERS:
        raise RuntimeError(f"two runners for protocol {cls.protocol!r}")
    _RUNNERS[cls.protocol] = cls
    return cls


def runner_for(kind: str, spec: Mapping[str, Any]) -> type[Runner]:
    """The runner class for a job, or UnsupportedJob saying what is not supported."""
    if kind != MESSAGING:
        raise UnsupportedJob(f"job kind {kind!r} is not supported by this agent")
    protocol = spec.get("protocol")
    cls = _RUNNERS.get(protocol) if isinstance(protocol, str) else None
    if cls is None:
        known = ", ".join(sorted(_RUNNERS)) or "none"
        raise UnsupportedJob(f"protocol {protocol!r} is not supported (supported: {known})")
    measurement = spec.get("measurement")
    if measurement not in cls.measurements:
        raise UnsupportedJob(
            f"measurement {measurement!r} is not supported for {cls.protocol} "
            f"(supported: {', '.join(cls.measurements)})"
        )
    return cls


def registered_protocols() -> list[str]:
    return sorted(_RUNNERS)
