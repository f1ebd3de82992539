"""An experiment's condition matrix (docs/experiment-design.md): axes, exclusions, cells.

An experiment has fixed parameters and any number of **axes**. An axis gives one parameter
several values (``{"parameter": "qos", "values": [0, 1, 2]}``) or several parameters that
change together (``{"name": "MQTT QoS / CoAP", "values": [{"protocol": "mqtt", "qos": 0},
...]}``). The matrix is every combination of one value per axis, first axis outermost; an
**exclusion** (``{"protocol": "mqtt", "network_profile": "<id>"}``) removes every combination
that has all of its values. Each remaining **cell** is one run's overrides of the fixed
parameters, run ``repeats`` times.

Pure functions: the caller passes how to check one value (``check``) and how to name one
(``describe``), so the same rules serve the API, presets and design files.
"""

from __future__ import annotations

import itertools
import json
import random
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# The parameters an axis may vary, with the words a label uses for them.
AXIS_PARAMETERS: dict[str, str] = {
    "protocol": "protocol",
    "mqtt_version": "MQTT version",
    "transport": "transport",
    "srup_signature": "SRUP signature",
    "qos": "QoS",
    "coap_type": "CoAP message type",
    "coap_method": "CoAP method",
    "topic_id_type": "MQTT-SN topic id type",
    "security": "payload security",
    "payload_size": "payload size",
    "message_count": "message count",
    "interval_ms": "send interval",
    "interval_distribution": "interval distribution",
    "measurement": "measurement",
    "network_profile": "network profile",
    "mechanisms": "mechanisms",
    "data_sizes": "data sizes",
    "repetitions": "repetitions",
    "window_ms": "window",
    "crypto_library": "crypto library",
    "device_ids": "devices",
}
AXES_MAX = 8
# The fields of an axis object: anything else is refused, naming it (not silently dropped).
AXIS_FIELDS = ("parameter", "name", "values")
AXIS_VALUES_MAX = 64
EXCLUSIONS_MAX = 256

Cell = dict[str, Any]
# check(parameter, value) -> the value as the design stores it (JSON), or ValueError(why).
Check = Callable[[str, Any], Any]
# describe(parameter, json_value) -> how a label shows it ("QoS 1", "AES-128-CBC").
Describe = Callable[[str, Any], str]


class MatrixError(ValueError):
    """The axes or exclusions are not usable: ``errors`` maps a field (``axes``,
    ``exclusions``) to messages that say what is wrong and how to fix it."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        super().__init__("; ".join(m for ms in errors.values() for m in ms))
        self.errors = errors


@dataclass(frozen=True)
class Matrix:
    axes: list[dict[str, Any]]  # canonical: {"name": str, "values": [{parameter: value}]}
    exclusions: list[Cell]
    cells: list[Cell]  # the combinations that run, in order
    excluded: int  # how many combinations the exclusions removed


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _axis_values(index: int, raw: object, check: Check) -> tuple[str, list[Cell]]:
    where = f"Axis {index + 1}"
    if not isinstance(raw, Mapping):
        raise MatrixError({"axes": [f"{where}: expected an object with `values`."]})
    unknown = [str(key) for key in raw if key not in AXIS_FIELDS]
    if unknown:
        fields = ", ".join(f"`{key}`" for key in unknown)
        raise MatrixError(
            {"axes": [f"{where}: unknown field {fields}; known fields: {', '.join(AXIS_FIELDS)}."]}
        )
    values = raw.get("values")
    if not isinstance(values, list) or not values:
        raise MatrixError({"axes": [f"{where}: `values` must be a non-empty list."]})
    if len(values) > AXIS_VALUES_MAX:
        raise MatrixError({"axes": [f"{where}: at most {AXIS_VALUES_MAX} values."]})
    parameter = raw.get("parameter")
    if parameter is not None:
        if parameter not in AXIS_PARAMETERS:
            allowed = ", ".join(AXIS_PARAMETERS)
            raise MatrixError(
                {"axes": [f"{where}: {parameter!r} cannot be an axis; allowed: {allowed}."]}
            )
        assignments: list[Mapping[str, Any]] = [{parameter: v} for v in values]
        name = str(raw.get("name") or AXIS_PARAMETERS[parameter])
    else:
        if not all(isinstance(v, Mapping) and v for v in values):
            raise MatrixError(
                {
                    "axes": [
                        f"{where}: give `parameter` and a list of its values, or `values` as "
                        "objects of parameters that change together."
                    ]
                }
            )
        assignments = values
        name = str(raw.get("name") or "")
    cells = [_checked(f"{where}, value {n + 1}", a, check) for n, a in enumerate(assignments)]
    keys = [tuple(sorted(c)) for c in cells]
    if len(set(keys)) != 1:
        raise MatrixError({"axes": [f"{where}: every value must set the same parameters."]})
    if len({_key(c) for c in cells}) != len(cells):
        raise MatrixError({"axes": [f"{where}: a value is listed twice; list each once."]})
    return name or " / ".join(AXIS_PARAMETERS[p] for p in keys[0]), cells


def _checked(where: str, assignment: Mapping[str, Any], check: Check) -> Cell:
    cell: Cell = {}
    for parameter, value in assignment.items():
        if parameter not in AXIS_PARAMETERS:
            allowed = ", ".join(AXIS_PARAMETERS)
            raise MatrixError(
                {"axes": [f"{where}: {parameter!r} cannot vary; allowed: {allowed}."]}
            )
        try:
            cell[parameter] = check(parameter, value)
        except ValueError as exc:
            raise MatrixError({"axes": [f"{where}: {parameter}: {exc}"]}) from None
    return cell


def build(raw_axes: object, raw_exclusions: object, check: Check) -> Matrix:
    """Check the axes and exclusions and expand them. MatrixError says what is wrong."""
    if raw_axes is None:
        raw_axes = []
    if raw_exclusions is None:
        raw_exclusions = []
    if not isinstance(raw_axes, list):
        raise MatrixError({"axes": ["Expected a list of axes."]})
    if len(raw_axes) > AXES_MAX:
        raise MatrixError({"axes": [f"At most {AXES_MAX} axes."]})
    axes: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(raw_axes):
        name, cells = _axis_values(index, raw, check)
        for parameter in cells[0]:
            if parameter in seen:
                raise MatrixError(
                    {
                        "axes": [
                            f"Axis {index + 1}: {parameter} is already varied by axis "
                            f"{seen[parameter] + 1}; put its values in one axis."
                        ]
                    }
                )
            seen[parameter] = index
        axes.append({"name": name, "values": cells})
    exclusions = _exclusions(raw_exclusions, seen, check)
    combinations = [
        {k: v for part in combo for k, v in part.items()}
        for combo in itertools.product(*(axis["values"] for axis in axes))
    ]
    cells = [c for c in combinations if not any(matches(c, e) for e in exclusions)]
    for n, exclusion in enumerate(exclusions):
        if not any(matches(c, exclusion) for c in combinations):
            raise MatrixError(
                {"exclusions": [f"Exclusion {n + 1} matches no combination: check its values."]}
            )
    if not cells:
        raise MatrixError({"exclusions": ["The exclusions remove every combination."]})
    return Matrix(axes, exclusions, cells, len(combinations) - len(cells))


def _exclusions(raw: object, varied: Mapping[str, int], check: Check) -> list[Cell]:
    if not isinstance(raw, list):
        raise MatrixError({"exclusions": ["Expected a list of exclusions."]})
    if len(raw) > EXCLUSIONS_MAX:
        raise MatrixError({"exclusions": [f"At most {EXCLUSIONS_MAX} exclusions."]})
    exclusions: list[Cell] = []
    for n, item in enumerate(raw):
        where = f"Exclusion {n + 1}"
        if not isinstance(item, Mapping) or not item:
            raise MatrixError({"exclusions": [f"{where}: expected an object of axis values."]})
        fixed = sorted(set(item) - set(varied))
        if fixed:
            raise MatrixError(
                {
                    "exclusions": [
                        f"{where}: {', '.join(fixed)} is not an axis; an exclusion names "
                        "values of the axes."
                    ]
                }
            )
        try:
            exclusions.append(_checked(where, item, check))
        except MatrixError as exc:
            raise MatrixError({"exclusions": exc.errors["axes"]}) from None
    return exclusions


def matches(cell: Mapping[str, Any], exclusion: Mapping[str, Any]) -> bool:
    return all(_key(cell.get(k)) == _key(v) for k, v in exclusion.items())


def label(cell: Mapping[str, Any], describe: Describe) -> str:
    """ "SRUP (signed MQTT) · SRUP 4: Good 3G": the cell's values in axis order."""
    return " · ".join(describe(p, v) for p, v in cell.items()) or "Single run"


