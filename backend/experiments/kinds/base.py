from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from experiments.models import ExperimentKind

DesignErrors = Callable[[Mapping[str, Any]], dict[str, list[str]]]


class SampleSpec(Protocol):
    """A sample kind's job spec as the contract has it (iotsecbench_contract.benchspec):
    parsed and checked from a dict, and back."""

    def to_dict(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Kind:
    """One benchmark kind, as experiments knows it."""

    name: ExperimentKind
    # Its agents upload benchmark samples (BenchSample: one per repetition or window), not
    # message records (MessageRecord).
    samples: bool
    # The field errors of one run's parameters beyond each field's own range ({}: valid).
    design_errors: DesignErrors
    # A sample kind's job spec from a design's fields (the design's values of ``spec_fields``):
    # the contract's dataclass, whose ``parse`` raises JobSpecError naming the field. None
    # for messaging, whose spec the run builds itself (services.designs).
    spec: Callable[[Mapping[str, Any]], SampleSpec] | None = None
    spec_fields: tuple[str, ...] = ()


def sample_kind(
    name: ExperimentKind,
    design_errors: DesignErrors,
    spec: Callable[[Mapping[str, Any]], SampleSpec],
    spec_fields: tuple[str, ...],
) -> Kind:
    """A kind whose agents upload samples, its job spec a contract dataclass."""
    return Kind(name, True, design_errors, spec, spec_fields)
