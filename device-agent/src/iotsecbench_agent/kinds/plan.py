"""What the plans of the sample kinds share: the grid of mechanisms × data sizes ×
repetitions (its spec is parsed and checked by the contract, iotsecbench_contract.benchspec),
and the grouping of samples by (mechanism, operation, data size) that each kind's summary
starts from."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from iotsecbench_contract.errors import JobSpecError

from iotsecbench_agent.errors import UnsupportedJob
from iotsecbench_agent.storage.samplelog import Sample

S = TypeVar("S")

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


def contract_spec(parse: Callable[[Mapping[str, Any]], S], spec: Mapping[str, Any]) -> S:
    """The spec parsed by its contract dataclass (iotsecbench_contract.benchspec), its
    JobSpecError the job's UnsupportedJob (same message, naming the field)."""
    try:
        return parse(spec)
    except JobSpecError as exc:
        raise UnsupportedJob(str(exc)) from None


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
