"""Messaging: round trips (or one-way delays) of secured messages over a protocol."""

from collections.abc import Mapping
from typing import Any

from experiments.addressing import address_errors
from experiments.kinds.base import Kind
from experiments.models import ExperimentKind
from experiments.rules import interleave_errors, protocol_errors


def design_errors(attrs: Mapping[str, Any]) -> dict[str, list[str]]:
    """The protocol's rules, an interleaved design's, then the addressing's and targets'
    (experiments.addressing)."""
    return protocol_errors(attrs) or interleave_errors(attrs) or address_errors(attrs)


KIND = Kind(name=ExperimentKind.MESSAGING, samples=False, design_errors=design_errors)
