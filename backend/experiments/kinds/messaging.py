"""Messaging: round trips (or one-way delays) of secured messages over a protocol."""

from experiments.kinds.base import Kind
from experiments.models import ExperimentKind
from experiments.rules import protocol_errors

KIND = Kind(name=ExperimentKind.MESSAGING, samples=False, design_errors=protocol_errors)
