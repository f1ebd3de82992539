"""Published known-answer vectors for the pycryptodome mechanisms, as data.

Every value is copied from the document named in ``source``; none was computed by this
project. ``selftest.py`` runs them through the mechanisms' own code paths (the registry,
the framing, the CBC chaining after a warm-up message), not through bare library calls.

What ``ciphertext`` holds depends on ``check``:

- ``cbc``: the published ciphertext of whole-block plaintext under IV ``nonce``. The
  mechanism pads with PKCS#7, so its output is the published ciphertext plus one padding
  block; the published part is compared, then the whole frame is decrypted back.
- ``ctr``: the published ciphertext; ``nonce`` is the full 16-byte initial counter block
  (the mechanism's 8-byte nonce, then the 64-bit counter's start value).
- ``aead``: ciphertext || tag under ``nonce`` and associated data ``ad``.
- ``stream``: RC4 keystream (plaintext zeros): RC4 is keyed with ``key || nonce``, so a
  published 256-bit-key vector is the 128-bit mechanism key plus a 128-bit nonce.
- ``mac``: the tag; ``sign``: a deterministic signature, which signing must reproduce;
  ``verify``: a published signature under the public key ``key`` (DER), which must verify.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Check = Literal["cbc", "ctr", "aead", "stream", "mac", "sign", "verify"]


@dataclass(frozen=True)
class Vector:
    mechanism: str
    check: Check
    key: bytes
    plaintext: bytes
    ciphertext: bytes
    source: str
    nonce: bytes = b""
    ad: bytes = b""


def _h(text: str) -> bytes:
    return bytes.fromhex("".join(text.split()))


# NIST SP 800-38A Appendix F: the same four plaintext blocks for every AES mode example.
_SP800_38A_PT = _h(
    "6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51"
    "30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710"
)
_SP800_38A_KEYS = {
    128: _h("2b7e151628aed2a6abf7158809cf4f3c"),
    192: _h("8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b"),
    256: _h("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4"),
}
_SP800_38A = "NIST SP 800-38A (2001) Appendix"

# McGrew & Viega, "The Galois/Counter Mode of Operation (GCM)" (2005), Appendix B.
_GCM = "McGrew-Viega GCM spec Appendix B, Test Case"
_GCM_K = _h("feffe9928665731c6d6a8f9467308308")
_GCM_IV = _h("cafebabefacedbaddecaf888")
_GCM_P = _h(
    "d9313225f88406e5a55909c5aff5269a 86a7a9531534f7da2e4c303d8a318a72"
    "1c3c0c95956809532fcf0e2449a6b525 b16aedf5aa0de657ba637b391aafd255"
)
_GCM_A = _h("feedfacedeadbeeffeedfacedeadbeefabaddad2")

# RFC 8032 §7.1 (Ed25519 TEST 1-3): secret key, message, signature.
_RFC8032 = "RFC 8032 §7.1 Ed25519"

# RFC 6979 A.2.5: ECDSA P-256 private key x, SHA-256 deterministic signatures r || s.
_RFC6979_X = _h("C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721")

# Wycheproof (C2SP/wycheproof, testvectors_v1): one 2048-bit public key for both files.
_WYCHEPROOF_RSA_2048_DER = _h(
    "30820122300d06092a864886f70d01010105000382010f003082010a0282010100a2b451a07d0aa5f96e"
    "455671513550514a8a5b462ebef717094fa1fee82224e637f9746d3f7cafd31878d80325b6ef5a1700f6"
    "5903b469429e89d6eac8845097b5ab393189db92512ed8a7711a1253facd20f79c15e8247f3d3e42e46e"
    "48c98e254a2fe9765313a03eff8f17e1a029397a1fa26a8dce26f490ed81299615d9814c22da610428e0"
    "9c7d9658594266f5c021d0fceca08d945a12be82de4d1ece6b4c03145b5d3495d4ed5411eb878daf05fd"
    "7afc3e09ada0f1126422f590975a1969816f48698bcbba1b4d9cae79d460d8f9f85e7975005d9bc22c4e"
    "5ac0f7c1a45d12569a62807d3b9a02e5a530e773066f453d1f5b4c2e9cf7820283f742b9d50203010001"
)
_WYCHEPROOF = "Wycheproof testvectors_v1/"

# The same files' 3072- and 4096-bit keys (each shared by the PKCS#1 v1.5 and PSS files).
_WYCHEPROOF_RSA_3072_DER = _h(
    "308201a2300d06092a864886f70d01010105000382018f003082018a0282018100c6fe23792566023c2652"
    "87c5ac6f71541c0994d11d059ee6403986efa21c24b51bd91d8862f9df79a4e328e3e27c83df260b25a9b4"
    "3420affc44b51e8d7525b6f29c372a405104732007527a62ed82fac73f4892a80e09682a41a58cd347017f"
    "3be7d801334f92d9321aafd53b51bffabfc752cfccae0b1ee03bdaff9e428cc1c117f1ac96b4fe23f8c23e"
    "6381186a66fd59289339ae55c4bcdadbff84abdaa532240d4e1d28b2d0481dadd3b246557ca8fe18092817"
    "730b39e6ee378ffcc85b19ffdc916a9b991a6b66d4a9c7bab5f5e7a3722101142e7a4108c15d573b15289e"
    "07e46eaea07b42c2abcba330e99554b4656165bb4c0db2b6393a07eca575c51a93c4e15bdb0f747909447e"
    "3efe34c67ca8954b530e56a20a1b6d84d45ed1bcd3aa58ec06f184ee5857aaa819e1cca9a26f4e28d6b977"
    "d33916db9896d252d1afa762e287cb0d384cc75bfe53f4e922d02dd0a481c042e2d306b4b3c189371e575b"
    "25e0005a164cf69dd0976e4d5be476806ea6be6084e71ab4f5ac5c1b12030203010001"
)
_WYCHEPROOF_RSA_4096_DER = _h(
    "30820222300d06092a864886f70d01010105000382020f003082020a0282020100956353ecb7561945dc55"
    "44e4602466078c93f28507701ffd39e2a9813c8ac8740e6ad61c955d484e513b3dcea527e001a018ee2c20"
    "7c1806a96763280236cd3c820dff79837c9b709cb4b522d3ddbc9192242259c43be75ea244d37ccfa8a4c7"
    "5024a2cf7cc76e842ea69cc7ca1227405b070047387a5068e4976e4b8ed5f9aadd7b4db024fbb8d7bd8a04"
    "0d8f6610c1c6eb1d4b606dfd182235d0360880304d5a750603af0c424b8c8e6dbc12c3697d2d609c97547e"
    "774e2e362ea96d1690dc9432112c535258b3db2c4c32ad510d6c07ad0788357883869efb8b629298724847"
    "925cf42b34386be700f02903db5852276bee2370941f397bdc3905e30964a0b5e73602703340960c3ed607"
    "8263b611f197955fecce4b9a32e43cd1d2e5e87c4ceb65edc8853a7ee31d28e16e5adffb8ac7b760fbfc63"
    "d5f174f4d0936461dbb12c964a6b6d6cee752e5fca1ab4a9fd238dd3e8860a1d763d2019f9e7b99ed7666d"
    "4e038710f90e0093bc566987d6c0092f571376e705b342d066c54e6e2578927b92c1f0928de44e9a6e1f49"
    "b907c6aa4f605ec9c398d55df81c67373b03cc8110162fb417f96fd321048647dfcbb392455115cd912ea8"
    "3351853e6a185284648842adcbd25e67174a3b93b8a64ce2ce9de0e8577b8b662ce32e2565782665dd38e5"
    "bb5fcc4fe12e4320dab7773b545a09c6d39d9dbad459f21f3e624ee6ed0203010001"
)

VECTORS: tuple[Vector, ...] = (
    # -- AES-CBC: NIST SP 800-38A F.2.1, F.2.3, F.2.5 -----------------------------------
    Vector(
        "aes-128-cbc",
        "cbc",
        _SP800_38A_KEYS[128],
        _SP800_38A_PT,
        _h(
            "7649abac8119b246cee98e9b12e9197d 5086cb9b507219ee95db113a917678b2"
            "73bed6b8e3c1743b7116e69e22229516 3ff1caa1681fac09120eca307586e1a7"
        ),
        f"{_SP800_38A} F.2.1 CBC-AES128.Encrypt",
        nonce=_h("000102030405060708090a0b0c0d0e0f"),
    ),
    Vector(
        "aes-192-cbc",
        "cbc",
        _SP800_38A_KEYS[192],
        _SP800_38A_PT,
        _h(
            "4f021db243bc633d7178183a9fa071e8 b4d9ada9ad7dedf4e5e738763f69145a"
            "571b242012fb7ae07fa9baac3df102e0 08b0e27988598881d920a9e64f5615cd"
        ),
        f"{_SP800_38A} F.2.3 CBC-AES192.Encrypt",
        nonce=_h("000102030405060708090a0b0c0d0e0f"),
    ),
    Vector(
        "aes-256-cbc",
        "cbc",
        _SP800_38A_KEYS[256],
        _SP800_38A_PT,
        _h(
            "f58c4c04d6e5f1ba779eabfb5f7bfbd6 9cfc4e967edb808d679f777bc6702c7d"
            "39f23369a9d9bacfa530e26304231461 b2eb05e2c39be9fcda6c19078c6a9d1b"
        ),
        f"{_SP800_38A} F.2.5 CBC-AES256.Encrypt",
        nonce=_h("000102030405060708090a0b0c0d0e0f"),
    ),
    # -- AES-CTR: NIST SP 800-38A F.5.1, F.5.3, F.5.5 -----------------------------------
    Vector(
        "aes-128-ctr",
        "ctr",
        _SP800_38A_KEYS[128],
        _SP800_38A_PT,
        _h(
            "874d6191b620e3261bef6864990db6ce 9806f66b7970fdff8617187bb9fffdff"
            "5ae4df3edbd5d35e5b4f09020db03eab 1e031dda2fbe03d1792170a0f3009cee"
        ),
        f"{_SP800_38A} F.5.1 CTR-AES128.Encrypt",
        nonce=_h("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"),
    ),
    Vector(
        "aes-192-ctr",
        "ctr",
        _SP800_38A_KEYS[192],
        _SP800_38A_PT,
        _h(
            "1abc932417521ca24f2b0459fe7e6e0b 090339ec0aa6faefd5ccc2c6f4ce8e94"
            "1e36b26bd1ebc670d1bd1d665620abf7 4f78a7f6d29809585a97daec58c6b050"
        ),
        f"{_SP800_38A} F.5.3 CTR-AES192.Encrypt",
        nonce=_h("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"),
    ),
    Vector(
        "aes-256-ctr",
        "ctr",
        _SP800_38A_KEYS[256],
        _SP800_38A_PT,
        _h(
            "601ec313775789a5b7a7f504bbf3d228 f443e3ca4d62b59aca84e990cacaf5c5"
            "2b0930daa23de94ce87017ba2d84988d dfc9c58db67aada613c2dd08457941a6"
        ),
        f"{_SP800_38A} F.5.5 CTR-AES256.Encrypt",
        nonce=_h("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"),
    ),
    # -- AES-GCM: McGrew-Viega Test Cases 2, 3, 4 (AES-128), 9, 10 (192), 15, 16 (256) --
    Vector(
        "aes-128-gcm",
        "aead",
        bytes(16),
        bytes(16),
        _h("0388dace60b6a392f328c2b971b2fe78 ab6e47d42cec13bdf53a67b21257bddf"),
        f"{_GCM} 2",
        nonce=bytes(12),
    ),
    Vector(
        "aes-128-gcm",
        "aead",
        _GCM_K,
        _GCM_P,
        _h(
            "42831ec2217774244b7221b784d0d49c e3aa212f2c02a4e035c17e2329aca12e"
            "21d514b25466931c7d8f6a5aac84aa05 1ba30b396a0aac973d58e091473f5985"
            "4d5c2af327cd64a62cf35abd2ba6fab4"
        ),
        f"{_GCM} 3",
        nonce=_GCM_IV,
    ),
    Vector(
        "aes-128-gcm",
        "aead",
        _GCM_K,
        _GCM_P[:60],
        _h(
            "42831ec2217774244b7221b784d0d49c e3aa212f2c02a4e035c17e2329aca12e"
            "21d514b25466931c7d8f6a5aac84aa05 1ba30b396a0aac973d58e091"
            "5bc94fbc3221a5db94fae95ae7121a47"
        ),
        f"{_GCM} 4",
        nonce=_GCM_IV,
        ad=_GCM_A,
    ),
    Vector(
        "aes-192-gcm",
        "aead",
        _GCM_K + _GCM_K[:8],
        _GCM_P,
        _h(
            "3980ca0b3c00e841eb06fac4872a2757 859e1ceaa6efd984628593b40ca1e19c"
            "7d773d00c144c525ac619d18c84a3f47 18e2448b2fe324d9ccda2710acade256"
            "9924a7c8587336bfb118024db8674a14"
        ),
        f"{_GCM} 9",
        nonce=_GCM_IV,
    ),
    Vector(
        "aes-192-gcm",
        "aead",
        _GCM_K + _GCM_K[:8],
        _GCM_P[:60],
        _h(
            "3980ca0b3c00e841eb06fac4872a2757 859e1ceaa6efd984628593b40ca1e19c"
            "7d773d00c144c525ac619d18c84a3f47 18e2448b2fe324d9ccda2710"
            "2519498e80f1478f37ba55bd6d27618c"
        ),
        f"{_GCM} 10",
        nonce=_GCM_IV,
        ad=_GCM_A,
    ),
    Vector(
        "aes-256-gcm",
        "aead",
        _GCM_K + _GCM_K,
        _GCM_P,
        _h(
            "522dc1f099567d07f47f37a32a84427d 643a8cdcbfe5c0c97598a2bd2555d1aa"
            "8cb08e48590dbb3da7b08b1056828838 c5f61e6393ba7a0abcc9f662898015ad"
            "b094dac5d93471bdec1a502270e3cc6c"
        ),
        f"{_GCM} 15",
        nonce=_GCM_IV,
    ),
    Vector(
        "aes-256-gcm",
        "aead",
        _GCM_K + _GCM_K,
        _GCM_P[:60],
        _h(
            "522dc1f099567d07f47f37a32a84427d 643a8cdcbfe5c0c97598a2bd2555d1aa"
            "8cb08e48590dbb3da7b08b1056828838 c5f61e6393ba7a0abcc9f662"
            "76fc6ece0f4e1768cddf8853bb2d551b"
        ),
        f"{_GCM} 16",
        nonce=_GCM_IV,
        ad=_GCM_A,
    ),
    # -- DES-CBC: FIPS 81 Appendix C ("Now is the time for all ") -----------------------
    Vector(
        "des-cbc",
        "cbc",
        _h("0123456789abcdef"),
        b"Now is the time for all ",
        _h("e5c7cdde872bf27c 43e934008c389c0f 683788499a7c05f6"),
        "FIPS 81 (1980) Appendix C, CBC example",
        nonce=_h("1234567890abcdef"),
    ),
    # -- 3DES-CBC: NIST CAVP TDES Multi-block Message Test, 3 keys ----------------------
    Vector(
        "3des-cbc",
        "cbc",
        _h("9b162a0df8ad9b61 c88676e3d5864345 70b902f12a2046e0"),
        _h(
            "f4c1c918e77355c8156f0fd778da52bff121ae5f2f44eaf4d2754946d0e10d1f"
            "18ce3a0176e69c18b7d20b6e0d0bee5eb5edfe4bd60e4d92adcd86bce72e76f9"
            "4ee5cbcaa8b01cfddcea2ade575e66ac"
        ),
        _h(
            "1ff3c8709f403a8eff291aedf50c010df5c5ff64a8b205f1fce68564798897a3"
            "90db16ee0d053856b75898009731da290fcc119dad987277aacef694872e880c"
            "4bb41471063fae05c89f25e4bd0cad6a"
        ),
        "NIST CAVP tdesmmt.zip TCBCMMT3.rsp [ENCRYPT] COUNT = 9 (SP 800-20 MMT, 3-key TCBC)",
        nonce=_h("ebd6fefe029ad54b"),
    ),
    # -- RC4: RFC 6229 §2, 256-bit keys, keystream offsets 0-31 -------------------------
    Vector(
        "rc4",
        "stream",
        _h("0102030405060708090a0b0c0d0e0f10"),
        bytes(32),
        _h("eaa6bd25880bf93d3f5d1e4ca2611d91 cfa45c9f7e714b54bdfa80027cb14380"),
        "RFC 6229 §2, key 0x0102..20 (256 bits), DEC 0 and 16",
        nonce=_h("1112131415161718191a1b1c1d1e1f20"),
    ),
    Vector(
        "rc4",
        "stream",
        _h("1ada31d5cf688221c109163908ebe51d"),
        bytes(32),
        _h("dd5bcb0018e922d494759d7c395d02d3 c8446f8f77abf737685353eb89a1c9eb"),
        "RFC 6229 §2, key 0x1ada31d5..2a (256 bits), DEC 0 and 16",
        nonce=_h("ebb46227c6cc8b37641910833222772a"),
    ),
    # -- ChaCha20-Poly1305: RFC 8439 §2.8.2 ---------------------------------------------
    Vector(
        "chacha20-poly1305",
        "aead",
        _h("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"),
        b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip for "
        b"the future, sunscreen would be it.",
        _h(
            "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6"
            "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36"
            "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
            "3ff4def08e4b7a9de576d26586cec64b6116"
            "1ae10b594f09e26a7e902ecbd0600691"
        ),
        "RFC 8439 §2.8.2, AEAD_CHACHA20_POLY1305 example",
        nonce=_h("070000004041424344454647"),
        ad=_h("50515253c0c1c2c3c4c5c6c7"),
    ),
    # -- HMAC-SHA256: RFC 4231 §4.2-4.5, 4.7, 4.8 (4.6 truncates the output) --------------
    Vector(
        "hmac-sha256",
        "mac",
        b"\x0b" * 20,
        b"Hi There",
        _h("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        "RFC 4231 §4.2, Test Case 1",
    ),
    Vector(
        "hmac-sha256",
        "mac",
        b"Jefe",
        b"what do ya want for nothing?",
        _h("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        "RFC 4231 §4.3, Test Case 2",
    ),
    Vector(
        "hmac-sha256",
        "mac",
        b"\xaa" * 20,
        b"\xdd" * 50,
        _h("773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        "RFC 4231 §4.4, Test Case 3",
    ),
    Vector(
        "hmac-sha256",
        "mac",
        bytes(range(1, 26)),
        b"\xcd" * 50,
        _h("82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        "RFC 4231 §4.5, Test Case 4",
    ),
    Vector(
        "hmac-sha256",
        "mac",
        b"\xaa" * 131,
        b"Test Using Larger Than Block-Size Key - Hash Key First",
        _h("60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        "RFC 4231 §4.7, Test Case 6",
    ),
    Vector(
        "hmac-sha256",
        "mac",
        b"\xaa" * 131,
        b"This is a test using a larger than block-size key and a larger than block-size "
        b"data. The key needs to be hashed before being used by the HMAC algorithm.",
        _h("9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
        "RFC 4231 §4.8, Test Case 7",
    ),
    # -- Ed25519: RFC 8032 §7.1 TEST 1-3 --------------------------------------------------
    Vector(
        "ed25519",
        "sign",
        _h("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"),
        b"",
        _h(
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
            "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        ),
        f"{_RFC8032} TEST 1",
    ),
    Vector(
        "ed25519",
        "sign",
        _h("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb"),
        _h("72"),
        _h(
            "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
            "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
        ),
        f"{_RFC8032} TEST 2",
    ),
    Vector(
        "ed25519",
        "sign",
        _h("c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7"),
        _h("af82"),
        _h(
            "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac"
            "18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"
        ),
        f"{_RFC8032} TEST 3",
    ),
    # -- ECDSA P-256 / SHA-256, deterministic: RFC 6979 A.2.5 -----------------------------
    Vector(
        "ecdsa-p256",
        "sign",
        _RFC6979_X,
        b"sample",
        _h(
            "EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716"
            "F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8"
        ),
        'RFC 6979 A.2.5, P-256, SHA-256, message "sample"',
    ),
    Vector(
        "ecdsa-p256",
        "sign",
        _RFC6979_X,
        b"test",
        _h(
            "F1ABB023518351CD71D881567B1EA663ED3EFCF6C5132B354F28D3B0B7D38367"
            "019F4113742A2B14BD25926B49C649155F267E60D3814B4C0CC84250E46F0083"
        ),
        'RFC 6979 A.2.5, P-256, SHA-256, message "test"',
    ),
    # -- RSA / SHA-256: published signatures that must verify ----------------------------
    Vector(
        "rsa-2048-pkcs1v15",
        "verify",
        _WYCHEPROOF_RSA_2048_DER,
        b"",
        _h(
            "840f5dac53106dd1f9c57219224cf51289290c42f20466875ba8e830ac5690e5"
            "41536fcc8ab03b731f82bf66d83f194e7e180b3963ec7a2f3f7904a7ce49aed4"
            "7da4d4b79421eaf937d301b3e696169297b797c32c076a12be4de0b58e003c51"
            "23051a84a10c62f8dac2f42a8640008eb3c7cccd6760ff5b51b68976392258284"
            "5f048fb8150e5a7a6ca2eccc7bdc85349ad5b26c52137a79fa3fe5c29ab5cd76"
            "15013219c1941b6708e9c3c23feff5febaf0c8ebca5750b54e3e6e99a3e876b3"
            "96f27860b7f3ec4e9191703c6332d944f6f69751167680c79c4f6b57f1cc8755"
            "d24b6ec158ccdbacdb23107a33cb6b332516c13274d1f9dccc21dced869e486"
        ),
        f"{_WYCHEPROOF}rsa_signature_2048_sha256_test.json tcId 1",
    ),
    Vector(
        "rsa-2048-pkcs1v15",
        "verify",
        _WYCHEPROOF_RSA_2048_DER,
        b"Test",
        _h(
            "264491e844c119f14e425c03282139a558dcdaeb82a4628173cd407fd319f907"
            "6eaebc0dd87a1c22e4d17839096886d58a9d5b7f7aeb63efec56c45ac7bead42"
            "03b6886e1faa90e028ec0ae094d46bf3f97efdd19045cfbc25a1abda2432639f"
            "9876405c0d68f8edbf047c12a454f7681d5d5a2b54bd3723d193dbad4338baad"
            "753264006e2d08931c4b8bb79aa1c9cad10eb6605f87c5831f6e2b08e002f9c6"
            "f21141f5841d92727dd3e1d99c36bc560da3c9067df99fcaf818941f72588be3"
            "3032bad22caf6704223bb114d575b6d02d9d222b580005d930e8f40cce9f672e"
            "ebb634a20177d84351627964b83f2053d736a84ab1a005f63bd5ba943de6205c"
        ),
        f"{_WYCHEPROOF}rsa_signature_2048_sha256_test.json tcId 3",
    ),
    Vector(
        "rsa-2048-pss",
        "verify",
        _WYCHEPROOF_RSA_2048_DER,
        b"",
        _h(
            "4f01e0c12b08625ecac89a69231906edf826380f37c959a96690d046316d68ff"
            "ce9d5c471694fcebfc6b45534864689256e4fc81c78e583f675d0c94b4496474"
            "51e81beff01a11a516d5e5ce3f1a910437cb8a3a5096b19fb15f4524a35b23d8"
            "9cdba12cf5b71aac1047b28c562df7c5542c34ce23a182cf7e0e231934b17294"
            "799d44877a1d68ef1b8f073619b7618e6b7c22db20030d98cf591ffc3d4da5f5"
            "8613ecd5ecfc3b40a1d02f40891ca43695cd4c088b05a8054c89c595a47e2748"
            "16f35384226f74459ee63e25a1bfc03c360490552ec38343f8ace502f065303b"
            "00bc0ec320711b211fde92e57feb9013c3609342495ec0d7cabdec21e54acc38"
        ),
        f"{_WYCHEPROOF}rsa_pss_2048_sha256_mgf1_32_test.json tcId 1",
    ),
    Vector(
        "rsa-2048-pss",
        "verify",
        _WYCHEPROOF_RSA_2048_DER,
        b"Test",
        _h(
            "401eb03cdb47ca88033e3030f6bdecbac8f5c8fc1dd6a13d23d379ed9a2b3098"
            "91d13d74fea9d21d159b9e6d8f37efa2489962e24555f56dd434ff1d31ce4f9f"
            "5abd3f22cbea8b691d6a11e44efb83e2bca155e6a164325e0fde2a8865afd5c9"
            "f51161a9d615f62af7ec2e31b3e5ab649c164490d31d88cfae35b84aea792569"
            "0f929a144b6d2f48e8fb894a52deecd1b9a6496990c4ecf1588699a42cacd10c"
            "53af350514e4291ea9a058e77f101e32c1c0cefa61d945f7bc931f8bd19e7ba3"
            "169358a60e5a8b0123bc3199b9fdcafe8e519c41ba675491a27b85e44ef2d772"
            "77c10fe107293c8290186913bc9a99b640d8da041b64f31eab1d35920985f4a5"
        ),
        f"{_WYCHEPROOF}rsa_pss_2048_sha256_mgf1_32_test.json tcId 3",
    ),
    # -- RSA-3072 / SHA-256: the same files' 3072-bit key ---------------------------------
    Vector(
        "rsa-3072-pkcs1v15",
        "verify",
        _WYCHEPROOF_RSA_3072_DER,
        b"",
        _h(
            "157ffb942b1363b5989ec4beb93fb0187ef016de4ce055620825d13c3dafd4ff"
            "f621c71920e884ba28c5e98b328baac29ad4bfc4d2cae2f0ecb9d1b6c9fbdfc3"
            "85aa565aaf6c5b3150e085e0316e21d7d440a873074e5d2700d961114ed42047"
            "8647a4769d832691f7a004d934a89dc249c9343341902d5d0c3d1a6230012656"
            "34216beacd5f756821f21c3b58111790657690918a2eafa9e85ab1ee44edd3d8"
            "bb89e892acf411ba9eaaeef88eca37dffbda72751c117364fd1b38c840d7b423"
            "18fcd011a4449aeffc2de32836d3a4f704d4c8ad4e078315d0d1758f098f2ea7"
            "49ccce62aac592ac4041b5e733ba0431b88332a39a2af7f68f9bb1f469a793b2"
            "80b964f285ce5cd1ff3adcd7dbd464a7c9414ed45791073f08415be2dd9f01dc"
            "2fec8c3a26fe97d9778e2b2fccf71a1ea5e9ce017d2d46778d7e37bb832ebd58"
            "25b3257a7852db5cb6c132bcf9ba3522a670b0e866585444ed3601fd32a92281"
            "8ef6611626eee3ea99cfcfeeaa4c370567cc65e0479bd35e091b772d7445cade"
        ),
        f"{_WYCHEPROOF}rsa_signature_3072_sha256_test.json tcId 1",
    ),
    Vector(
        "rsa-3072-pkcs1v15",
        "verify",
        _WYCHEPROOF_RSA_3072_DER,
        b"Test",
        _h(
            "5819a699691c01a7f35f0bb1831a1cb65631ef693f7c9ef89f1e8460ee2ec312"
            "f6fd38fe382b3bf4db8f5d208146c32c5ed2d3b13105743767a73529bfddb575"
            "3c8cc13148d41db97f69ea1dee0ef1e1de990ff565f633bd3cfd315a7dafc70a"
            "a7f27d4f6486a2f1e2711e7919c5c73c518069338c0ac984d75f58b00fb0eee0"
            "f7da6c9c84d97955137417df8f20c02b7893b5cd929ba37f6b3278a1bd35748e"
            "14086c5f7100abf2edebeab5f767bb83d999a61cc27531bb67e44a92004fba99"
            "44b9c5f770bc66671d2efc74e01fbbd2885c5175a1fd72b91937c324b8d99d35"
            "92bfb73efb9641b87949266de441b61d180e141de510ae0cdefc2160df918c08"
            "c53799f050ca4eeb3a8b6b5ed35b8b59d3acd13a600a8a137eb1b8c1abbf55f3"
            "e99cf52d7092d1e3acc08583b04aa25a052668bc982abf060ffb17c1782daf76"
            "fbd69e7fc9510c5c6a68bd525719be5b81d0f2a8b961f1aeac7dc13aeeeef998"
            "6c7a47b34f8b96167d79f7ec458fef7345c1c31bba599d09b3fe33e738bc7da1"
        ),
        f"{_WYCHEPROOF}rsa_signature_3072_sha256_test.json tcId 3",
    ),
    Vector(
        "rsa-3072-pss",
        "verify",
        _WYCHEPROOF_RSA_3072_DER,
        b"",
        _h(
            "b520065682633ba54c9b713b2ef19cdc1fcf275ba1744c2350da7307a20971cc"
            "30eefa37d1667d23d20001a674f0e00df4f9b9e1d5fe7eb85cc45cab5dd62575"
            "9de83017995c93d48b126df03aa74ef87daea0c1652dd370ad5d663598a383ca"
            "c217a208b22c7cf0e448cc7ae0555f892ccb8ded6894cfb0c328cb542be0485d"
            "860ca77203081f3b04c6f55c5689b1a66b1c24819a4a7ea55f32e00f61accf4b"
            "411bb320a96c990173b63ccd74e7da7df5ceaf33a39a8acb89a845a594b164ec"
            "6e22cce940eb06f2d487a8bc4574451878c2bbf57d241f76586e0703bf5f86be"
            "e832d05b75fabaed6accadfc1ec2cd6e619dbb29b65d6e6f5e118ad52d82a955"
            "d21005ecd63fb382f32bb8e2e1e57220b345cd6422bdd84a91495d0ab5775b08"
            "139edee960dab1b4ffd9ea5b27398b58e6e35211c3581501e99bf5e3f17fd793"
            "81528d28a4927e28082f45bfa9519f98ea663dc84c50317adf0bd5da98b01459"
            "011cec61800534dd5afc5a567c19e4a400f06dee74112083b5322615c144ce3b"
        ),
        f"{_WYCHEPROOF}rsa_pss_3072_sha256_mgf1_32_test.json tcId 1",
    ),
    Vector(
        "rsa-3072-pss",
        "verify",
        _WYCHEPROOF_RSA_3072_DER,
        b"Test",
        _h(
            "22915cfa1d7dd30f50b4c0e4cee42c5f0aa1b7a6644f8a11e611b2db042b122a"
            "f8211ffc1dc220b435d8919cf64d715b54ff8a762f702b365cbdab455509b97d"
            "9b310011467d4186647b957e2efa404aed3b84840529bdef7746348385a1c6a2"
            "ecdb88d1cc2b40b36c346386739c39d2815938e463a35348426f17d32d633b87"
            "3d6124d8b49a726743af7c0e56d63394155b63089c63ed8897f8af2a2260d334"
            "99afab11c911faa754ced5acdac2de571f39c2768716e4308244a99d1e65da70"
            "61d2feb8ec8b4e517bd5e19cac626698479ab2019257cf83ad7b641db2345b38"
            "006d63f84b41772b90037778389cc30ed6aba6af212d9326792af746d7bca921"
            "1fa344fdc2798a490aed3a2840620c2a85e3d9b9c38f2330072663e16dd26bc4"
            "14c7d68f6b11d2cd3e0387c1834c5e2262a9e2dc1bf7c0108b4e2052566c7a94"
            "1ef6b38c8687fd7abe6add2b745c2c2d680ae3e5646ce2e717ef9899c7f3fb1e"
            "3088e8c0587d86546f752771819595a7a3d422820ceaa12e3ee671a456dac673"
        ),
        f"{_WYCHEPROOF}rsa_pss_3072_sha256_mgf1_32_test.json tcId 3",
    ),
    # -- RSA-4096 / SHA-256: the same files' 4096-bit key ---------------------------------
    Vector(
        "rsa-4096-pkcs1v15",
        "verify",
        _WYCHEPROOF_RSA_4096_DER,
        b"",
        _h(
            "368105195f0dc82c2cd37e8edc6ddc0c983dc13ddcf6f9db9a24b52921e52803"
            "19a1bcf797f774066d643e5c99b811f0ad9df2a3f430f4848a03ddb97e06daa4"
            "d01ddd50bf2b638935cd26b19d6ffccba884a4e7cba35830c6cc5ccce38bc0fc"
            "c4ea421347e241711a551c67923b3daaf2e9c51635d416cc2393a9a4f108f84f"
            "26990c11dbaacea75e39dc6082b539cd2c0c8dda6c78cbad12e14a352b9dd5c9"
            "2a3702d8538fcce0e92e26489ea83d75c174ab671210fbc6c397be2167864b51"
            "9b5136d23a4363ef773ebc140e1da4b0a788d7b1f15a300375ee42b27261675f"
            "dfc60c29bab7022dc2e624c7d1f31e278ac089c5880e701bec41f63c8f897c0c"
            "ecc5eff0a801dbc58d7d4df6e860c20e61f31d9ab2d50e8fbec7471070d8ed06"
            "c4c9c725cb63afde0cc4475d3dcb7dcad7eabd874ddf7294cd9d2a66b13b6367"
            "a14dfe3827da0c6c8b9e734deece80fd79609ce5ce0a16de6610fd04a09b0b24"
            "11bae2bc3222ab4c02867838d0c8346c60589e6204b226efb401841fb95da05f"
            "f32989ef935425b943d1b5d2f8af5113491a36c60a98c90b6453144f5fe00a0d"
            "f3de8d02f0f59c7b94ddc7c8895b1dff8d88f69a9a2cfbb55eda083780095060"
            "1fc9e230a5514c9674fb576df8391c51ba0febc29c267462ed5337326b6f40d2"
            "43ad7d81459ecabbd00126b2142e6ba10d9f903a9918d2280c63ee84b47062e1"
        ),
        f"{_WYCHEPROOF}rsa_signature_4096_sha256_test.json tcId 1",
    ),
    Vector(
        "rsa-4096-pkcs1v15",
        "verify",
        _WYCHEPROOF_RSA_4096_DER,
        b"Test",
        _h(
            "43929c2fb0986fc4570a3ee7f6701b96a78ec9297a997415a142ae539031c0e1"
            "96add5e4c6ec572de0a2b109cf23a42567ebe98f42cf312d07538e4a32b0f204"
            "03b662c652ba9e3d6e38a625d6b5e91cce5c810d7a02262338e144a57db4ac4d"
            "ebfc536e8eaca7fe08022a2f64741d66d25e3010f2fd259d4c6b00582584bbbd"
            "cde4266d86eddfd0443ff24b06cf7ade6d733c637a48a398dbb28355ffb9bd21"
            "a49de6b345ef635b68d917b5bfcb9016f7c64c444dc0036ecab8f59b0d29098f"
            "acca02335df44db87d30d02f08553ffd0379b33d13d09a385cae7d63b6db52e9"
            "b1eb8fd549e0e1e18210de1d3e9527547e5c72f816eb36288b09d96db772f955"
            "ca46fc8cbdb6eea93c841e1075c00c3c45e9442d28095136cc5ce8212ed8c60c"
            "9668898ab5d64734d4d0f2311f104cf8a732e6d88fb2064cb57bd54d3cdef7c1"
            "1c840ecb238466c747289233a317b73785778ff4349949da47c9b4b2dc9f89bd"
            "1fe7e98b582500dfc05dba3fa410cca66acd854669940543c22ed1038eac7f02"
            "12b9ce4aedba0eb15ea1e75a73c45c1ae03fd241662e9cb89b051939c468db3a"
            "0adab822617b5bc669d1e0226cf6b475445d9d5e77ef54ed646cd81f0952b949"
            "b7f4f37381ba6427e060966467a76e1d9261a5fe8c68398a89eb5025cc393398"
            "85b6c33dde898a159f0af4acc81461fae37f5f4c61de4a888dc4f6b1e2b7336f"
        ),
        f"{_WYCHEPROOF}rsa_signature_4096_sha256_test.json tcId 3",
    ),
    Vector(
        "rsa-4096-pss",
        "verify",
        _WYCHEPROOF_RSA_4096_DER,
        b"",
        _h(
            "492e60b828a9847501c7ff46a4a304ee7bf61ae87dd88cd5598c76289a70ab3a"
            "fb7fa9efa3228a1e826241c13c2e120d22cd3a38a9b9ec5826a9711bdb119748"
            "e0f7080ccf917e8cb53f6f21ed19f4ffad9efd94c66e329226a811eef928816b"
            "5edb3b10d1f483b64bcad9b055dc78e99491560f59a598001e76a0bff0ddad4e"
            "bfd565495e2b523b02dc80050b64db4a200b5ca9efd8a1339d6cdff6a82dcbf7"
            "69d3b0ed7ae53ea8f1788eb025e186a5eac02e3e1fb1f0aeec29b2929c7a718c"
            "32159609f973109d4a876bcecdeee6c6418df27fa46eb5cd238e274f94ab571c"
            "968b2c4a838cd812aa90e4657b95c0ccd68d60bd7d33b6e291a6a13f68e046cd"
            "41ecfc2bbe35fa9b4a0c17d89a708f89f975bf5a5eb9abc812b0c498d93d2d16"
            "1f5c7969afbcf798029f3c14efc3f7c265b93fda572d265e9e116ffa9416e111"
            "aad32072f61943e9f0754f6e116ab5119ed09bbe245022b6e8bfe35dcee4a53e"
            "d375f5451c43f38f6eb55b48e386030cfb76c408c81f606886c81aacc76a9997"
            "35682413069cc016f6e390ea2df7e8e74d088fb0643aebf4899ee8177a4a5fae"
            "a3889181612ffdffcdb3fc699d578eba383e23e1beb68824c0bc7f920afbbea8"
            "ce7bf2b7c3bb40f33c6b7c8fb6cf73e6e2f3679669f235ddfebeeafa87291858"
            "1d99c84d6dc37ff85949449d3994982d332cb9f9b8aca691651c4b63e58f6b38"
        ),
        f"{_WYCHEPROOF}rsa_pss_4096_sha256_mgf1_32_test.json tcId 1",
    ),
    Vector(
        "rsa-4096-pss",
        "verify",
        _WYCHEPROOF_RSA_4096_DER,
        b"Test",
        _h(
            "2b981b661e1e244b67e1892bdab545edc9ef68b50b4572a536dd4a40f3119564"
            "8b8180454faa8765ba19b7ac6a59176c1a2c621e6f4131af96beb4ea47252d76"
            "17b9d8b432b5cd900f7b328b0013364a520ce46ae66a63b7181ab60b514839ec"
            "8f6bb63ec2f83a2a142d8ce532f63ebdd3f29ce26797f46f68481818ff1e00c4"
            "7df1e7e8d809737307a63902c94d9c2ee5c69f1fa0602eeedab4d7f6d0032de1"
            "a8294c117ad2aa34f1175544f2bc1d466c5965ae5796bae216cee8bf7b91f974"
            "6a97749cce0388f8f443d14317e825cba2ea278045826835dfab50091cc988fc"
            "12d4913920cd625ac321df4d89175ba3f49f89d372318bc222643ab888246f8e"
            "5ad64f227be043bec3828cea0bc0229be6e71a035dca97bfe0c2f34ce03c1ee9"
            "d084d19a6d6c301168129a6589cee1119cee84e35b561d1f658b2e4f16c2b4ac"
            "2ded8ed5757ebec2d5ed59c66f7bd932d64c58af7fc16af4d3f6bc42897114c9"
            "ec537f8b7ea86752a2a26133a7b8085f4d438ba643f7a389a1c6811c2ee4eda4"
            "8060d27e6299b44c8d504d280ca56ca49c246b5c4c897d3e1d352e047f735cb7"
            "e30ce87061ef267bd9c50e7de77032a162ac9a026e684bb4d0e8131a90240494"
            "418fbe471c9900a6b322306e47915f83cdd8e525566e8a71dfc869ee5c7e74d3"
            "3ac8646d7c170ff82f2f3e5d319dc61cad06235145c031d03cd420fc370adb3e"
        ),
        f"{_WYCHEPROOF}rsa_pss_4096_sha256_mgf1_32_test.json tcId 3",
    ),
)
