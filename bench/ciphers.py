"""Ciphers: the device agent's cipher-bench against OpenSSL, its harness overhead, and the
native lightweight ciphers in cycles per byte.

    make bench                         # bench/ingest.py, then this
    .venv/bin/python bench/ciphers.py [--quick]

Measures, in one run so the ratios are comparable on a shared, noisy machine:
  1. agent / OpenSSL: the agent's own engine (``iotsecbench_agent.cipherbench.engine``: one child
     process per batch, the registry's mechanisms, pycryptodome) for AES-128/256-CBC and
     3DES-CBC on 8 KiB and RSA-2048 / Ed25519 sign and verify on 64 bytes, each followed at
     once by ``openssl speed -elapsed`` for the same operation. The ratio is the figure:
     what the Python harness and pycryptodome cost against the native limit.
  2. harness overhead: the mean time per repetition that cipher-bench reports, against a
     bare loop making the same pycryptodome calls the same way (one long-lived CBC object
     per direction, random IV, PKCS#7 and first-block whitening per message, the frame and
     padding checks on the way back, as ``ChainedCbc``; one ``eddsa`` scheme object for
     Ed25519). Three steps in between split the difference: the registry's mechanism in
     the same loop, the child's timing code (``oneshot_block``) run in this process, and
     the agent's child process alone with its samples going to a file instead of the live
     pipe to the parent. Several interleaved rounds; the median round is reported.
  3. cycles/byte of the native lightweight ciphers (``device-agent/native/bench_cpb.py
     --json``, run as it is) next to the designers' published software figures, which were
     measured on other processors: side by side, no ratios.
Prints Markdown tables for docs/benchmarks.md. 150-250 s on the development VMs;
``--quick`` about 35 s.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import itertools
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import Crypto
from Crypto.Cipher import AES
from Crypto.Signature import eddsa
from iotsecbench_agent.cipherbench.child import (
    Batch,
    block_repetitions,
    calls_per_repetition,
    oneshot_block,
)
from iotsecbench_agent.cipherbench.engine import (
    CHILD_CODE,
    CHUNK_BYTES,
    BenchPlan,
    Summary,
    run_plan,
    summarize,
)
from iotsecbench_agent.cipherbench.streams import generate_key
from iotsecbench_agent.security import registry
from iotsecbench_agent.storage.samplelog import Sample

REPO_DIR = Path(__file__).resolve().parent.parent
BENCH_CPB = REPO_DIR / "device-agent" / "native" / "bench_cpb.py"
OPENSSL = "/usr/bin/openssl"
KIB8 = 8192
SIGNED_BYTES = 64


@dataclass(frozen=True)
class Settings:
    vs_rounds: int  # part 1: agent batch, then openssl, this many times per operation
    symmetric_reps: int  # part 1, per 8 KiB batch
    signature_reps: int  # part 1, per signature batch
    openssl_seconds: int
    rounds: int  # part 2
    small_reps: int  # part 2, AES batches
    ed25519_reps: int  # part 2, Ed25519 batches
    cpb_calls: int  # part 3, bench_cpb.py --calls
    cpb_batches: int  # part 3, bench_cpb.py --batches


FULL = Settings(3, 1000, 500, 2, 15, 5000, 600, 200, 7)
QUICK = Settings(1, 200, 100, 1, 3, 1000, 150, 60, 3)


# -- part 1: the agent's cipher-bench against openssl speed ----------------------------------


@dataclass(frozen=True)
class Row:
    operation: str
    agent: float | None
    openssl: float | None
    unit: str
    note: str = ""


def agent_batch(mechanism: str, size: int, repetitions: int) -> dict[str, Summary]:
    """The agent's engine on one (mechanism, size): its summaries by operation."""
    samples: list[Sample] = []
    run_plan(BenchPlan.of([mechanism], [size], repetitions), emit=samples.append)
    return {s.operation: s for s in summarize(samples)}


