from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from Crypto.PublicKey.ECC import EccKey

from iotsecbench_agent.srup import SIGNATURES, PartyKey, load_key
from netemu_run_kit import Harness, no_link_left
from srup_golden import KEYS
from testkit import (
    Broker,
    FakePlatform,
    TlsBroker,
    mosquitto_binary,
    new_key,
    run_mosquitto,
    run_tls_mosquitto,
    start_platform,
)

MOSQUITTO_MISSING = "mosquitto not found on PATH or in /usr/sbin: apt-get install mosquitto"


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
        pytest.fail(MOSQUITTO_MISSING)
    yield from run_mosquitto(binary)


@pytest.fixture(scope="session")
def tls_broker() -> Iterator[TlsBroker]:
    binary = mosquitto_binary()
    if binary is None:
        pytest.fail(MOSQUITTO_MISSING)
    yield from run_tls_mosquitto(binary)


@pytest.fixture(scope="session")
def srup_keys() -> dict[tuple[str, str], PartyKey]:
    """The TEST-ONLY keys of fixtures/srup/, loaded once per session:
    (party, signature) -> key, for the parties "controller" and "device"."""
    return {
        (party, signature): load_key(
            signature, (KEYS / f"{party}-{signature}.pem").read_bytes(), slot=party
        )
        for party in ("controller", "device")
        for signature in SIGNATURES
    }


@pytest.fixture
def harness(platform: FakePlatform, tmp_path: Path, key: EccKey) -> Iterator[Harness]:
    """The executor for network-profile runs; after the test, no run's link is left."""
    kit = Harness(platform, tmp_path, key)
    yield kit
    if os.geteuid() == 0:
        leftovers = [run_id for run_id in kit.run_ids if not no_link_left(run_id)]
        assert leftovers == [], f"namespaces left behind by runs {leftovers}"


@pytest.fixture(params=["evp", "binding"])
def cbc_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The two ways the ``openssl`` library's CBC writes into a caller's buffer: the agent's
    EVP extension (this build has it: tests/test_openssl_evp.py) and, as on a device built
    without OpenSSL's headers, the ``cryptography`` binding alone. Mechanisms the test
    creates after this fixture use that path."""
    from iotsecbench_agent.security import openssl_mechanisms

    if request.param == "binding":
        monkeypatch.setattr(openssl_mechanisms, "_evp", None)
    else:
        assert openssl_mechanisms.has_evp_extension()
    return str(request.param)
