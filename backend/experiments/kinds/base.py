from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from experiments.models import ExperimentKind

DesignErrors = Callable[[Mapping[str, Any]], dict[str, list[str]]]


@dataclass(frozen=True)
class Kind:
    """One benchmark kind, as experiments knows it."""

    name: ExperimentKind
    # Its agents upload benchmark samples (BenchSample: one per repetition or window), not
    # message records (MessageRecord).
    samples: bool
    # The field errors of one run's parameters beyond each field's own range ({}: valid).
    design_errors: DesignErrors
