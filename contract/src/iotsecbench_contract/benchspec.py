"""The ``spec`` of the sample kinds' jobs (docs/control-plane.md §7, §8): a cipher benchmark
(``CipherBenchSpec``) and a throughput run (``ThroughputSpec``), each a grid of mechanisms ×
data sizes × repetitions, a throughput run with its window and, optionally, a UDP target.

As in jobspec, ``parse`` checks a job's dict and ``to_dict`` gives it back as the platform
sends it, so the platform's design checks and the agent's plans refuse the same values with
the same message. Every range is a constant of ``limits``. ``JobSpecError.field`` names the
field at fault. Whether a mechanism can run on a given agent (a native module built or not)
and whether a secured packet fits a datagram are the agent's and the platform's to check.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from iotsecbench_contract.cryptolibs import (
    CIPHER_BENCH_LIBRARIES,
    DEFAULT_LIBRARY,
    THROUGHPUT_LIBRARIES,
    check_library,
    library_field,
)
from iotsecbench_contract.errors import JobSpecError
from iotsecbench_contract.jobspec import int_field
from iotsecbench_contract.limits import (
    MAX_BENCH_DATA_BYTES,
    MAX_BENCH_REPETITIONS,
    MAX_DATA_SIZES,
    MAX_MECHANISMS,
    MAX_THROUGHPUT_REPETITIONS,
    MAX_UDP_PAYLOAD,
    MAX_WINDOW_MS,
    MIN_WINDOW_MS,
)
from iotsecbench_contract.mechanisms import NAMES, NONE

CIPHER_BENCH = "cipher_bench"
THROUGHPUT = "throughput"
DEFAULT_WINDOW_MS = 2000  # the throughput paper's window


@dataclass(frozen=True)
class CipherBenchSpec:
    """A cipher benchmark: every mechanism timed on every data size, ``repetitions`` times
    each. ``none`` does nothing to time (``null`` is the floor). ``crypto_library`` is
    what implements them (``cryptolibs``)."""

    mechanisms: tuple[str, ...]
    data_sizes: tuple[int, ...]
    repetitions: int
    crypto_library: str = DEFAULT_LIBRARY

    @classmethod
    def parse(cls, spec: Mapping[str, Any]) -> CipherBenchSpec:
        # Repetitions first: a spec missing several fields is told about the scalar first.
        repetitions = int_field(spec, "repetitions", 1, MAX_BENCH_REPETITIONS)
        mechanisms = mechanisms_field(spec)
        if NONE in mechanisms:
            raise JobSpecError(
                "spec.mechanisms: mechanism 'none' does nothing to measure; 'null' is the floor",
                field="mechanisms",
            )
        library = library_field(spec, CIPHER_BENCH_LIBRARIES)
        check_library(library, mechanisms)
        return cls(
            mechanisms=mechanisms,
            data_sizes=data_sizes_field(spec, MAX_BENCH_DATA_BYTES, "data size"),
            repetitions=repetitions,
            crypto_library=library,
        )

    def to_dict(self) -> dict[str, Any]:
        """The spec's fields; ``crypto_library`` only when not the default."""
        fields: dict[str, Any] = {
            "mechanisms": list(self.mechanisms),
            "data_sizes": list(self.data_sizes),
            "repetitions": self.repetitions,
        }
        if self.crypto_library != DEFAULT_LIBRARY:
            fields["crypto_library"] = self.crypto_library
        return fields


