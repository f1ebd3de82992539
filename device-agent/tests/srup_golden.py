"""The golden SRUP messages in fixtures/srup/ and their TEST-ONLY keys: what they are, and
the one command that regenerates them (never edit the .bin files or golden.json by hand):

    cd device-agent && ../.venv/bin/python tests/srup_golden.py

RSA PKCS#1 v1.5 and Ed25519 signatures are deterministic, so the same fields and keys
always give the same bytes; tests/test_srup_golden.py checks that the encoder still does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from iotsecbench_agent.srup import encode_action, encode_data, load_key
from iotsecbench_agent.srup.codec import TYPE_ACTION, TYPE_NAMES

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "srup"
KEYS = FIXTURES / "test-only-keys"
INDEX = FIXTURES / "golden.json"

# The first 64 bits of the tests' device UUID 6f1c1a52-3c1e-4a8e-9a57-1d0c2b7e9f10, as the
# runner derives it, and an arbitrary controller ID with every byte different.
DEVICE_ID = 0x6F1C1A523C1E4A8E
CONTROLLER_ID = 0x5E4D3C2B1A090807
TOKEN = b"3f2c8a4e-9b1d-4c7e-8f6a-2d5b7c9e1a03"


@dataclass(frozen=True)
class Golden:
    file: str
    signature: str  # srup.keys name
    key: str  # file under test-only-keys/, the signer's
    msg_type: int
    sequence_id: int
    sender_id: int
    token: bytes = TOKEN
    action: int | None = None
    data_id: bytes | None = None
    data: bytes | None = None

    def key_pem(self) -> bytes:
        return (KEYS / self.key).read_bytes()

    def encode(self) -> bytes:
        signer = load_key(self.signature, self.key_pem(), slot="golden").require_signer("golden")
        if self.msg_type == TYPE_ACTION:
            assert self.action is not None
            return encode_action(
                sequence_id=self.sequence_id,
                sender_id=self.sender_id,
                token=self.token,
                action=self.action,
                sign=signer.sign,
            )
        assert self.data_id is not None
        assert self.data is not None
        return encode_data(
            sequence_id=self.sequence_id,
            sender_id=self.sender_id,
            token=self.token,
            data_id=self.data_id,
            data=self.data,
            sign=signer.sign,
        )

    def describe(self, wire: bytes) -> dict[str, object]:
        entry: dict[str, object] = {
            "file": self.file,
            "type": TYPE_NAMES[self.msg_type],
            "signature": self.signature,
            "signed_by": f"test-only-keys/{self.key}",
            "sequence_id": self.sequence_id,
            "sender_id": f"{self.sender_id:016x}",
            "token": self.token.decode("ascii"),
            "length": len(wire),
        }
        if self.action is not None:
            entry["action"] = f"{self.action:02x}"
        if self.data_id is not None and self.data is not None:
            entry["data_id"] = self.data_id.decode("ascii")
            entry["data"] = self.data.hex()
        return entry


# A controller's request with the SRUP paper's "LED on" action, a data request carrying a
# 16-byte round-trip payload (seq 0, then filler), and the same data request in the
# Ed25519 variant.
GOLDEN = (
    Golden(
        file="action-rsa-2048.bin",
        signature="rsa-2048",
        key="controller-rsa-2048.pem",
        msg_type=TYPE_ACTION,
        sequence_id=1,
        sender_id=CONTROLLER_ID,
        action=0xFF,
    ),
    Golden(
        file="data-rsa-2048.bin",
        signature="rsa-2048",
        key="controller-rsa-2048.pem",
        msg_type=0x05,
        sequence_id=2,
        sender_id=CONTROLLER_ID,
        data_id=b"data",
        data=bytes(8) + b"\xa5" * 8,
    ),
    Golden(
        file="data-ed25519.bin",
        signature="ed25519",
        key="controller-ed25519.pem",
        msg_type=0x05,
        sequence_id=2,
        sender_id=CONTROLLER_ID,
        data_id=b"data",
        data=bytes(8) + b"\xa5" * 8,
    ),
)


def main() -> None:
    index = []
    for golden in GOLDEN:
        wire = golden.encode()
        (FIXTURES / golden.file).write_bytes(wire)
        index.append(golden.describe(wire))
    INDEX.write_text(json.dumps(index, indent=2) + "\n")
    print(f"wrote {len(GOLDEN)} messages and {INDEX.name} to {FIXTURES}")


if __name__ == "__main__":
    main()
