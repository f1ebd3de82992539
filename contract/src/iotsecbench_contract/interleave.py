"""Interleaved runs (docs/experiment-design.md, "Interleaved mechanisms"): one round-trip run
secures message ``seq`` with mechanism ``interleave_mechanisms[seq % k]`` on one connection,
so that k mechanisms are measured under the same conditions, message by message.

On the wire each message is ``index || secured payload``: ``index`` one byte, the
mechanism's place in the rotation (0..k-1), sent in the clear (it says which mechanism the
receiver must unsecure with, nothing about any key). Every mechanism of the rotation, ``none``
too, carries it, so it adds ``INDEX_BYTES`` to every message of the run alike and cancels
out of a difference between two of them. The agent's record of a message names its
mechanism (records.RECORD_COLUMNS ``mechanism``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from iotsecbench_contract.errors import JobSpecError
from iotsecbench_contract.jobspec import ROUND_TRIP
from iotsecbench_contract.mechanisms import NONE, describe

FIELD = "interleave_mechanisms"
INDEX_BYTES = 1
MIN_MECHANISMS = 2
# A rotation of more mechanisms than this measures each too rarely to be the precise mode;
# run a matrix instead. Also keeps the index within one byte with room to spare.
MAX_MECHANISMS = 8

TOO_FEW = f"an interleaved run alternates {MIN_MECHANISMS} to {MAX_MECHANISMS} mechanisms"
DUPLICATE = "list each mechanism once (the rotation measures each in turn)"


def interleave_errors(value: Any) -> list[str]:
    """What is wrong with an ``interleave_mechanisms`` value ([]: a valid rotation, or
    absent). Each message says how to fix it."""
    if value is None or value == []:
        return []
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        return ['must be a list of mechanism names, e.g. ["none", "null", "aes-128-cbc"]']
    errors = []
    for name in value:
        try:
            describe(name)
        except KeyError:
            errors.append(f"unknown mechanism {name!r} (see GET /api/catalogue/)")
    if len(set(value)) != len(value):
        errors.append(DUPLICATE)
    if not MIN_MECHANISMS <= len(value) <= MAX_MECHANISMS:
        errors.append(f"{TOO_FEW}; {len(value)} given")
    return errors


def parse_interleave(spec: Mapping[str, Any]) -> tuple[str, ...] | None:
    """A job's rotation (``spec.interleave_mechanisms``), checked; None for a run that does
    not interleave. Raises JobSpecError naming the field."""
    value = spec.get(FIELD)
    errors = interleave_errors(value)
    if errors:
        raise JobSpecError(f"spec.{FIELD}: {'; '.join(errors)}", field=FIELD)
    if not value:
        return None
    if spec.get("measurement", ROUND_TRIP) != ROUND_TRIP:
        raise JobSpecError(
            f"spec.{FIELD}: an interleaved run measures round trips (measurement round_trip)",
            field="measurement",
        )
    security = spec.get("security", NONE)
    if security != NONE:
        raise JobSpecError(
            f"spec.{FIELD} takes the place of spec.security: leave security at none",
            field="security",
        )
    return tuple(value)


def mechanism_of(rotation: tuple[str, ...], seq: int) -> str:
    """The mechanism message ``seq`` of an interleaved run is secured with."""
    return rotation[seq % len(rotation)]