@dataclass(frozen=True)
class ThroughputSpec:
    """A throughput run: for every mechanism, payload size and repetition, one window of
    ``window_ms`` securing packets and one securing and sending them over UDP (to
    ``target``, ``udp://host:port``, or the agent's own loopback sink when None)."""

    mechanisms: tuple[str, ...]
    data_sizes: tuple[int, ...]
    repetitions: int
    window_ms: int = DEFAULT_WINDOW_MS
    target: str | None = None
    crypto_library: str = DEFAULT_LIBRARY

    @classmethod
    def parse(cls, spec: Mapping[str, Any]) -> ThroughputSpec:
        repetitions = int_field(spec, "repetitions", 1, MAX_THROUGHPUT_REPETITIONS)
        target = spec.get("target")
        if target is not None:
            if not isinstance(target, str):
                raise JobSpecError("spec.target must be a string udp://host:port", field="target")
            udp_target(target)
        mechanisms = mechanisms_field(spec)
        library = library_field(spec, THROUGHPUT_LIBRARIES)
        check_library(library, mechanisms)
        return cls(
            mechanisms=mechanisms,
            data_sizes=data_sizes_field(
                spec, MAX_UDP_PAYLOAD, "payload size", ", the largest UDP payload"
            ),
            repetitions=repetitions,
            window_ms=int_field(
                {"window_ms": DEFAULT_WINDOW_MS, **spec}, "window_ms", MIN_WINDOW_MS, MAX_WINDOW_MS
            ),
            target=target,
            crypto_library=library,
        )

    def to_dict(self) -> dict[str, Any]:
        """The spec's fields; ``target`` only when set, ``crypto_library`` only when not
        the default."""
        fields: dict[str, Any] = {
            "mechanisms": list(self.mechanisms),
            "data_sizes": list(self.data_sizes),
            "repetitions": self.repetitions,
            "window_ms": self.window_ms,
        }
        if self.target is not None:
            fields["target"] = self.target
        if self.crypto_library != DEFAULT_LIBRARY:
            fields["crypto_library"] = self.crypto_library
        return fields


def udp_target(url: str) -> tuple[str, int]:
    """``(host, port)`` of a ``udp://host:port`` URL (no path, query, user or port 0)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise JobSpecError(f"spec.target {url!r} is not udp://host:port", field="target") from None
    if (
        parts.scheme != "udp"
        or not parts.hostname
        or port is None
        or port == 0
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
        or parts.username is not None
    ):
        raise JobSpecError(f"spec.target {url!r} is not udp://host:port", field="target")
    return parts.hostname, port


def mechanisms_field(spec: Mapping[str, Any]) -> tuple[str, ...]:
    """``spec.mechanisms``: 1 to MAX_MECHANISMS distinct names of the contract's mechanisms."""
    value = spec.get("mechanisms")
    if not isinstance(value, list) or not all(isinstance(m, str) for m in value):
        raise JobSpecError("spec.mechanisms must be a list of mechanism names", field="mechanisms")
    _check_length(value, "mechanisms", MAX_MECHANISMS)
    unknown = [m for m in value if m not in NAMES]
    if unknown:
        raise JobSpecError(
            f"spec.mechanisms: unknown mechanism {unknown[0]!r} (known: {', '.join(NAMES)})",
            field="mechanisms",
        )
    return tuple(value)


def data_sizes_field(
    spec: Mapping[str, Any], maximum: int, noun: str, why: str = ""
) -> tuple[int, ...]:
    """``spec.data_sizes``: 1 to MAX_DATA_SIZES distinct sizes in bytes, 1..``maximum``
    (a size out of range is named as a ``noun``, the range followed by ``why``)."""
    value = spec.get("data_sizes")
    if not isinstance(value, list) or not all(
        isinstance(s, int) and not isinstance(s, bool) for s in value
    ):
        raise JobSpecError("spec.data_sizes must be a list of integers (bytes)", field="data_sizes")
    _check_length(value, "data_sizes", MAX_DATA_SIZES)
    for size in value:
        if not 1 <= size <= maximum:
            raise JobSpecError(
                f"spec.data_sizes: {noun} {size} is out of range (1 to {maximum} bytes{why})",
                field="data_sizes",
            )
    return tuple(value)


def _check_length(value: list[Any], field: str, maximum: int) -> None:
    """1 to ``maximum`` items, none repeated."""
    if not 1 <= len(value) <= maximum:
        raise JobSpecError(f"spec.{field}: give 1 to {maximum}, got {len(value)}", field=field)
    if len(set(value)) != len(value):
        raise JobSpecError(f"spec.{field} must not repeat a value", field=field)
