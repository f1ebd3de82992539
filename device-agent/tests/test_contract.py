"""The agent keeps to the contract: its registry builds exactly the contract's mechanisms,
each adding the bytes the contract says (the platform sizes messages from the contract
alone), and its wire formats fit the contract's limits."""

from __future__ import annotations

import pytest
from iotsecbench_contract import mechanisms as contract
from iotsecbench_contract.limits import ONE_WAY_MIN_PAYLOAD

from iotsecbench_agent.oneway import wire
from iotsecbench_agent.security import MechanismError, registry


def test_the_registry_implements_exactly_the_contracts_mechanisms_in_its_order() -> None:
    assert registry.names() == list(contract.NAMES)


@pytest.mark.parametrize("name", contract.NAMES)
def test_a_registered_mechanism_has_the_contracts_info(name: str) -> None:
    assert registry.describe(name) == contract.describe(name)


@pytest.mark.parametrize("name", [n for n in contract.NAMES if not n.startswith("rsa-4096")])
@pytest.mark.parametrize("size", [0, 1, 15, 16, 17, 100])
def test_a_built_mechanism_adds_the_contracts_overhead(name: str, size: int) -> None:
    try:
        mechanism = registry.create(name, seed=1)
    except MechanismError:
        pytest.skip(f"{name}: native module not built here")
    frame = mechanism.secure(bytes(size))
    assert len(frame) == size + contract.describe(name).overhead(size)


def test_a_one_way_payload_of_the_contracts_minimum_carries_its_header() -> None:
    assert wire.HEADER_BYTES == ONE_WAY_MIN_PAYLOAD
    payload = wire.build_payload(3, 5, ONE_WAY_MIN_PAYLOAD)
    parsed = wire.parse_payload(payload)
    assert parsed is not None
    assert parsed.seq == 3
    with pytest.raises(ValueError, match="16 bytes or more"):
        wire.build_payload(3, 5, ONE_WAY_MIN_PAYLOAD - 1)
