"""The crypto subcommands: selftest, encrypt, mechanisms."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from iotsecbench_agent.cli.main import USAGE_ERROR, main
from iotsecbench_agent.security import registry

# NIST SP 800-38A F.1.1 ECB-AES128.Encrypt and F.2.1 CBC-AES128.Encrypt, first two blocks.
KEY = "2b7e151628aed2a6abf7158809cf4f3c"
PT = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
ECB_CT = "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf"
CBC_IV = "000102030405060708090a0b0c0d0e0f"
CBC_CT = "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"


def test_selftest_exits_zero_and_prints_one_line_per_vector_when_all_pass() -> None:
    # A real process, as an operator runs it on a device.
    result = subprocess.run(
        [sys.executable, "-m", "iotsecbench_agent", "selftest"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )

    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("PASS") and "F.2.1 CBC-AES128.Encrypt" in line for line in lines)
    assert not any(line.startswith("FAIL") for line in lines)
    assert lines[-1].startswith("selftest: ")
    assert " 0 failed" in lines[-1]


def test_selftest_exits_one_when_a_vector_fails(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import dataclasses

    from iotsecbench_agent.security import selftest
    from iotsecbench_agent.security.vectors import VECTORS

    broken = dataclasses.replace(VECTORS[0], ciphertext=bytes(64))
    monkeypatch.setattr(selftest, "VECTORS", (broken,))

    assert main(["selftest"]) == 1
    out = capsys.readouterr().out
    # The vector is checked through each library that has the mechanism: pycryptodome, then
    # OpenSSL (through `cryptography`); both must fail it.
    assert out.startswith("FAIL  aes-128-cbc")
    fails = [line for line in out.splitlines() if line.startswith("FAIL  aes-128-cbc")]
    assert len(fails) == 2
    assert sum("[openssl]" in line for line in fails) == 1
    assert re.search(r"^selftest: \d+ passed, 2 failed", out, re.MULTILINE)


def test_encrypt_prints_published_ciphertext_when_given_nist_ecb_vector(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["encrypt", "--mechanism", "aes-128", "--mode", "ecb", "--key", KEY,
                 "--hex", PT]) == 0  # fmt: skip
    assert capsys.readouterr().out.strip() == ECB_CT


def test_encrypt_pads_and_prints_published_blocks_first_when_mode_is_cbc(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["encrypt", "--mechanism", "aes-128-cbc", "--mode", "cbc", "--key", KEY]
    assert main([*argv, "--iv", CBC_IV, "--hex", PT]) == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith(CBC_CT)
    assert len(out) == len(CBC_CT) + 32  # one PKCS#7 block


def test_encrypt_reproduces_sp800_67_example_when_cipher_is_3des(
    capsys: pytest.CaptureFixture[str],
) -> None:
    key = "0123456789ABCDEF23456789ABCDEF01456789ABCDEF0123"
    data = b"The qufck brown fox jump".hex()  # sic, the standard's spelling
    assert main(["encrypt", "--mechanism", "3des", "--mode", "ecb", "--key", key,
                 "--hex", data]) == 0  # fmt: skip
    assert capsys.readouterr().out.strip() == "a826fd8ce53b855fcce21c8112256fe668d5c05dd9b6b900"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--mechanism", "aes-128", "--mode", "ecb", "--key", KEY[:-2], "--hex", PT],
         "error: aes-128 needs a 16-byte key (128 bits), got 15 bytes"),
        (["--mechanism", "aes-128", "--mode", "cbc", "--key", KEY, "--hex", PT],
         "error: CBC needs an IV (--iv, 16 bytes)"),
        (["--mechanism", "aes-128", "--mode", "cbc", "--key", KEY, "--iv", "00", "--hex", PT],
         "error: aes-128 CBC needs a 16-byte IV, got 1 bytes"),
        (["--mechanism", "aes-128", "--mode", "ecb", "--key", KEY, "--hex", "00" * 5],
         "error: ECB takes whole 16-byte blocks and adds no padding; got 5 bytes"),
        (["--mechanism", "des", "--mode", "ecb", "--key", "zz", "--hex", PT],
         "error: --key is not hexadecimal: 'zz'"),
        (["--mechanism", "rot13", "--mode", "ecb", "--key", KEY, "--hex", PT],
         "error: 'rot13' is not a block cipher"),
    ],
)  # fmt: skip
def test_encrypt_prints_one_error_line_and_exits_2_when_input_is_wrong(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["encrypt", *args]) == USAGE_ERROR == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.strip().splitlines()
    assert line.startswith(message)


def test_mechanisms_lists_every_name_with_its_overhead_when_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["mechanisms"]) == 0
    rows = {line.split()[0]: line.split() for line in capsys.readouterr().out.splitlines()[1:]}
    assert list(rows) == registry.names()
    assert rows["aes-128-cbc"][3] == "32"  # IV 16 + a whole padding block for 64 bytes
    assert rows["ed25519"][3] == "64"
    assert rows["none"][3] == "0"
