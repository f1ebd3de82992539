from __future__ import annotations

import re
from typing import Any

import pytest

from iotsecbench_contract.errors import JobSpecError
from iotsecbench_contract.interleave import (
    DUPLICATE,
    FIELD,
    interleave_errors,
    mechanism_of,
    parse_interleave,
)
from iotsecbench_contract.records import LEGACY_RECORD_COLUMNS, RECORD_COLUMNS, RECORD_HEADER


def test_parse_interleave_round_trips_a_rotation_through_json_fields() -> None:
    spec: dict[str, Any] = {FIELD: ["none", "null", "aes-128-cbc"], "security": "none"}
    rotation = parse_interleave(spec)
    assert rotation == ("none", "null", "aes-128-cbc")
    assert parse_interleave({**spec, FIELD: list(rotation)}) == rotation


def test_parse_interleave_is_none_for_a_run_that_does_not_interleave() -> None:
    assert parse_interleave({"security": "aes-128-cbc"}) is None
    assert parse_interleave({FIELD: []}) is None


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (["none"], "2 to 8 mechanisms; 1 given"),
        (["none", "rot13"], "unknown mechanism 'rot13'"),
        (["none", "null", "none"], DUPLICATE),
        ("none,null", "must be a list of mechanism names"),
        ([f"aes-{b}-cbc" for b in (128, 192, 256)] * 3, "9 given"),
    ],
)
def test_parse_interleave_names_the_field_when_the_rotation_is_invalid(
    value: Any, words: str
) -> None:
    with pytest.raises(JobSpecError, match=re.escape(words)) as caught:
        parse_interleave({FIELD: value})
    assert caught.value.field == FIELD
    assert interleave_errors(value)


def test_parse_interleave_refuses_a_security_beside_the_rotation() -> None:
    with pytest.raises(JobSpecError, match="leave security at none") as caught:
        parse_interleave({FIELD: ["none", "null"], "security": "aes-128-cbc"})
    assert caught.value.field == "security"


def test_mechanism_of_rotates_by_seq() -> None:
    rotation = ("none", "null", "aes-128-cbc")
    assert [mechanism_of(rotation, s) for s in range(7)] == [
        "none",
        "null",
        "aes-128-cbc",
        "none",
        "null",
        "aes-128-cbc",
        "none",
    ]


def test_record_columns_keep_every_older_log_a_prefix() -> None:
    assert RECORD_HEADER.endswith(",floor_unsecure_ns,mechanism")
    for legacy in LEGACY_RECORD_COLUMNS:
        assert RECORD_COLUMNS[: len(legacy)] == legacy
    assert [len(c) for c in LEGACY_RECORD_COLUMNS] == [6, 8, 10]


def test_parse_interleave_refuses_a_measurement_other_than_round_trip() -> None:
    with pytest.raises(JobSpecError, match="round trips") as caught:
        parse_interleave({FIELD: ["none", "null"], "measurement": "ack"})
    assert caught.value.field == "measurement"
