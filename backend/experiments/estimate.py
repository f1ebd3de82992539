"""How long a run will take, before anything is created (the design page's estimate).

An estimate, not a measurement: it adds what the design asks for (messages x their gap and
round trip, bytes / a mechanism's speed, windows) to a fixed cost per run. Speeds are round
figures of this project's reference host (docs/benchmarks.md, an x86-64 VM); a Raspberry
Pi 3 is several times slower, which the warnings say where it matters.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from experiments.models import ExperimentKind

# Preparing (health check, dispatch, link verification) and uploading one run, seconds.
RUN_OVERHEAD_S = 5.0
# A message that gets no answer costs the runner's timeout (timeout_ms of the spec,
# experiments.services.designs).
MESSAGE_TIMEOUT_S = 5.0
# Loopback round trip of one message without a network profile.
BASE_ROUND_TRIP_S = 0.0005
# Signing and verifying per SRUP message at both ends (docs/benchmarks.md, messaging §3).
SRUP_SIGNATURE_S = {"rsa-2048": 0.0075, "rsa-4096": 0.04, "ed25519": 0.0035}
# Bytes per second of one direction of a mechanism on the reference host, by name prefix
# (first match); signatures hash the data, then sign once.
MECHANISM_BYTES_PER_S: tuple[tuple[str, float], ...] = (
    ("null", 5e9),
    ("none", 5e9),
    ("aes-", 600e6),
    ("3des", 10e6),
    ("des", 30e6),
    ("rc4", 300e6),
    ("chacha20", 500e6),
    ("hmac", 600e6),
    ("rsa-", 500e6),
    ("ecdsa", 500e6),
    ("ed25519", 500e6),
    ("ascon", 400e6),
    ("klein", 40e6),
    ("present", 80e6),
    ("", 100e6),  # the other native block ciphers (TEA, XTEA, LBlock)
)
# Per call: the harness, a signature's private-key operation, a child interpreter per batch.
CALL_OVERHEAD_S = 20e-6
SIGN_S = {"rsa-4096": 0.012, "rsa-3072": 0.005, "rsa-2048": 0.002, "ecdsa": 0.0001}
LONG_RUN_S = 3600.0
PI_SLOWDOWN = "a Raspberry Pi 3 takes roughly 5-20 times longer for the cryptography"


def _bytes_per_s(mechanism: str) -> float:
    return next(rate for prefix, rate in MECHANISM_BYTES_PER_S if mechanism.startswith(prefix))


def _sign_s(mechanism: str) -> float:
    return next((s for prefix, s in SIGN_S.items() if mechanism.startswith(prefix)), 0.0)


def profile_round_trip(spec: Mapping[str, Any]) -> tuple[float, float]:
    """(added round-trip seconds, probability a round trip is lost) of a link profile."""
    delay_s = 0.0
    delivered = 1.0
    for direction, fields in spec.items():
        if not isinstance(fields, Mapping):
            continue
        times = 2 if direction == "both" else 1
        delay_s += times * float(fields.get("delay_ms", 0.0)) / 1000
        loss = float(fields.get("loss_pct", 0.0)) / 100
        delivered *= (1 - loss) ** times
    return delay_s, 1 - delivered


def run_seconds(design: Mapping[str, Any], profile_spec: Mapping[str, Any] | None) -> float:
    """Seconds one run of the design is expected to take, overhead included."""
    kind = design.get("kind", ExperimentKind.MESSAGING)
    if kind == ExperimentKind.THROUGHPUT:
        windows = 2 * len(design["mechanisms"]) * len(design["data_sizes"])
        repetitions: int = design["repetitions"]
        window_ms: int = design["window_ms"]
        return RUN_OVERHEAD_S + windows * repetitions * window_ms / 1000
    if kind == ExperimentKind.CIPHER_BENCH:
        total = RUN_OVERHEAD_S
        for mechanism in design["mechanisms"]:
            for size in design["data_sizes"]:
                one = 2 * (size / _bytes_per_s(mechanism) + CALL_OVERHEAD_S)
                total += design["repetitions"] * (one + _sign_s(mechanism))
        return total
    delay_s, loss = profile_round_trip(profile_spec or {})
    interval_ms: int = design.get("interval_ms", 0)
    per_message = BASE_ROUND_TRIP_S + delay_s + interval_ms / 1000
    if design.get("protocol") == "srup":
        per_message += SRUP_SIGNATURE_S.get(design.get("srup_signature", ""), 0.0)
    count: int = design["message_count"]
    if design.get("measurement") == "one_way":
        # The controller sends to one device at a time, waiting the gap after each send.
        count *= max(1, len(design.get("device_ids", ())))
    return RUN_OVERHEAD_S + count * per_message + count * loss * MESSAGE_TIMEOUT_S


def warnings(designs: Sequence[Mapping[str, Any]], total_s: float) -> list[str]:
    """What a user should know before starting: long totals, huge benchmark data."""
    notes: list[str] = []
    if total_s >= LONG_RUN_S:
        notes.append(
            f"This design runs for about {duration_words(total_s)} on the reference host; "
            "its runs hold their devices until they finish."
        )
    biggest = max(
        (
            size
            for d in designs
            if d.get("kind") == ExperimentKind.CIPHER_BENCH
            for size in d["data_sizes"]
        ),
        default=0,
    )
    files = [
        size
        for d in designs
        if d.get("kind") == ExperimentKind.CIPHER_BENCH and d.get("crypto_library") == "openssl-cli"
        for size in d["data_sizes"]
    ]
    if files and max(files) >= 100_000_000:
        notes.append(
            f"Files of up to {max(files) / 1e6:,.0f} MB: openssl enc reads and writes them, so "
            f"the device needs about {3 * max(files) / 1e9:,.1f} GB free in its temporary "
            "directory (the data, its ciphertext and the decrypted copy). The time estimate "
            f"is for the reference host; {PI_SLOWDOWN}."
        )
    elif biggest >= 100_000_000:
        notes.append(
            f"Data of up to {biggest / 1e6:,.0f} MB per repetition: the agent generates it and "
            "streams it through the cipher in 256 KiB chunks, so it needs no disk space for "
            "the data and about 25 MB of memory (the paper's openssl runs read files of that "
            f"size from disk). The time estimate is for the reference host; {PI_SLOWDOWN}."
        )
    return notes


def duration_words(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    if seconds < 172_800:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"
