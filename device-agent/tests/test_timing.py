"""The one way runners time a mechanism, and the harness floor measured beside it."""

from __future__ import annotations

import pytest

from iotsecbench_agent.runners.timing import (
    HarnessFloor,
    refusal_outcome,
    time_secure,
    time_unsecure,
)
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import DecryptError, SecurityError, SignatureError
from iotsecbench_agent.srup.receiver import ReplayedMessage
from iotsecbench_agent.storage.recordlog import DECRYPT_ERROR, REJECTED_REPLAY, REJECTED_SIGNATURE


def test_time_secure_returns_the_secured_bytes_between_two_clock_readings() -> None:
    mechanism = registry.create("null")
    wire, t_before, t_after = time_secure(mechanism.secure, b"payload")

    assert mechanism.unsecure(wire) == b"payload"
    assert 0 < t_before < t_after


def test_time_unsecure_times_a_refusal_and_returns_its_error_instead_of_raising() -> None:
    mechanism = registry.create("aes-128-gcm")
    frame = bytearray(mechanism.secure(b"payload"))
    frame[-1] ^= 0x01

    payload, error, t_before, t_after = time_unsecure(mechanism.unsecure, bytes(frame))

    assert payload is None
    assert isinstance(error, DecryptError)
    assert t_after > t_before


def test_time_unsecure_returns_the_payload_and_no_error_when_the_frame_opens() -> None:
    mechanism = registry.create("aes-128-cbc")
    payload, error, t_before, t_after = time_unsecure(mechanism.unsecure, mechanism.secure(b"x"))

    assert (payload, error) == (b"x", None)
    assert t_after > t_before


@pytest.mark.parametrize(
    ("error", "outcome"),
    [
        (DecryptError("bad padding"), DECRYPT_ERROR),
        (SignatureError("bad tag"), REJECTED_SIGNATURE),
        (ReplayedMessage("old sequence ID"), REJECTED_REPLAY),
    ],
)
def test_refusal_outcome_names_the_record_outcome_of_each_refusal(
    error: SecurityError, outcome: str
) -> None:
    assert refusal_outcome(error) == outcome


def test_harness_floor_is_none_when_the_run_has_no_mechanism() -> None:
    assert HarnessFloor.for_security("none") is None
    # A null run measures the floor of the floor; any real mechanism measures it too.
    assert isinstance(HarnessFloor.for_security("null"), HarnessFloor)
    assert isinstance(HarnessFloor.for_security("aes-128-cbc"), HarnessFloor)


def test_harness_floor_measures_both_directions_when_the_message_came_back() -> None:
    secure_ns, unsecure_ns = HarnessFloor().measure(bytes(66), echoed=True)

    assert secure_ns > 0
    assert unsecure_ns is not None
    assert unsecure_ns > 0


def test_harness_floor_measures_securing_only_when_nothing_came_back() -> None:
    secure_ns, unsecure_ns = HarnessFloor().measure(bytes(66), echoed=False)

    assert secure_ns > 0
    assert unsecure_ns is None


def test_harness_floor_unsecures_a_null_frame_of_the_payload_size_for_a_receiver() -> None:
    floor = HarnessFloor()
    frame = floor.frame(66)

    assert registry.create("null").unsecure(frame) == bytes(66)
    assert floor.unsecure_ns(frame) > 0
