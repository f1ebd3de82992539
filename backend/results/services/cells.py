"""What the cells of every kind share: a cell's key (its runs' spec, per-run keys aside), its
label (the parameters in which the cells of an experiment differ) and its figures (a metric
with its interval)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from results.hierarchical import Replicates
from results.pairing import PER_RUN_KEYS, repeat_key
from results.services.interleaved import PartRun

# Spec keys that follow from others (the transport's broker and CA): never a cell's label.
DERIVED_KEYS = frozenset({"broker_url", "ca_cert", *PER_RUN_KEYS})
SINGLE_CELL_LABEL = "All runs"
NO_PROFILE_LABEL = "no network profile"
NOT_APPLICABLE_LABEL = "—"
# A benchmark cell with one completed run: its interval is over the run's repetitions (or
# windows), which cannot see run-to-run variation (as LEVEL_MESSAGES for messaging).
LEVEL_REPETITIONS = "repetitions"
# How a label shows a value of these parameters ("1024 B", "QoS 1").
_UNITS = {
    "payload_size": "{} B",
    "data_bytes": "{} B",
    "interval_ms": "{} ms",
    "qos": "QoS {}",
    "window_ms": "{} ms",
}


@dataclass(frozen=True)
class Metric:
    """One figure of a cell: its estimate and interval (None: a maximum, or nothing to
    resample), in `unit`."""

    name: str
    unit: str
    value: float | None
    ci: tuple[float, float] | None


@dataclass(frozen=True)
class CellRun:
    """One completed run of a cell: its delivered messages' mean and median (ms); a benchmark
    cell's run: its samples (repetitions or windows) as `messages`, no mean or median."""

    run_id: UUID
    repeat: int
    messages: int
    lost: int
    mean_ms: float | None
    median_ms: float | None


@dataclass(frozen=True)
class Cell:
    key: str
    label: str
    parameters: dict[str, Any]
    runs: list[CellRun]
    other_runs: dict[str, int]  # runs of the cell that did not complete, by status
    interval_level: str | None  # LEVEL_RUNS, LEVEL_MESSAGES / LEVEL_REPETITIONS, None: no values
    messages: int
    lost: int
    mean_ms: float | None
    mean_ci_ms: tuple[float, float] | None
    median_ms: float | None
    median_ci_ms: tuple[float, float] | None
    replicates: Replicates | None = field(repr=False)
    # The mean's or median's interval reached below 0 and was clipped there (a delay cannot
    # be negative; results.hierarchical, Replicates.positive).
    ci_clipped: bool = False
    # Every figure of the cell (a messaging cell's median and mean too), for a kind-blind
    # page: the figure draws one of them, the table shows them all.
    metrics: tuple[Metric, ...] = ()
    # A cell of an interleaved run's mechanism (results.services.interleaved): each run's
    # messages of that mechanism with their rotation cycle, for overheads paired by cycle.
    parts: list[PartRun] | None = field(default=None, repr=False)


def spec_key(spec: Mapping[str, Any]) -> str:
    return hashlib.sha256(repeat_key(spec).encode()).hexdigest()[:12]


def shown_parameters(spec: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _shown_value(k, v) for k, v in spec.items() if k not in DERIVED_KEYS}


def _shown_value(parameter: str, value: Any) -> Any:
    # A run's spec holds its network profile whole (id, name, shaping): a cell shows its name.
    if parameter == "network_profile" and isinstance(value, Mapping):
        return value.get("name")
    return value


def describe(parameter: str, value: Any) -> str:
    if parameter == "network_profile" and value is None:
        return NO_PROFILE_LABEL
    if value is None:  # a parameter the cell's protocol has not (MQTT's srup_signature)
        return NOT_APPLICABLE_LABEL
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return _UNITS.get(parameter, "{}").format(value)


def varying_parameters(shown: Sequence[Mapping[str, Any]]) -> list[str]:
    """The parameters (in first-seen order) whose values are not all the same."""
    return [
        p
        for p in dict.fromkeys(p for s in shown for p in s)
        if len({repr(s.get(p)) for s in shown}) > 1
    ]


def cell_label(parameters: Mapping[str, Any]) -> str:
    return " · ".join(describe(p, v) for p, v in parameters.items()) or SINGLE_CELL_LABEL
