"""`make bench` must keep working: each benchmark script runs on a small input and prints
its table (the figures themselves are recorded in docs/benchmarks.md, not asserted)."""

from __future__ import annotations

import subprocess
import sys

from scripts.stack import REPO_DIR


def _run(*args: str) -> str:
    result = subprocess.run(
        [sys.executable, *args], cwd=REPO_DIR, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def test_ingestion_benchmark_runs_end_to_end_on_a_small_input() -> None:
    out = _run("bench/ingest.py", "--records", "4000", "--devices", "2", "--chunk-records", "1000")
    assert "| COPY ingest (chunk_ingest), 1 connection(s) | 4,000 |" in out
    assert "| Django bulk_create (csv module parse) | 4,000 |" in out


def test_cipher_benchmark_runs_in_quick_mode() -> None:
    out = _run("bench/ciphers.py", "--quick")
    assert "openssl" in out.lower()
    assert "ascon" in out.lower()


def test_messaging_benchmark_runs_in_quick_mode() -> None:
    out = _run("bench/messaging.py", "--quick")
    assert "bare paho-mqtt 2 loop" in out
    assert "QoS 2" in out


def test_power_trace_benchmark_runs_on_a_small_file() -> None:
    out = _run("bench/power.py", "--samples", "300000")
    assert "| parse and store (trace_parse) |" in out
    assert "| plot, whole trace (2,000 buckets) |" in out


def test_results_benchmark_runs_on_a_small_run() -> None:
    out = _run("bench/results.py", "--records", "20000", "--tries", "1")
    assert "| statistics (from the round-trip cache) |" in out
    assert "| distribution (200 bins) |" in out
    assert "| message sizes |" in out
    assert "| methods paragraph (statistics memoized) |" in out
    assert "| page data (statistics + distribution + sizes + methods), later views |" in out


def test_relay_benchmark_runs_on_a_few_round_trips() -> None:
    out = _run("bench/relay.py", "--messages", "100", "--blocks", "2")
    assert "relay" in out.lower()
    assert "median" in out.lower()


def test_experiment_results_benchmark_runs_on_one_repeat_of_the_40_cells() -> None:
    out = _run("bench/experiment_results.py", "--repeats", "1", "--messages", "50", "--tries", "1")
    assert "40 cells x 1 repeats x 50 messages" in out
    assert "| later views |" in out


def test_crypto_libraries_benchmark_runs_one_short_round() -> None:
    out = _run("bench/cryptolibs.py", "--repetitions", "3", "--seconds", "1", "--rounds", "1")
    assert "| openssl | 1 MiB | decrypt |" in out
    assert "| pycryptodome | 8 KiB | encrypt |" in out
