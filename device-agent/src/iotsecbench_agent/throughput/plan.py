"""What a throughput run measures (§8 of docs/control-plane.md): the spec, validated, as a
``ThroughputPlan``; the limits that keep a run sane on a Raspberry Pi; ``udp://`` targets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from iotsecbench_contract.benchspec import DEFAULT_WINDOW_MS, ThroughputSpec, udp_target
from iotsecbench_contract.cryptolibs import PYCRYPTODOME
from iotsecbench_contract.errors import JobSpecError
from iotsecbench_contract.limits import MAX_UDP_PAYLOAD

from iotsecbench_agent.errors import UnsupportedJob
from iotsecbench_agent.kinds.plan import contract_spec, grid_total
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.lightweight_mechanisms import native_available

__all__ = ["DEFAULT_WINDOW_MS", "Target", "ThroughputPlan", "check_frame", "check_mechanism"]


@dataclass(frozen=True)
class Target:
    """Where ``send`` windows go: ``udp://host:port``."""

    host: str
    port: int

    @classmethod
    def parse(cls, url: str) -> Target:
        try:
            host, port = udp_target(url)
        except JobSpecError as exc:
            raise UnsupportedJob(str(exc)) from None
        return cls(host, port)

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
    crypto_library: str = PYCRYPTODOME

    @classmethod
    def parse(cls, spec: Mapping[str, Any]) -> ThroughputPlan:
        """The plan of a §8 spec (iotsecbench_contract.benchspec.ThroughputSpec, the
        platform's checks and limits) whose mechanisms run here and whose secured packets
        fit a datagram, or UnsupportedJob saying what is wrong with it."""
        checked = contract_spec(ThroughputSpec.parse, spec)
        for name in checked.mechanisms:
            check_mechanism(name)
            for size in checked.data_sizes:
                check_frame(name, size, registry.describe(name).overhead(size) + size)
        target = None if checked.target is None else Target.parse(checked.target)
        return cls(
            checked.mechanisms,
            checked.data_sizes,
            checked.repetitions,
            checked.window_ms,
            target,
            checked.crypto_library,
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
        crypto_library: str = PYCRYPTODOME,
    ) -> ThroughputPlan:
        """The plan of the command line's values, checked as a job's spec."""
        spec: dict[str, Any] = {
            "mechanisms": list(mechanisms),
            "data_sizes": list(sizes),
            "repetitions": repetitions,
            "window_ms": window_ms,
            "crypto_library": crypto_library,
        }
        if target is not None:
            spec["target"] = str(target)
        return cls.parse(spec)

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
