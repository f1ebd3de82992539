"""The ``openssl-cli`` crypto library of the cipher bench: the OpenSSL-on-Raspberry-Pi
paper's own method, the ``openssl enc`` command run on a data file.

Per mechanism and data size the data (the same seeded pseudo-random bytes as the in-process
libraries' batches) is written once to a file in a temporary directory; each repetition runs
``openssl enc -e`` on it to a ciphertext file and ``openssl enc -d`` on that back to a
plaintext file, which is compared with the data outside the timed commands (a difference
fails the run). One unrecorded warm-up repetition first (page cache, the binary's pages).

What a sample is, and why:

- **Wall time**: ``perf_counter_ns`` around starting the command and reaping it; it holds
  the process start (fork and exec) and OpenSSL's start-up, as the paper's ``time`` did.
- **CPU time**: user + system time of the reaped process from ``os.wait4``'s rusage.
- **Peak memory**: the command's own ``ru_maxrss``, i.e. OpenSSL's (a few MB), not the
  agent's interpreter's. Linux copies a process's pre-``exec`` high-water mark into its
  rusage (``setmax_mm_hiwater_rss`` in ``exec_mmap``), so ``openssl`` started straight
  from the agent would report at least the agent's RSS. The command is therefore started
  by GNU ``time`` (``/usr/bin/time -f %M``), a small C program whose child ``openssl`` is
  forked from it: ``%M`` is the ``ru_maxrss`` that ``time``'s ``wait4`` gives for that
  child. ``os.wait4`` on ``time`` itself gives the CPU time (``time``'s own, well under a
  millisecond, included). Without GNU time the library is refused (``check_available``).
- Ciphers: ``openssl enc`` with ``-K``/``-iv`` in hex and ``-nosalt`` (no key derivation,
  no ``Salted__`` header). CBC pads with PKCS#7 like the in-process mechanisms; CTR's IV is
  the 8-byte nonce followed by a zero 64-bit counter (the in-process layout); DES and RC4
  need OpenSSL 3's legacy provider (``-provider legacy -provider default``). RC4 is keyed
  with the 128-bit key itself (the in-process mechanism adds a per-message nonce, which
  ``openssl enc -rc4`` has no way to take), as the paper ran it.
"""

from __future__ import annotations

import filecmp
import os
import random
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Callable

from iotsecbench_contract.mechanisms import CTR_NONCE_BYTES

from iotsecbench_agent.cipherbench.child import DATA_SEED, BenchFailed
from iotsecbench_agent.cipherbench.streams import ENCRYPT_OPS, generate_key
from iotsecbench_agent.errors import RunAborted, UnsupportedJob
from iotsecbench_agent.security import registry
from iotsecbench_agent.storage.samplelog import Sample

OPENSSL_BIN = "/usr/bin/openssl"
GNU_TIME_BIN = "/usr/bin/time"
LEGACY = ("-provider", "legacy", "-provider", "default")
WRITE_CHUNK = 1 << 20
STDERR_TAIL_BYTES = 2000

# mechanism -> (openssl enc cipher, needs the legacy provider)
ENC_CIPHERS: dict[str, tuple[str, bool]] = {
    **{f"aes-{b}-cbc": (f"aes-{b}-cbc", False) for b in (128, 192, 256)},
    **{f"aes-{b}-ctr": (f"aes-{b}-ctr", False) for b in (128, 192, 256)},
    "des-cbc": ("des-cbc", True),
    "3des-cbc": ("des-ede3-cbc", False),
    "rc4": ("rc4", True),
}


def check_available() -> None:
    """UnsupportedJob unless the ``openssl`` command and GNU ``time`` are installed."""
    for path, what in ((OPENSSL_BIN, "the openssl command"), (GNU_TIME_BIN, "GNU time")):
        if not os.access(path, os.X_OK):
            raise UnsupportedJob(
                f"crypto library 'openssl-cli' needs {what} at {path}, which is not installed "
                "on this device"
            )


def command_version() -> str:
    """``OpenSSL 3.0.19 27 Jan 2026 (Library: ...)``: what ``openssl version`` prints."""
    import subprocess

    done = subprocess.run(  # noqa: S603 - fixed argv
        [OPENSSL_BIN, "version"], capture_output=True, text=True, check=False
    )
    return done.stdout.strip() or "unknown"


