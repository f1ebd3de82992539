"""The key of one SRUP party (controller or device), loaded once per run.

SRUP signs with RSA-2048 PKCS#1 v1.5 over SHA-256 (the reference library and the SRUP
paper); ``rsa-4096`` is the same with a 4096-bit key, and ``ed25519`` is the variant
offered beside RSA: pure Ed25519 (RFC 8032) over the same signed bytes, whose hashing
(SHA-512) is part of the scheme, 64-byte signatures.

The signing and verifying objects are the payload-security mechanisms of
``security/mechanisms.py`` (``RsaSignature`` with PKCS#1 v1.5, ``Ed25519``) through their
detached ``sign``/``verify``, with the registry's key import: one implementation of each
signature in the agent, whose known-answer vectors ``iotsecbench-agent selftest`` checks.
The key is imported and the signer object built here, once; per message only the hash
and the signature or verification remain.
"""

from __future__ import annotations

from dataclasses import dataclass

from Crypto.PublicKey.ECC import EccKey
from Crypto.PublicKey.RSA import RsaKey

from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import MechanismError
from iotsecbench_agent.security.mechanisms import Ed25519, RsaSignature, Signature

RSA_2048 = "rsa-2048"
RSA_4096 = "rsa-4096"
ED25519 = "ed25519"
SIGNATURES = (RSA_2048, RSA_4096, ED25519)
DEFAULT_SIGNATURE = RSA_2048  # the reference library's and the SRUP paper's
# The security mechanism whose MechanismInfo describes each (name, key size, framing).
MECHANISMS = {RSA_2048: "rsa-2048-pkcs1v15", RSA_4096: "rsa-4096-pkcs1v15", ED25519: "ed25519"}
SIGNATURE_BYTES = {RSA_2048: 256, RSA_4096: 512, ED25519: 64}
RSA_BITS = {RSA_2048: 2048, RSA_4096: 4096}


@dataclass(frozen=True)
class PartyKey:
    """One party's key: ``signer`` signs its messages (None when only its public key is
    known), ``verifier`` holds the public key only, for the other parties."""

    signature: str
    signer: Signature | None
    verifier: Signature

    def require_signer(self, who: str) -> Signature:
        if self.signer is None:
            raise MechanismError(f"SRUP: the {who}'s key is a public key; it cannot sign")
        return self.signer


def load_key(signature: str, key: bytes | None = None, *, slot: str) -> PartyKey:
    """The key of one party for ``signature`` (one of SIGNATURES).

    ``key``: a PEM or DER key (private, or public to verify only; RSA of exactly the
    named size), or for Ed25519 also the raw 32-byte RFC 8032 secret key. Without a key, a
    generated one: for RSA the process's key of this size for ``slot`` (generated once
    and reused: RSA-4096 takes seconds), for Ed25519 a fresh one. Give each party its own
    ``slot`` so that two parties never share a generated key pair.
    MechanismError if the key is not one of these.
    """
    if signature not in MECHANISMS:
        raise MechanismError(
            f"SRUP signature {signature!r} is not supported (one of: {', '.join(SIGNATURES)})"
        )
    info = registry.describe(MECHANISMS[signature])
    if signature == ED25519:
        ecc: EccKey = registry.ecc_key(info, "Ed25519", key, None)
        return PartyKey(
            signature,
            signer=Ed25519(info, key=ecc) if ecc.has_private() else None,
            verifier=Ed25519(info, key=ecc.public_key()),
        )
    rsa: RsaKey = registry.rsa_key(info, RSA_BITS[signature], key, None, slot=slot)
    return PartyKey(
        signature,
        signer=RsaSignature(info, key=rsa, scheme="pkcs1v15") if rsa.has_private() else None,
        verifier=RsaSignature(info, key=rsa.public_key(), scheme="pkcs1v15"),
    )
