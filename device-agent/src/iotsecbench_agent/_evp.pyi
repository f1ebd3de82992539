"""Type stub of the EVP extension built from device-agent/native/_evpmodule.c (optional: the
build skips it where OpenSSL's headers are missing; see setup.py)."""

from typing import Callable, final

from typing_extensions import Buffer

def openssl_version() -> str:
    """The libcrypto the extension runs on, e.g. ``OpenSSL 3.0.19 27 Jan 2026``."""

@final
class Cbc:
    """One OpenSSL encryption and one decryption context of a CBC cipher, padding off; the
    frames of ``openssl_mechanisms.OpensslCbc``."""

    block_size: int

    def __init__(
        self,
        cipher: str,
        key: bytes,
        name: str,
        random_bytes: Callable[[int], bytes],
        bad_frame: Callable[[int], object],  # must raise: the frame-length error
        bad_padding: type[BaseException],
    ) -> None: ...
    def encrypt_into(self, payload: Buffer, out: bytearray) -> memoryview:
        """``iv || CBC(iv, pkcs7(payload))`` written into ``out``, a view of it answered."""
    def decrypt_into(self, frame: Buffer, out: bytearray) -> memoryview:
        """The payload of ``frame`` written into ``out`` (from byte ``block_size`` on), a view
        of it answered; raises ``bad_padding`` or what ``bad_frame`` raises."""
