"""The golden SRUP messages of fixtures/srup/: the encoder still writes them byte for byte,
they decode to the fields golden.json lists, and their signatures verify with the OpenSSL
CLI, an implementation independent of the agent's."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from iotsecbench_agent.srup import Receiver, decode
from iotsecbench_agent.srup.keys import SIGNATURE_BYTES
from srup_golden import CONTROLLER_ID, FIXTURES, GOLDEN, INDEX, KEYS, Golden
from test_srup_keys import Keys


def golden_id(golden: Golden) -> str:
    return golden.file


@pytest.mark.parametrize("golden", GOLDEN, ids=golden_id)
def test_encoder_writes_the_golden_message_byte_for_byte_when_given_its_fields(
    golden: Golden,
) -> None:
    assert golden.encode() == (FIXTURES / golden.file).read_bytes()


@pytest.mark.parametrize("golden", GOLDEN, ids=golden_id)
def test_golden_message_decodes_to_the_fields_listed_when_read(golden: Golden) -> None:
    wire = (FIXTURES / golden.file).read_bytes()
    [listed] = [e for e in json.loads(INDEX.read_text()) if e["file"] == golden.file]
    message = decode(wire)

    assert listed == golden.describe(wire)
    assert listed["length"] == len(wire)
    assert message.sequence_id == listed["sequence_id"]
    assert f"{message.sender_id:016x}" == listed["sender_id"]
    assert message.token.decode("ascii") == listed["token"]
    if "action" in listed:
        assert f"{message.action:02x}" == listed["action"]
    else:
        assert message.data_id is not None
        assert message.data is not None
        assert message.data_id.decode("ascii") == listed["data_id"]
        assert message.data.hex() == listed["data"]


@pytest.mark.parametrize("golden", GOLDEN, ids=golden_id)
def test_golden_message_is_accepted_from_the_controller_when_verified(
    golden: Golden, srup_keys: Keys
) -> None:
    receiver = Receiver({CONTROLLER_ID: srup_keys["controller", golden.signature].verifier})

    message = receiver.accept((FIXTURES / golden.file).read_bytes())

    assert message.sequence_id == golden.sequence_id


@pytest.mark.parametrize("golden", GOLDEN, ids=golden_id)
def test_golden_signature_verifies_with_the_openssl_cli_when_split_out(
    golden: Golden, tmp_path: Path
) -> None:
    wire = (FIXTURES / golden.file).read_bytes()
    signature_bytes = SIGNATURE_BYTES[golden.signature]
    # By the format, not by our decoder: header (18) + token length (2) + token, then
    # signature length (2) + signature, then the type fields.
    head_end = 18 + 2 + len(golden.token)
    assert int.from_bytes(wire[head_end : head_end + 2], "big") == signature_bytes
    signature = wire[head_end + 2 : head_end + 2 + signature_bytes]
    signed = wire[:head_end] + wire[head_end + 2 + signature_bytes :]
    (tmp_path / "signed.bin").write_bytes(signed)
    (tmp_path / "sig.bin").write_bytes(signature)
    key = str(KEYS / golden.key)
    if golden.signature == "ed25519":
        args = ["pkeyutl", "-verify", "-inkey", key, "-rawin"]
        args += ["-in", "signed.bin", "-sigfile", "sig.bin"]
    else:
        args = ["dgst", "-sha256", "-prverify", key, "-signature", "sig.bin", "signed.bin"]

    result = subprocess.run(
        ["openssl", *args], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert "Verified OK" in result.stdout or "Signature Verified Successfully" in result.stdout