# A run order's seed: user-given (Experiment.order_seed) or drawn at start; JSON-safe in JS.
ORDER_SEED_MAX = 2**31 - 1


def order_seed_draw() -> int:
    """A fresh seed for a run order, recorded with the runs it ordered."""
    return secrets.randbelow(ORDER_SEED_MAX + 1)


def run_order(cells: Sequence[Cell], repeats: int, seed: int) -> list[tuple[int, Cell]]:
    """(repeat, cell) in the order the runs are queued: repeat blocks one after another
    (every cell once, then every cell again), the cells shuffled within each block by a
    generator seeded with ``seed``. Blocks spread slow drift (temperature, a neighbour on
    the network) over all conditions instead of biasing the last repeats; the shuffle keeps
    a drift within a block from always favouring the first cells of the matrix. The same
    cells, repeats and seed give the same order (random.Random is deterministic for an
    int seed)."""
    rng = random.Random(seed)  # noqa: S311 - an order to reproduce, not a secret
    order: list[tuple[int, Cell]] = []
    for repeat in range(1, repeats + 1):
        block = list(cells)
        rng.shuffle(block)
        order.extend((repeat, cell) for cell in block)
    return order


# A messaging run's protocol and traffic parameters, in the order the API lists them.
MESSAGING_PARAMETERS = (
    "protocol",
    "mqtt_version",
    "transport",
    "srup_signature",
    "qos",
    "coap_type",
    "coap_method",
    "topic_id_type",
    "security",
    "payload_size",
    "message_count",
    "interval_ms",
    "interval_distribution",
    "measurement",
)
# Where a messaging run's messages go (experiments.addressing): fixed for a design, not axes.
ADDRESS_PARAMETERS = (
    "topic",
    "mqttsn_topic_id",
    "broker_url",
    "coap_url",
    "coap_path",
    "mqttsn_gateway",
    "target_device",
    "target_host",
)
_MESSAGING = {*MESSAGING_PARAMETERS, "network_profile", "device_ids"}
# Which parameters mean something in each experiment kind (an axis of another is refused).
KIND_AXIS_PARAMETERS: dict[str, set[str]] = {
    "messaging": _MESSAGING,
    "cipher_bench": {"mechanisms", "data_sizes", "repetitions", "crypto_library", "device_ids"},
    "throughput": {
        "mechanisms",
        "data_sizes",
        "repetitions",
        "window_ms",
        "crypto_library",
        "device_ids",
    },
}