def enc_argv(
    mechanism: str, key: bytes, iv: bytes, decrypt: bool, src: Path, dst: Path
) -> list[str]:
    """The ``openssl enc`` command of one direction."""
    cipher, legacy = ENC_CIPHERS[mechanism]
    argv = [OPENSSL_BIN, "enc", "-d" if decrypt else "-e", f"-{cipher}", "-nosalt"]
    argv += [*LEGACY] if legacy else []
    argv += ["-K", key.hex()]
    if iv:
        argv += ["-iv", iv.hex()]
    return [*argv, "-in", str(src), "-out", str(dst)]


def _iv(mechanism: str) -> bytes:
    if mechanism == "rc4":
        return b""
    if mechanism.endswith("-ctr"):
        return os.urandom(CTR_NONCE_BYTES) + bytes(16 - CTR_NONCE_BYTES)
    return os.urandom(registry.describe(mechanism).block_bytes)


def timed(argv: Sequence[str], workdir: Path) -> tuple[int, int, int]:
    """Run ``argv`` under GNU time; ``(wall_ns, cpu_ns, peak_rss_kb)`` of the command, or
    BenchFailed with the command's error output."""
    rss_file, err_file = workdir / "rss", workdir / "stderr"
    full = [GNU_TIME_BIN, "-f", "%M", "-o", str(rss_file), *argv]
    actions = [
        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, str(err_file), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
    ]
    start = time.perf_counter_ns()
    pid = os.posix_spawn(GNU_TIME_BIN, full, os.environ, file_actions=actions)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter_ns() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        tail = err_file.read_bytes()[-STDERR_TAIL_BYTES:].decode("utf-8", "replace").strip()
        raise BenchFailed(f"`{' '.join(argv[:4])} …` exited with {code}: {tail}")
    cpu = round((usage.ru_utime + usage.ru_stime) * 1e9)
    # GNU time writes "%M" as the last line (after "Command exited ..." on failure).
    rss = int(rss_file.read_text().split()[-1])
    return wall, cpu, rss


def write_data(path: Path, size: int) -> None:
    """``size`` bytes of the batches' seeded pseudo-random data, written in chunks."""
    rng = random.Random(DATA_SEED)  # noqa: S311 - benchmark data, not key material
    with path.open("wb") as out:
        left = size
        while left:
            n = min(left, WRITE_CHUNK)
            out.write(rng.randbytes(n))
            left -= n


def run_plan(
    mechanisms: Sequence[str],
    sizes: Sequence[int],
    repetitions: int,
    emit: Callable[[Sample], None],
    stop: threading.Event | None = None,
) -> None:
    """Measure every (mechanism, size) with ``openssl enc`` (see the module doc)."""
    check_available()
    with tempfile.TemporaryDirectory(prefix="iotsecbench-openssl-") as tmp:
        work = Path(tmp)
        for size in sizes:
            write_data(work / "data", size)
            for mechanism in mechanisms:
                _measure_cell(work, mechanism, size, repetitions, emit, stop)


def _measure_cell(
    work: Path,
    mechanism: str,
    size: int,
    repetitions: int,
    emit: Callable[[Sample], None],
    stop: threading.Event | None,
) -> None:
    """The warm-up and ``repetitions`` timed repetitions of one mechanism on the data file."""
    forward, backward = ENCRYPT_OPS
    data, cipher, plain = work / "data", work / "data.enc", work / "data.dec"
    key, iv = generate_key(mechanism), _iv(mechanism)
    enc = enc_argv(mechanism, key, iv, False, data, cipher)
    dec = enc_argv(mechanism, key, iv, True, cipher, plain)
    for rep in range(-1, repetitions):  # -1: the unrecorded warm-up
        if stop is not None and stop.is_set():
            raise RunAborted(f"stopped during {mechanism} on {size} bytes")
        f_wall, f_cpu, f_rss = timed(enc, work)
        b_wall, b_cpu, b_rss = timed(dec, work)
        if not filecmp.cmp(data, plain, shallow=False):
            raise BenchFailed(f"{mechanism} on {size} bytes: openssl enc -d gave other bytes back")
        if rep >= 0:
            emit(Sample(mechanism, forward, size, rep, f_wall, f_cpu, f_rss, calls=1))
            emit(Sample(mechanism, backward, size, rep, b_wall, b_cpu, b_rss, calls=1))
