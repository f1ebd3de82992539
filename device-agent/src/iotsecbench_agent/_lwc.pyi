"""Type stub of the native extension built from device-agent/native (see _lwcmodule.c).

Every input accepts any C-contiguous bytes-like object (bytes, bytearray, memoryview);
every output is a new bytes object.
"""

from typing import final

from typing_extensions import Buffer

BLOCK_CIPHERS: tuple[str, ...]
BLOCK_SIZE: int
ASCON_KEY_SIZE: int
ASCON_NONCE_SIZE: int
ASCON_TAG_SIZE: int

@final
class BlockCipher:
    """A 64-bit block cipher whose key schedule is computed once, here."""

    def __init__(self, name: str, key: Buffer) -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def block_size(self) -> int: ...
    @property
    def key_size(self) -> int: ...
    @property
    def rounds(self) -> int: ...
    def ecb_encrypt(self, data: Buffer, /) -> bytes: ...
    def ecb_decrypt(self, data: Buffer, /) -> bytes: ...
    def cbc_encrypt(self, iv: Buffer, plaintext: Buffer, /) -> bytes: ...
    def cbc_decrypt(self, iv: Buffer, ciphertext: Buffer, /) -> bytes: ...

def ascon_aead128_encrypt(
    key: Buffer, nonce: Buffer, ad: Buffer, plaintext: Buffer, /
) -> bytes: ...
def ascon_aead128_decrypt(
    key: Buffer, nonce: Buffer, ad: Buffer, ciphertext_and_tag: Buffer, /
) -> bytes: ...
