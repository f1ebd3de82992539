"""Why a queued run does not start: the one rule the scheduler (services.scheduling.
runs_schedule) applies and the run page explains (selectors.run_waiting_for)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar
from uuid import UUID

Blocker = TypeVar("Blocker")


@dataclass(frozen=True)
class Blockers(Generic[Blocker]):
    """What holds a queued run back: an active run of its own experiment (runs of an
    experiment execute one after another), and its devices busy in active runs of any
    experiment (never two runs on one device at a time). Empty: it may start now."""

    experiment_run: Blocker | None = None
    device_runs: dict[UUID, Blocker] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return self.experiment_run is not None or bool(self.device_runs)


def target_device(spec: Mapping[str, object]) -> set[UUID]:
    """A run's target device (experiments.services.targets), busy as its own devices are."""
    target = spec.get("target_device")
    return {UUID(str(target))} if target else set()


def dispatch_blockers(
    *,
    experiment_id: UUID,
    device_ids: Iterable[UUID],
    active_by_experiment: Mapping[UUID, Blocker],
    active_by_device: Mapping[UUID, Blocker],
) -> Blockers[Blocker]:
    return Blockers(
        experiment_run=active_by_experiment.get(experiment_id),
        device_runs={d: active_by_device[d] for d in device_ids if d in active_by_device},
    )
