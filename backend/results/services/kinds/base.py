"""What every kind's results seam uses: the records export's source, the device columns of
a summary row, and the kind's entry (results/kinds/__init__.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import models

from experiments.models import ExperimentKind, Run
from measurements.selectors import NS_PER_US
from results.services.methods import AddressWords
from results.services.summaries import RunStatistics

# The device facts each summary row carries (the agent's runtime/facts.py reports them).
_HARDWARE_FACTS = ("hardware_model", "cpu_model", "cpu_cores", "ram_bytes")
_SOFTWARE_FACTS = ("kernel", "os", "python_version", "agent_version")
FACT_COLUMNS = (*_HARDWARE_FACTS, *_SOFTWARE_FACTS)


@dataclass(frozen=True)
class RecordSource:
    """What the records export of a kind of run reads: the table, its columns as a select
    list over the alias `r` (named as the keys of `columns`, their Arrow types), the order."""

    model: type[models.Model]
    select: str
    columns: dict[str, Any]
    order: str


def device_columns(
    facts: dict[str, Any], libraries: list[str], device_id: Any, device_name: str
) -> dict[str, Any]:
    """The device and the facts stored with the run (empty for the all-devices row)."""
    device_libraries = facts.get("libraries") or {}
    return {
        "device_id": None if device_id is None else str(device_id),
        "device_name": device_name,
        **{f"device_{k}": facts.get(k) for k in FACT_COLUMNS},
        **{f"device_lib_{name}": device_libraries.get(name) for name in libraries},
    }


def us(value_ns: float | None) -> float | None:
    return None if value_ns is None else value_ns / NS_PER_US


@dataclass(frozen=True)
class SummaryInput:
    """What a kind's summary export rows are made of."""

    run: Run
    params: dict[str, Any]  # the run's parameter columns (exports.run_parameters)
    facts: dict[Any, dict[str, Any]]  # each device's facts, by device id
    libraries: list[str]  # every library any device reported: a column each
    statistics: RunStatistics | None  # a messaging run's, if the caller computed them

    def leading_columns(self, device_id: Any, device_name: str) -> dict[str, Any]:
        """A row's first columns: the run's parameters, the device and its facts (no facts
        for the all-devices row, device_id None)."""
        facts = self.facts.get(device_id, {})
        return {**self.params, **device_columns(facts, self.libraries, device_id, device_name)}


SummaryRows = Callable[[SummaryInput], list[dict[str, Any]]]
# (run, its statistics when the paragraph needs them, how it names the addresses the run
# used) -> the methods paragraph.
Methods = Callable[[Run, Callable[[], RunStatistics], AddressWords], str]


@dataclass(frozen=True)
class ResultsKind:
    """One benchmark kind, as results exports and describes its runs."""

    name: ExperimentKind
    records: RecordSource  # the records export
    summary_rows: SummaryRows  # the summary export
    summary_columns: tuple[str, ...]  # its columns after the parameters and the device's
    methods: Methods  # the methods paragraph
