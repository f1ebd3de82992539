"""A design's validation: every run of its matrix against its kind's rules (experiments.kinds),
the parameters its axes may vary and the number of runs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import serializers

from experiments.addressing import TARGET_URL_THROUGHPUT_ONLY
from experiments.describe import describe_plain
from experiments.kinds import kind_get
from experiments.matrix import KIND_AXIS_PARAMETERS, Matrix
from experiments.matrix import label as matrix_label
from experiments.models import MATRIX_RUNS_MAX, ExperimentKind
from experiments.rules import INTERLEAVE_MESSAGING_ONLY, INTERLEAVE_SECURITY_AXIS


def design_errors(attrs: Mapping[str, Any]) -> dict[str, list[str]]:
    """The rules one run's parameters must follow beyond each field's own range; the
    field errors for the first broken rules ({} when the design is valid)."""
    return kind_get(attrs["kind"]).design_errors(attrs)


def design_check(attrs: Mapping[str, Any], matrix: Matrix) -> None:
    """Check a design whose matrix is built: the parameters its axes vary, every run's
    parameters (design_errors) and the number of runs. Raises the field errors."""
    errors: dict[str, list[str]] = {}
    if attrs.get("interleave_mechanisms"):
        if attrs["kind"] != ExperimentKind.MESSAGING:
            message = INTERLEAVE_MESSAGING_ONLY.format(kind=attrs["kind"])
            raise serializers.ValidationError({"interleave_mechanisms": [message]})
        if any("security" in axis["values"][0] for axis in matrix.axes):
            raise serializers.ValidationError({"interleave_mechanisms": [INTERLEAVE_SECURITY_AXIS]})
    if attrs.get("target_url") and attrs["kind"] != ExperimentKind.THROUGHPUT:
        message = TARGET_URL_THROUGHPUT_ONLY.format(kind=attrs["kind"])
        raise serializers.ValidationError({"target_url": [message]})
    irrelevant = sorted(
        {p for axis in matrix.axes for p in axis["values"][0]} - KIND_AXIS_PARAMETERS[attrs["kind"]]
    )
    if irrelevant:
        errors["axes"] = [
            f"{', '.join(irrelevant)} cannot vary in a {attrs['kind']} experiment; "
            f"allowed: {', '.join(sorted(KIND_AXIS_PARAMETERS[attrs['kind']]))}."
        ]
        raise serializers.ValidationError(errors)
    invalid: list[str] = []
    for cell in matrix.cells:
        cell_errors = design_errors({**attrs, **cell})
        if not matrix.axes:
            errors = cell_errors
        elif cell_errors:
            words = "; ".join(f"{k}: {' '.join(v)}" for k, v in cell_errors.items())
            invalid.append(f"Run “{matrix_label(cell, describe_plain)}”: {words}")
    if invalid:
        errors["axes"] = [
            *invalid[:10],
            *([f"…and {len(invalid) - 10} more."] if len(invalid) > 10 else []),
            "Change the axis values or add these combinations to the exclusions.",
        ]
    runs = len(matrix.cells) * attrs["repeats"]
    if runs > MATRIX_RUNS_MAX:
        errors["repeats"] = [
            f"The design expands to {runs} runs; at most {MATRIX_RUNS_MAX}: fewer values, "
            "more exclusions or fewer repeats."
        ]
    if errors:
        raise serializers.ValidationError(errors)
