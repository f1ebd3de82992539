"""What a throughput run measures (§8 of docs/control-plane.md): the spec, validated, as a
``ThroughputPlan``; the limits that keep a run sane on a Raspberry Pi; ``udp://`` targets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from iotsecbench_contract.limits import (
    MAX_DATA_SIZES,
    MAX_MECHANISMS,
    MAX_UDP_PAYLOAD,
    MAX_WINDOW_MS,
    MIN_WINDOW_MS,
)

from iotsecbench_agent.errors import UnsupportedJob
from iotsecbench_agent.kinds.plan import (
    check_grid,
    check_repetitions,
    grid_total,
    is_int,
    parse_grid,
)
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.lightweight_mechanisms import native_available

DEFAULT_WINDOW_MS = 2000  # the paper's window
# 1000 repetitions of 2 × 2 s windows are already over an hour per mechanism and size.
MAX_REPETITIONS = 1000


@dataclass(frozen=True)
class Target:
    """Where ``send`` windows go: ``udp://host:port``."""

    host: str
    port: int

    @classmethod
    def parse(cls, url: str) -> Target:
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            port = None
            parts = None
        if (
            parts is None
            or parts.scheme != "udp"
            or not parts.hostname
            or port is None
            or port == 0
            or parts.path not in ("", "/")
            or parts.query
            or parts.fragment
            or parts.username is not None
        ):
            raise UnsupportedJob(f"spec.target {url!r} is not udp://host:port")
        return cls(parts.hostname, port)

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"udp://{host}:{self.port}"


@dataclass(frozen=True)
class ThroughputPlan:
    """What to measure: every mechanism × payload size × repetition, two windows each."""

    mechanisms: tuple[str, ...]
    data_sizes: tuple[int, ...]
    repetitions: int
    window_ms: int = DEFAULT_WINDOW_MS
    target: Target | None = None

    @classmethod
    def parse(cls, spec: Mapping[str, Any]) -> ThroughputPlan:
        """The plan of a §8 spec, or UnsupportedJob saying what is wrong with it."""
        mechanisms, sizes, repetitions = parse_grid(spec)
        window_ms = spec.get("window_ms", DEFAULT_WINDOW_MS)
        target = spec.get("target")
        if not is_int(window_ms):
            raise UnsupportedJob("spec.window_ms must be an integer (milliseconds)")
        if target is not None and not isinstance(target, str):
            raise UnsupportedJob("spec.target must be a string udp://host:port")
        return cls.of(
            mechanisms,
            sizes,
            repetitions,
            window_ms=window_ms,
            target=None if target is None else Target.parse(target),
        )

    @classmethod
    def of(
        cls,
        mechanisms: Sequence[str],
        sizes: Sequence[int],
        repetitions: int,
        *,
        window_ms: int = DEFAULT_WINDOW_MS,
        target: Target | None = None,
    ) -> ThroughputPlan:
        check_grid(mechanisms, sizes, max_mechanisms=MAX_MECHANISMS, max_sizes=MAX_DATA_SIZES)
        for name in mechanisms:
            check_mechanism(name)
        for size in sizes:
            if not 1 <= size <= MAX_UDP_PAYLOAD:
                raise UnsupportedJob(
                    f"payload size {size} is out of range (1 to {MAX_UDP_PAYLOAD} bytes, "
                    "the largest UDP payload)"
                )
        for name in mechanisms:
            for size in sizes:
                check_frame(name, size, registry.describe(name).overhead(size) + size)
        check_repetitions(repetitions, MAX_REPETITIONS)
        if not MIN_WINDOW_MS <= window_ms <= MAX_WINDOW_MS:
            raise UnsupportedJob(f"window_ms must be {MIN_WINDOW_MS} to {MAX_WINDOW_MS}")
        return cls(tuple(mechanisms), tuple(sizes), repetitions, window_ms, target)

    @property
    def total_windows(self) -> int:
        """Two windows (secure, send) per mechanism, size and repetition."""
        return grid_total(self)


def check_mechanism(name: str) -> None:
    """UnsupportedJob unless ``name`` is a registry mechanism that can run here."""
    if name not in registry.names():
        raise UnsupportedJob(f"unknown mechanism {name!r} (known: {', '.join(registry.names())})")
    if registry.describe(name).native and not native_available():
        raise UnsupportedJob(
            f"mechanism {name!r} needs the agent's native module, which is not built here"
        )


def check_frame(mechanism: str, size: int, frame_bytes: int) -> None:
    """UnsupportedJob if a secured ``size``-byte payload does not fit one UDP datagram."""
    if frame_bytes > MAX_UDP_PAYLOAD:
        raise UnsupportedJob(
            f"{mechanism} makes a {size}-byte payload a {frame_bytes}-byte frame, above the "
            f"{MAX_UDP_PAYLOAD}-byte UDP limit; use a smaller payload size"
        )
