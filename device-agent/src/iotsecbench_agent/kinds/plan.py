"""What the plans of the sample kinds share: the grid of mechanisms × data sizes ×
repetitions, read from a spec and checked the same way for every kind, and the grouping of
samples by (mechanism, operation, data size) that each kind's summary starts from."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from iotsecbench_agent.errors import UnsupportedJob
from iotsecbench_agent.storage.samplelog import Sample

# One summary row: (mechanism, operation, data bytes).
Cell = tuple[str, str, int]


class GridPlan(Protocol):
    """A sample kind's plan: every mechanism × data size, ``repetitions`` times each."""

    @property
    def mechanisms(self) -> tuple[str, ...]: ...

    @property
    def data_sizes(self) -> tuple[int, ...]: ...

    @property
    def repetitions(self) -> int: ...


@dataclass(frozen=True)
class CellSummary:
    """What every kind's summary starts with: its cell and how many samples it sums up
    (each kind's ``Summary`` adds its statistics after these fields)."""

    mechanism: str
    operation: str
    data_bytes: int
    n: int


def parse_grid(spec: Mapping[str, Any]) -> tuple[list[str], list[int], int]:
    """``spec.mechanisms``, ``spec.data_sizes`` and ``spec.repetitions`` with their types
    checked, or UnsupportedJob saying which is wrong; the ranges are the kind's to check."""
    mechanisms = spec.get("mechanisms")
    sizes = spec.get("data_sizes")
    repetitions = spec.get("repetitions")
    if not isinstance(mechanisms, list) or not all(isinstance(m, str) for m in mechanisms):
        raise UnsupportedJob("spec.mechanisms must be a list of mechanism names")
    if not isinstance(sizes, list) or not all(is_int(s) for s in sizes):
        raise UnsupportedJob("spec.data_sizes must be a list of integers (bytes)")
    if not is_int(repetitions):
        raise UnsupportedJob("spec.repetitions must be an integer")
    assert isinstance(repetitions, int)
    return mechanisms, sizes, repetitions


def check_grid(
    mechanisms: Sequence[str], sizes: Sequence[int], *, max_mechanisms: int, max_sizes: int
) -> None:
    """UnsupportedJob unless there are 1 to ``max_mechanisms`` mechanisms and 1 to
    ``max_sizes`` data sizes, none repeated."""
    if not 1 <= len(mechanisms) <= max_mechanisms:
        raise UnsupportedJob(f"give 1 to {max_mechanisms} mechanisms")
    if not 1 <= len(sizes) <= max_sizes:
        raise UnsupportedJob(f"give 1 to {max_sizes} data sizes")
    if len(set(mechanisms)) != len(mechanisms) or len(set(sizes)) != len(sizes):
        raise UnsupportedJob("mechanisms and data sizes must not repeat")


def check_repetitions(repetitions: int, maximum: int) -> None:
    if not 1 <= repetitions <= maximum:
        raise UnsupportedJob(f"repetitions must be 1 to {maximum}")


def grid_total(plan: GridPlan) -> int:
    """Two samples (two operations, or two windows) per mechanism, size and repetition."""
    return 2 * len(plan.mechanisms) * len(plan.data_sizes) * plan.repetitions


def group_by_cell(samples: Iterable[Sample]) -> dict[Cell, list[Sample]]:
    """The samples by (mechanism, operation, data size), in first-seen order."""
    groups: dict[Cell, list[Sample]] = {}
    for sample in samples:
        groups.setdefault((sample.mechanism, sample.operation, sample.data_bytes), []).append(
            sample
        )
    return groups


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
