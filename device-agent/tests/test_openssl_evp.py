"""The agent's EVP extension (``iotsecbench_agent._evp``, native/_evpmodule.c): the
``openssl`` library's CBC bench calls in one native call into the system's libcrypto, the
same frames as the ``cryptography`` binding writes, and the binding alone where the
extension is missing."""

from __future__ import annotations

import os
import subprocess
import threading

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from iotsecbench_contract.cryptolibs import OPENSSL

from iotsecbench_agent import _evp
from iotsecbench_agent.security import openssl_mechanisms, registry
from iotsecbench_agent.security.base import INTO_SLACK, DecryptError
from iotsecbench_agent.security.mechanisms import check_cbc_frame


def never_called(size: int) -> None:
    raise AssertionError(f"bad_frame({size})")


def test_this_build_has_the_extension_on_the_libcrypto_openssl_speed_runs_on() -> None:
    # `make deps` installs libssl-dev, so a build without the extension here is a defect.
    assert openssl_mechanisms.has_evp_extension()
    cli = subprocess.run(["openssl", "version"], capture_output=True, text=True, check=True)
    # "OpenSSL 3.0.19 27 Jan 2026 (Library: OpenSSL 3.0.19 27 Jan 2026)": the library part
    library = cli.stdout.strip().split("(Library: ")[-1].rstrip(")")
    assert _evp.openssl_version() == library
    version = registry.library_version(OPENSSL)
    assert version.startswith("cryptography ")
    assert version.endswith(f"; CBC bench calls: {library} (EVP extension)")


@pytest.mark.parametrize(
    "name", ["aes-128-cbc", "aes-192-cbc", "aes-256-cbc", "des-cbc", "3des-cbc"]
)
def test_openssl_cbc_bench_calls_are_native_and_the_binding_is_the_fallback(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    native = registry.create(name, library=OPENSSL)
    assert type(native.secure_into).__name__ == "builtin_function_or_method"
    assert type(native.unsecure_into).__name__ == "builtin_function_or_method"
    monkeypatch.setattr(openssl_mechanisms, "_evp", None)
    python = registry.create(name, library=OPENSSL)
    assert type(python.secure_into).__name__ == "function"
    assert type(python.unsecure_into).__name__ == "function"
    assert registry.library_version(OPENSSL).count("EVP extension") == 0


def test_extension_frames_are_plain_cbc_under_the_drawn_iv() -> None:
    """Against the binding's own one-shot CBC: iv || AES-CBC(iv, pkcs7(payload)), for the
    IV the random_bytes callable gave, frame after frame on one object."""
    key = os.urandom(16)
    ivs: list[bytes] = []

    def draw(n: int) -> bytes:
        ivs.append(os.urandom(n))
        return ivs[-1]

    cbc = _evp.Cbc("AES-128-CBC", key, "aes-128-cbc", draw, never_called, DecryptError)
    assert cbc.block_size == 16
    out = bytearray(70_000 + 32 + INTO_SLACK)
    back = bytearray(len(out) + INTO_SLACK)
    for size in (0, 1, 15, 16, 17, 8191, 8192, 8193, 70_000):
        payload = os.urandom(size)
        frame = bytes(cbc.encrypt_into(payload, out))
        pad = 16 - size % 16
        plain = payload + bytes((pad,)) * pad
        iv = ivs[-1]
        want = iv + Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor().update(plain)
        assert frame == want
        assert bytes(cbc.decrypt_into(frame, back)) == payload
    assert [len(iv) for iv in ivs] == [16] * 9


def test_extension_refuses_what_the_mechanism_refuses_with_its_messages() -> None:
    name = "aes-128-cbc"
    cbc = _evp.Cbc(
        "AES-128-CBC",
        bytes(16),
        name,
        os.urandom,
        lambda size: check_cbc_frame(name, size, 16),
        DecryptError,
    )
    with pytest.raises(DecryptError, match=r"aes-128-cbc: frame of 17 bytes is not a 16-byte IV"):
        cbc.decrypt_into(bytes(17), bytearray(64))
    with pytest.raises(DecryptError, match=r"frame of 16 bytes"):
        cbc.decrypt_into(bytes(16), bytearray(64))
    frame = bytearray(cbc.encrypt_into(b"abc", bytearray(64)))
    frame[-1] ^= 1
    with pytest.raises(DecryptError, match=r"^aes-128-cbc: bad padding$"):
        cbc.decrypt_into(bytes(frame), bytearray(64))
    with pytest.raises(ValueError, match="a 32-byte frame wants a buffer of 32, not 8"):
        cbc.decrypt_into(bytes(32), bytearray(8))
    with pytest.raises(ValueError, match="a 48-byte frame wants a buffer of 48, not 40"):
        cbc.encrypt_into(bytes(20), bytearray(40))
    with pytest.raises(BufferError, match="not writable"):
        cbc.decrypt_into(bytes(32), bytes(64))  # type: ignore[arg-type]


def test_extension_says_what_is_wrong_with_its_construction() -> None:
    with pytest.raises(ValueError, match="OpenSSL has no CBC cipher named AES-128-GCM"):
        _evp.Cbc("AES-128-GCM", bytes(16), "x", os.urandom, never_called, DecryptError)
    with pytest.raises(ValueError, match="AES-256-CBC wants a 32-byte key, not 16 bytes"):
        _evp.Cbc("AES-256-CBC", bytes(16), "x", os.urandom, never_called, DecryptError)
    with pytest.raises(ValueError, match=r"random_bytes\(16\) gave no 16 bytes"):
        _evp.Cbc(
            "AES-128-CBC", bytes(16), "x", lambda n: b"short", never_called, DecryptError
        ).encrypt_into(b"", bytearray(64))


def test_threads_sharing_one_mechanism_get_the_payload_or_an_error_never_wrong_bytes() -> None:
    """Frames of 64 KiB and more run with the GIL released; a second thread on the same
    object meanwhile is refused (RuntimeError), so no call ever sees a corrupted chain."""
    cbc = registry.create("aes-128-cbc", library=OPENSSL)
    payload = os.urandom(1 << 20)
    frame = bytes(cbc.secure(payload))
    outcomes: list[str] = []

    def work() -> None:
        out = bytearray(len(frame) + INTO_SLACK)
        for _ in range(40):
            try:
                got = bytes(cbc.unsecure_into(frame, out))
            except RuntimeError as exc:
                outcomes.append(str(exc))
            else:
                assert got == payload
                outcomes.append("ok")

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(outcomes) == 120
    assert "ok" in outcomes
    refusal = "aes-128-cbc: used by another thread at the same time"
    assert set(outcomes) <= {"ok", refusal}
