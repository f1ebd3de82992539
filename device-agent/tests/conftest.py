from __future__ import annotations

from collections.abc import Iterator

import pytest
from Crypto.PublicKey.ECC import EccKey

from testkit import Broker, FakePlatform, mosquitto_binary, new_key, run_mosquitto, start_platform


@pytest.fixture
def key() -> EccKey:
    return new_key()


@pytest.fixture
def platform() -> Iterator[FakePlatform]:
    fake = start_platform()
    yield fake
    fake.server.shutdown()
    fake.server.server_close()


@pytest.fixture(scope="session")
def broker() -> Iterator[Broker]:
    binary = mosquitto_binary()
    if binary is None:
        # Fail, not skip: the agent's job is to measure real traffic, and a green run
        # without the broker tests would hide that nothing was measured.
        pytest.fail("mosquitto not found on PATH or in /usr/sbin: apt-get install mosquitto")
    yield from run_mosquitto(binary)