def openssl_speed(args: Sequence[str]) -> tuple[str, str]:
    """``openssl speed ARGS``: (stdout, "") or ("", why it gave nothing)."""
    try:
        done = subprocess.run(
            [OPENSSL, "speed", *args], capture_output=True, text=True, timeout=120, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return "", f"{OPENSSL} could not run: {exc}"
    if done.returncode != 0:
        return "", f"exit status {done.returncode}: {reason(done.stderr)}"
    return done.stdout, f"no figure in its output ({reason(done.stderr)})"


def reason(stderr: str) -> str:
    """openssl's own sentence (``speed: x is an unknown cipher or digest``), not the
    hexadecimal error-queue lines after it."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    plain = [line for line in lines if ":error:" not in line]
    return (plain or lines or ["no message"])[0]


def parse_cipher_bytes_per_s(stdout: str) -> float | None:
    """The one figure of ``openssl speed -bytes N -evp NAME``: the line after the ``type``
    header, whose last column is in 1000s of bytes per second (``1914273.79k``)."""
    after_header = False
    for line in stdout.splitlines():
        tokens = line.split()
        if tokens and tokens[0] == "type":
            after_header = True
            continue
        if after_header and len(tokens) >= 2 and tokens[-1].endswith("k"):
            try:
                return float(tokens[-1][:-1]) * 1000.0
            except ValueError:
                continue
    return None


def parse_pkey_rates(stdout: str) -> dict[str, float]:
    """``sign/s``, ``verify/s`` (and whatever other ``…/s`` columns this OpenSSL version
    prints) from the header line naming them and the first data line under it; the data
    line's last columns align with the header's columns."""
    lines = stdout.splitlines()
    for index, line in enumerate(lines):
        header = line.split()
        if "sign/s" not in header or "verify/s" not in header:
            continue
        for data in lines[index + 1 :]:
            tokens = data.split()
            if len(tokens) <= len(header):
                continue
            values = tokens[-len(header) :]
            try:
                pairs = zip(header, values, strict=True)
                return {name: float(value) for name, value in pairs if name.endswith("/s")}
            except ValueError:
                return {}
    return {}


def symmetric_rows(mechanism: str, evp: str, label: str, s: Settings) -> list[Row]:
    summaries = agent_batch(mechanism, KIB8, s.symmetric_reps)
    rows = []
    for operation, extra in (("encrypt", []), ("decrypt", ["-decrypt"])):
        args = ["-elapsed", "-seconds", str(s.openssl_seconds), "-bytes", str(KIB8), *extra]
        stdout, why = openssl_speed([*args, "-evp", evp])
        rate = parse_cipher_bytes_per_s(stdout)
        rows.append(
            Row(
                f"{label} {operation}, 8 KiB",
                summaries[operation].throughput_mb_s,
                rate / 1e6 if rate is not None else None,
                "MB/s",
                "" if rate is not None else f"openssl: {why}",
            )
        )
    return rows


def signature_rows(mechanism: str, algorithm: str, label: str, s: Settings) -> list[Row]:
    summaries = agent_batch(mechanism, SIGNED_BYTES, s.signature_reps)
    stdout, why = openssl_speed(["-elapsed", "-seconds", str(s.openssl_seconds), algorithm])
    rates = parse_pkey_rates(stdout)
    rows = []
    for operation in ("sign", "verify"):
        rate = rates.get(f"{operation}/s")
        rows.append(
            Row(
                f"{label} {operation}",
                1e6 / summaries[operation].wall_mean_us,
                rate,
                "ops/s",
                "" if rate is not None else f"openssl: {why}",
            )
        )
    return rows


def part1(s: Settings) -> dict[str, list[Row]]:
    """{operation: [its row from each round]}; each round measures every operation again,
    the agent's batch and then openssl, so a busy spell of the machine hits one round."""
    rows: dict[str, list[Row]] = {}
    for _ in range(s.vs_rounds):
        round_rows = []
        for mechanism, evp, label in (
            ("aes-128-cbc", "aes-128-cbc", "AES-128-CBC"),
            ("aes-256-cbc", "aes-256-cbc", "AES-256-CBC"),
            ("3des-cbc", "des-ede3-cbc", "3DES-CBC"),
        ):
            round_rows += symmetric_rows(mechanism, evp, label, s)
        round_rows += signature_rows("rsa-2048-pkcs1v15", "rsa2048", "RSA-2048 PKCS#1 v1.5", s)
        round_rows += signature_rows("ed25519", "ed25519", "Ed25519", s)
        for row in round_rows:
            rows.setdefault(row.operation, []).append(row)
    return rows


# -- part 2: harness overhead ----------------------------------------------------------------


def bare_aes_cbc(key: bytes, payload: bytes, n: int) -> tuple[float, float]:
    """ns per message of what ``ChainedCbc.secure`` / ``unsecure`` do, written out in a loop:
    one CBC object per direction for the whole loop (key schedule once), per message a
    random IV, PKCS#7 (the padding strings made once, as the mechanism does), the first
    block whitened with iv XOR the chain's previous block; on the way back the frame
    check, the un-whitening and the padding check."""
    bs = AES.block_size
    enc = AES.new(key, AES.MODE_CBC, iv=bytes(bs))
    dec = AES.new(key, AES.MODE_CBC, iv=bytes(bs))
    urandom, from_bytes, clock = os.urandom, int.from_bytes, time.perf_counter_ns
    pads = tuple(bytes((k,)) * k for k in range(bs + 1))
    enc_prev = dec_prev = 0
    wire = back = b""
    t0 = clock()
    for _ in range(n):
        data = payload + pads[bs - len(payload) % bs]
        iv = urandom(bs)
        first = from_bytes(data[:bs], "big") ^ from_bytes(iv, "big") ^ enc_prev
        ciphertext = enc.encrypt(first.to_bytes(bs, "big") + data[bs:])
        enc_prev = from_bytes(ciphertext[-bs:], "big")
        wire = iv + ciphertext
    t1 = clock()
    for _ in range(n):
        # The frame check ``unsecure`` must make (a DecryptError, not pycryptodome's
        # ValueError, for a frame that is not an IV and whole blocks).
        size = len(wire)
        if size < 2 * bs or size % bs:
            raise RuntimeError("bare AES-CBC: frame is not an IV and whole blocks")
        plain = dec.decrypt(wire[bs:])
        first = from_bytes(plain[:bs], "big") ^ dec_prev ^ from_bytes(wire[:bs], "big")
        dec_prev = from_bytes(wire[-bs:], "big")
        data = first.to_bytes(bs, "big") + plain[bs:]
        pad = data[-1]
        if not 1 <= pad <= bs or data[-pad:] != pads[pad]:
            raise RuntimeError("bare AES-CBC: bad padding")
        back = data[:-pad]
    t2 = clock()
    if back != payload:
        raise RuntimeError("bare AES-CBC did not decrypt to the payload")
    return (t1 - t0) / n, (t2 - t1) / n


def bare_ed25519(seed: bytes, payload: bytes, n: int) -> tuple[float, float]:
    """ns per message of what ``Ed25519.secure`` / ``unsecure`` do: one ``eddsa`` scheme
    object (key imported once), per message sign and append / split and verify."""
    scheme = eddsa.new(eddsa.import_private_key(seed), "rfc8032")
    clock = time.perf_counter_ns
    wire = b""
    t0 = clock()
    for _ in range(n):
        wire = payload + scheme.sign(payload)
    t1 = clock()
    for _ in range(n):
        message, signature = wire[:-64], wire[-64:]
        scheme.verify(message, signature)  # raises ValueError if it does not verify
    t2 = clock()
    return (t1 - t0) / n, (t2 - t1) / n


def bare(mechanism: str, key: bytes, size: int, n: int) -> tuple[float, float]:
    payload = os.urandom(size)
    run: Callable[[bytes, bytes, int], tuple[float, float]] = (
        bare_ed25519 if mechanism == "ed25519" else bare_aes_cbc
    )
    gc.collect()
    gc.disable()  # as the agent's child and timeit do
    try:
        run(key, payload, max(20, n // 10))  # warm-up
        return run(key, payload, n)
    finally:
        gc.enable()


def mechanism_loop(mechanism: str, key: bytes, size: int, n: int) -> tuple[float, float]:
    """ns per call of the agent's registry mechanism (``secure`` n times, then ``unsecure``
    of the last frame n times) in the same kind of loop as ``bare``: the mechanism's Python
    layer (method call, ``pkcs7_pad``, attribute look-ups) without the harness."""
    m = registry.create(mechanism, key=key)
    payload = os.urandom(size)
    clock = time.perf_counter_ns

    def run(count: int) -> tuple[float, float]:
        wire = back = b""
        t0 = clock()
        for _ in range(count):
            wire = m.secure(payload)
        t1 = clock()
        for _ in range(count):
            back = m.unsecure(wire)
        t2 = clock()
        if back != payload:
            raise RuntimeError(f"{mechanism}: unsecure did not give the payload back")
        return (t1 - t0) / count, (t2 - t1) / count

    gc.collect()
    gc.disable()
    try:
        run(max(20, n // 10))  # warm-up
        return run(n)
    finally:
        gc.enable()


def agent_calls(mechanism: str, key: bytes, size: int) -> int:
    """The calls per repetition the agent's child picks for (mechanism, size), found the
    same way here: a warm-up block of single calls, then ``calls_per_repetition``."""
    m = registry.create(mechanism, key=key)
    payload = os.urandom(size)
    batch = Batch(mechanism, size, 1, key, stream=False, chunk_bytes=CHUNK_BYTES)
    gc.collect()
    gc.disable()  # as the agent's child does
    try:
        return calls_per_repetition(oneshot_block(m, payload, block_repetitions(batch)))
    finally:
        gc.enable()


def timed_in_process(
    mechanism: str, key: bytes, size: int, n: int, calls: int | None = None
) -> tuple[float, float]:
    """Mean ns per call of the agent's child's own timing code (``oneshot_block``: blocks
    of repetitions one direction at a time, each repetition's ``calls`` calls timed with
    the wall and CPU clocks, its last frame kept, unsecured ``calls`` times and checked;
    ``calls`` by default as many as the child's calibration picks) run here, in this
    long-warm process: the timing without the fresh child process and its sample
    writes."""
    m = registry.create(mechanism, key=key)
    payload = os.urandom(size)
    batch = Batch(mechanism, size, n, key, stream=False, chunk_bytes=CHUNK_BYTES)
    forward = backward = 0
    gc.collect()
    gc.disable()
    try:
        # warm-up and calibration, as the child's
        warmup = oneshot_block(m, payload, block_repetitions(batch))
        if calls is None:
            calls = calls_per_repetition(warmup)
        per_block = block_repetitions(batch, calls)
        oneshot_block(m, payload, per_block, calls)
        done = 0
        while done < n:
            for f_wall, _, b_wall, _ in oneshot_block(m, payload, min(per_block, n - done), calls):
                forward += f_wall
                backward += b_wall
                done += 1
    finally:
        gc.enable()
    return forward / (n * calls), backward / (n * calls)


def child_to_file(mechanism: str, key: bytes, size: int, n: int) -> tuple[float, float]:
    """The agent's batch child (``cipherbench.child``, same code, same timing) with its
    sample lines going to a file: nobody reads them while it measures."""
    batch = Batch(mechanism, size, n, key, stream=False, chunk_bytes=CHUNK_BYTES)
    with tempfile.TemporaryFile() as out:
        subprocess.run(
            [sys.executable, "-c", CHILD_CODE],
            input=batch.to_json().encode() + b"\n",
            stdout=out,
            check=True,
        )
        out.seek(0)
        lines = out.read().decode().splitlines()
    if not lines or lines[-1] != "done":
        raise RuntimeError(f"agent child on {mechanism}/{size}: {lines[-1:] or 'no output'}")
    reps = [line.split() for line in lines if line.startswith("rep ")]
    # rep <i> <fwd_wall_ns> <fwd_cpu_ns> <bwd_wall_ns> <bwd_cpu_ns> <peak_rss_kb> <calls>
    return (
        statistics.mean(int(r[2]) / int(r[7]) for r in reps),
        statistics.mean(int(r[4]) / int(r[7]) for r in reps),
    )


def cipher_bench(mechanism: str, size: int, n: int) -> tuple[float, float]:
    """Mean wall ns per repetition as ``iotsecbench-agent cipher-bench`` reports it."""
    summaries = list(agent_batch(mechanism, size, n).values())
    return summaries[0].wall_mean_us * 1000, summaries[1].wall_mean_us * 1000


@dataclass(frozen=True)
class OverheadCase:
    mechanism: str
    size: int
    labels: tuple[str, str]


OVERHEAD_CASES = (
    OverheadCase("aes-128-cbc", 16, ("AES-128-CBC encrypt, 16 B", "AES-128-CBC decrypt, 16 B")),
    OverheadCase("aes-128-cbc", KIB8, ("AES-128-CBC encrypt, 8 KiB", "AES-128-CBC decrypt, 8 KiB")),
    OverheadCase("ed25519", SIGNED_BYTES, ("Ed25519 sign, 64 B", "Ed25519 verify, 64 B")),
)
WAYS = ("bare", "mechanism", "timed", "file", "agent")


def part2(s: Settings) -> dict[str, dict[str, list[float]]]:
    """{operation label: {way: [ns per call, one per round]}}."""
    results: dict[str, dict[str, list[float]]] = {
        label: {way: [] for way in WAYS} for case in OVERHEAD_CASES for label in case.labels
    }
    keys = {case.mechanism: generate_key(case.mechanism) for case in OVERHEAD_CASES}
    # The agent's ways time groups of calls (1 ms each): n // calls
    # repetitions of them make about the n calls the loops make.
    calls = {
        case: agent_calls(case.mechanism, keys[case.mechanism], case.size)
        for case in OVERHEAD_CASES
    }
    for round_no in range(s.rounds):
        for case in OVERHEAD_CASES:
            n = s.ed25519_reps if case.mechanism == "ed25519" else s.small_reps
            reps = max(1, n // calls[case])
            key = keys[case.mechanism]
            order = WAYS if round_no % 2 == 0 else WAYS[::-1]  # no way always goes first
            for way in order:
                if way == "bare":
                    forward, backward = bare(case.mechanism, key, case.size, n)
                elif way == "mechanism":
                    forward, backward = mechanism_loop(case.mechanism, key, case.size, n)
                elif way == "timed":
                    forward, backward = timed_in_process(
                        case.mechanism, key, case.size, reps, calls[case]
                    )
                elif way == "file":
                    forward, backward = child_to_file(case.mechanism, key, case.size, reps)
                else:
                    forward, backward = cipher_bench(case.mechanism, case.size, reps)
                results[case.labels[0]][way].append(forward)
                results[case.labels[1]][way].append(backward)
    return results


# -- part 3: native lightweight ciphers ------------------------------------------------------


@dataclass(frozen=True)
class Published:
    figure: str
    platform: str
    source: str


PUBLISHED: dict[str, Published] = {
    "tea": Published(
        "none by the designers",
        "—",
        "Wheeler, Needham, *TEA, a Tiny Encryption Algorithm*, FSE 1994",
    ),
    "xtea": Published(
        "none by the designers",
        "—",
        "Needham, Wheeler, *Tea extensions*, Cambridge Computer Laboratory, 1997",
    ),
    "present-80": Published(
        "none: the designers report hardware (1,570 GE)",
        "ASIC",
        "Bogdanov et al., *PRESENT: An Ultra-Lightweight Block Cipher*, CHES 2007",
    ),
    "present-128": Published(
        "none: the designers report hardware",
        "ASIC",
        "Bogdanov et al., CHES 2007",
    ),
    "klein-64": Published(
        "8-bit AVR figures in the paper; not retrieved, not quoted",
        "8-bit AVR",
        "Gong, Nikova, Law, *KLEIN*, RFIDSec 2011",
    ),
    "klein-80": Published("as KLEIN-64", "8-bit AVR", "Gong, Nikova, Law, RFIDSec 2011"),
    "klein-96": Published("as KLEIN-64", "8-bit AVR", "Gong, Nikova, Law, RFIDSec 2011"),
    "lblock": Published(
        "3,955 cycles per 8-byte block ≈ 494 c/B",
        "8-bit microcontroller",
        "Wu, Zhang, *LBlock*, ACNS 2011 (IACR ePrint 2011/345, abstract)",
    ),
    "ascon-aead128": Published(
        "7.2 / 7.8 / 7.0 / 41.2 / 42.9 c/B (long messages, estimated)",
        "Xeon E5-2609 v4 / Core i5-6300U / Cortex-A72 / Cortex-A7 / ARM1176JZF-S",
        "Ascon designers, ascon.iaik.tugraz.at/implementations.html (ascon-c)",
    ),
}


def part3(s: Settings) -> dict[str, Any]:
    done = subprocess.run(
        [
            sys.executable,
            str(BENCH_CPB),
            "--json",
            "--calls",
            str(s.cpb_calls),
            "--batches",
            str(s.cpb_batches),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


# -- output ----------------------------------------------------------------------------------


def machine_note() -> str:
    """CPUs, model, nominal clock, AES-NI, load, and the versions that the figures depend on."""
    fields: dict[str, str] = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            label, _, value = line.partition(":")
            fields.setdefault(label.strip(), value.strip())
    except OSError:
        pass
    aes_ni = ", AES-NI" if "aes" in fields.get("flags", "").split() else ""
    try:
        openssl = subprocess.run(
            [OPENSSL, "version"], capture_output=True, text=True, check=False
        ).stdout.strip()
    except OSError:
        openssl = f"no {OPENSSL}"
    return (
        f"{os.cpu_count()} CPUs ({fields.get('model name', '?')}, /proc/cpuinfo "
        f"{fields.get('cpu MHz', '?')} MHz{aes_ni}), load average {os.getloadavg()[0]:.2f} "
        f"at start; Python {platform.python_version()}, pycryptodome {Crypto.__version__}, "
        f"{openssl}"
    )


def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    return f"{value:,.1f} {unit}" if unit == "MB/s" else f"{value:,.0f} {unit}"


def median_of(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def print_part1(rows: dict[str, list[Row]], s: Settings) -> None:
    print(
        f"\n### 1. The agent's cipher-bench against `openssl speed` "
        f"(median of {s.vs_rounds} round(s), each: the agent's batch of {s.symmetric_reps} "
        f"repetitions (8 KiB) or {s.signature_reps} (signatures, 64 B), then "
        f"`openssl speed -elapsed -seconds {s.openssl_seconds}`)\n"
    )
    print("| operation | agent (cipher-bench) | OpenSSL (`speed`) | agent / OpenSSL (range) |")
    print("|---|---:|---:|---:|")
    for operation, runs in rows.items():
        unit = runs[0].unit
        ratios = [r.agent / r.openssl for r in runs if r.agent and r.openssl]
        openssl = median_of([r.openssl for r in runs])
        ratio = "—"
        if ratios:
            ratio = f"{statistics.median(ratios):.3f}"
            if len(ratios) > 1:
                ratio += f" ({min(ratios):.3f} … {max(ratios):.3f})"
        openssl_cell = fmt(openssl, unit) if openssl is not None else f"— ({runs[-1].note})"
        agent = fmt(median_of([r.agent for r in runs]), unit)
        print(f"| {operation} | {agent} | {openssl_cell} | {ratio} |")


def print_part2(results: dict[str, dict[str, list[float]]], s: Settings) -> None:
    print(
        f"\n### 2. Harness overhead: mean µs per call, median of {s.rounds} interleaved rounds "
        f"({s.small_reps} calls per AES round, {s.ed25519_reps} per Ed25519 round; the "
        "agent's ways in repetitions of as many calls as its calibration picks)\n"
    )
    print(
        "| operation | bare pycryptodome loop | registry mechanism, same loop "
        "| agent's per-call timing, in process | agent child, samples to a file "
        "| agent cipher-bench | overhead (agent - bare) / bare, range | best rounds: "
        "min agent / min bare - 1 | of which: mechanism layer / per-call timing / fresh "
        "child and its group writes / live sample pipe |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for label, ways in results.items():
        medians = [statistics.median(ways[way]) / 1000 for way in WAYS]
        bare_us = medians[0]
        over = [ag / ba - 1 for ag, ba in zip(ways["agent"], ways["bare"], strict=True)]
        split = " / ".join(
            f"{(high - low) / bare_us:+.1%}" for low, high in itertools.pairwise(medians)
        )
        cells = " | ".join(f"{m:.2f}" for m in medians)
        print(
            f"| {label} | {cells} "
            f"| {statistics.median(over):+.1%} ({min(over):+.0%} … {max(over):+.0%}) "
            f"| {min(ways['agent']) / min(ways['bare']) - 1:+.1%} | {split} |"
        )


def print_part3(cpb: dict[str, Any]) -> None:
    mhz = cpb.get("cpu_mhz")
    print(
        f"\n### 3. Native lightweight ciphers, 8 KiB per call (`bench_cpb.py`; clock "
        f"{f'{mhz:.0f} MHz' if mhz else 'unknown'} from {cpb.get('clock_source')}), "
        "next to the designers' published software figures (other processors: compare "
        "side by side, not as a ratio)\n"
    )
    rows: dict[tuple[str, str], dict[str, Any]] = {
        (r["cipher"], r["operation"]): r for r in cpb["results"]
    }
    print(
        "| cipher | measured: encrypt ns/B best (median) | encrypt c/B best | decrypt c/B best "
        "| designers' software figure | their platform | source |"
    )
    print("|---|---:|---:|---:|---|---|---|")
    for cipher, published in PUBLISHED.items():
        enc_op, dec_op = (
            ("encrypt", "decrypt") if cipher == "ascon-aead128" else ("ecb_encrypt", "ecb_decrypt")
        )
        enc, dec = rows.get((cipher, enc_op)), rows.get((cipher, dec_op))
        if enc is None or dec is None:
            print(f"| {cipher} | not measured | | | {published.figure} | | |")
            continue
        mode = "AEAD" if cipher == "ascon-aead128" else "ECB"
        print(
            f"| {cipher} ({mode}) | {enc['ns_per_byte_best']:.2f} "
            f"({enc['ns_per_byte_median']:.2f}) | {cpb_cell(enc)} | {cpb_cell(dec)} "
            f"| {published.figure} | {published.platform} | {published.source} |"
        )


def cpb_cell(row: dict[str, Any]) -> str:
    value = row.get("cycles_per_byte_best")
    return f"{value:.1f}" if value is not None else "—"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="one round, fewer repetitions (~15 s)")
    args = parser.parse_args()
    s = QUICK if args.quick else FULL
    started = time.perf_counter()
    print(
        f"\n`{shlex.join(['bench/ciphers.py', *sys.argv[1:]])}`, "
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; {machine_note()}"
    )
    rows = part1(s)
    overhead = part2(s)
    cpb = part3(s)
    print_part1(rows, s)
    print_part2(overhead, s)
    print_part3(cpb)
    print(f"\n(whole run: {time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
