"""Print a new Ed25519 private key (PKCS#8 PEM) for JOB_SIGNING_KEY."""

from Crypto.PublicKey import ECC


def generate_pem() -> str:
    return str(ECC.generate(curve="ed25519").export_key(format="PEM"))


if __name__ == "__main__":
    print(generate_pem())
