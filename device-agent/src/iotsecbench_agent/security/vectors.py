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
    # -- RSA-2048 / SHA-256: published signatures that must verify ------------------------
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
)
