"""The condition matrix: axes, exclusions and the order runs are queued in."""

from __future__ import annotations

from typing import Any

import pytest

from experiments.matrix import MatrixError, build, label, run_order


def _accept(parameter: str, value: Any) -> Any:
    if parameter == "qos" and value not in (0, 1, 2):
        raise ValueError("Ensure this value is less than or equal to 2.")
    return value


def test_axes_expand_to_every_combination_first_axis_outermost():
    matrix = build(
        [
            {"parameter": "qos", "values": [0, 1]},
            {"parameter": "payload_size", "values": [66, 1700]},
        ],
        [],
        _accept,
    )
    assert matrix.cells == [
        {"qos": 0, "payload_size": 66},
        {"qos": 0, "payload_size": 1700},
        {"qos": 1, "payload_size": 66},
        {"qos": 1, "payload_size": 1700},
    ]
    assert matrix.axes[0] == {"name": "QoS", "values": [{"qos": 0}, {"qos": 1}]}
    assert matrix.excluded == 0


def test_linked_axis_changes_its_parameters_together_and_exclusions_remove_matches():
    matrix = build(
        [
            {
                "name": "stack",
                "values": [{"protocol": "mqtt", "qos": 1}, {"protocol": "coap", "qos": 0}],
            },
            {"parameter": "security", "values": ["none", "aes-128-cbc"]},
        ],
        [{"protocol": "coap", "security": "aes-128-cbc"}],
        _accept,
    )
    assert matrix.cells == [
        {"protocol": "mqtt", "qos": 1, "security": "none"},
        {"protocol": "mqtt", "qos": 1, "security": "aes-128-cbc"},
        {"protocol": "coap", "qos": 0, "security": "none"},
    ]
    assert matrix.excluded == 1


def test_no_axes_is_one_run_of_the_fixed_parameters():
    matrix = build([], [], _accept)
    assert (matrix.cells, matrix.excluded) == ([{}], 0)


@pytest.mark.parametrize(
    ("axes", "exclusions", "field", "words"),
    [
        ([{"parameter": "colour", "values": [1]}], [], "axes", "'colour' cannot be an axis"),
        ([{"parameter": "qos", "values": []}], [], "axes", "non-empty list"),
        ([{"parameter": "qos", "values": [1, 1]}], [], "axes", "listed twice"),
        ([{"parameter": "qos", "values": [3]}], [], "axes", "Axis 1, value 1: qos: Ensure"),
        (
            [{"parameter": "qos", "values": [0]}, {"parameter": "qos", "values": [1]}],
            [],
            "axes",
            "already varied by axis 1",
        ),
        (
            [{"values": [{"qos": 0}, {"payload_size": 1}]}],
            [],
            "axes",
            "every value must set the same parameters",
        ),
        (
            [{"parameter": "qos", "values": [0, 1]}],
            [{"payload_size": 66}],
            "exclusions",
            "not an axis",
        ),
        (
            [{"parameter": "qos", "values": [0, 1]}],
            [{"qos": 2}],
            "exclusions",
            "matches no combination",
        ),
        (
            [{"parameter": "qos", "values": [0]}],
            [{"qos": 0}],
            "exclusions",
            "remove every combination",
        ),
    ],
)
def test_unusable_axes_and_exclusions_say_what_is_wrong(axes, exclusions, field, words):
    with pytest.raises(MatrixError) as raised:
        build(axes, exclusions, _accept)
    assert words in " ".join(raised.value.errors[field])


def test_repeats_queue_every_cell_before_any_cell_again():
    cells = [{"qos": 0}, {"qos": 1}]
    assert run_order(cells, 2) == [
        (1, {"qos": 0}),
        (1, {"qos": 1}),
        (2, {"qos": 0}),
        (2, {"qos": 1}),
    ]


def test_label_names_the_cell_values_in_axis_order():
    assert label({"qos": 1, "security": "aes"}, lambda p, v: f"{p}={v}") == "qos=1 · security=aes"
    assert label({}, lambda p, v: "") == "Single run"
