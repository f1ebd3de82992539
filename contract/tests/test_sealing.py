from __future__ import annotations

import base64

import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from iotsecbench_contract.sealing import SealError, seal, unseal

CONTEXT = "run-1/device-1"


def test_a_sealed_secret_opens_only_with_its_key_and_context() -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    secret = bytes(range(16))
    sealed = seal(key.public_key(), secret, context=CONTEXT)
    assert secret.hex() not in str(sealed)

    assert unseal(key, sealed, context=CONTEXT) == secret
    with pytest.raises(SealError, match="does not open"):
        unseal(key, sealed, context="run-2/device-1")
    with pytest.raises(SealError, match="does not open"):
        unseal(ec.generate_private_key(ec.SECP256R1()), sealed, context=CONTEXT)
    flipped = bytes([1]) + base64.b64decode(sealed["ct"])[1:]
    with pytest.raises(SealError, match="does not open"):
        unseal(key, {**sealed, "ct": base64.b64encode(flipped).decode()}, context=CONTEXT)


def test_a_malformed_sealed_secret_is_refused() -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    sealed = seal(key.public_key(), b"k", context=CONTEXT)
    with pytest.raises(SealError, match="algorithm"):
        unseal(key, {**sealed, "alg": "none"}, context=CONTEXT)
    with pytest.raises(SealError, match="malformed"):
        unseal(key, {k: v for k, v in sealed.items() if k != "nonce"}, context=CONTEXT)
    with pytest.raises(SealError, match="malformed"):
        unseal(key, {**sealed, "epk": "not base64!"}, context=CONTEXT)
