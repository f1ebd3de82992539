"""``iotsecbench-agent cipher-bench``: the table, the JSON, the samples file and usage
errors (one stderr line, exit status 2)."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import pytest

from iotsecbench_agent.cipherbench import cli as cli_bench
from iotsecbench_agent.storage.samplelog import HEADER, read_samples

MECHANISMS = ["--mechanism", "aes-128-cbc", "--mechanism", "ed25519"]


def bench(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="iotsecbench-agent")
    cli_bench.add_parser(parser.add_subparsers(dest="command"))
    return cli_bench.main(parser.parse_args(["cipher-bench", *argv]))


def test_cli_prints_one_row_per_mechanism_operation_and_size(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = bench(*MECHANISMS, "--size", "16", "--size", "1K", "--repetitions", "4")

    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert out[0].split() == [
        "mechanism",
        "operation",
        "bytes",
        "n",
        "mean",
        "µs",
        "var",
        "µs²",
        "std",
        "µs",
        "cpu",
        "µs",
        "MB/s",
        "peak",
        "RSS",
        "KB",
        "calls/rep",
    ]
    rows = [line.split() for line in out[1:]]
    assert [(r[0], r[1], r[2], r[3]) for r in rows] == [
        ("aes-128-cbc", "encrypt", "16", "4"),
        ("aes-128-cbc", "decrypt", "16", "4"),
        ("aes-128-cbc", "encrypt", "1024", "4"),
        ("aes-128-cbc", "decrypt", "1024", "4"),
        ("ed25519", "sign", "16", "4"),
        ("ed25519", "verify", "16", "4"),
        ("ed25519", "sign", "1024", "4"),
        ("ed25519", "verify", "1024", "4"),
    ]
    for row in rows:
        mean, var, std, _cpu, mb_s = (float(x) for x in row[4:9])
        assert mean > 0
        assert math.isclose(std * std, var, rel_tol=0.02, abs_tol=0.01)
        assert math.isclose(mb_s, int(row[2]) / mean, rel_tol=0.01)
        assert int(row[9]) > 0


def test_cli_prints_the_statistics_as_json_when_asked(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    samples = tmp_path / "samples.csv"

    code = bench(
        "--mechanism", "hmac-sha256", "--size", "8K", "--repetitions", "3", "--json",
        "--samples", str(samples),
    )  # fmt: skip

    assert code == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["mechanism"], r["operation"], r["data_bytes"], r["n"]) for r in rows] == [
        ("hmac-sha256", "sign", 8192, 3),
        ("hmac-sha256", "verify", 8192, 3),
    ]
    assert set(rows[0]) == {
        "mechanism",
        "operation",
        "data_bytes",
        "n",
        "wall_mean_us",
        "wall_var_us2",
        "wall_std_us",
        "cpu_mean_us",
        "throughput_mb_s",
        "peak_rss_kb",
        "calls",
    }
    # HMAC of 8 KiB takes well under 1 ms: each repetition timed several calls
    assert rows[0]["calls"] > 1
    written = read_samples(samples)
    assert samples.read_text().splitlines()[0] == HEADER
    assert len(written) == 6
    sign_walls = [s.wall_ns / 1000 for s in written if s.operation == "sign"]
    assert rows[0]["wall_mean_us"] == pytest.approx(sum(sign_walls) / 3)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--size", "16"], "give at least one --mechanism (known: null, aes-128-cbc"),
        (["--mechanism", "aes-128-cbc"], "give at least one --size"),
        (["--mechanism", "rot13", "--size", "16"], "spec.mechanisms: unknown mechanism 'rot13'"),
        (
            ["--mechanism", "none", "--size", "16"],
            "spec.mechanisms: mechanism 'none' does nothing to measure",
        ),
        (["--mechanism", "aes-128-cbc", "--size", "16X"], "--size '16X' is not a size"),
        (
            ["--mechanism", "aes-128-cbc", "--size", "0"],
            "spec.data_sizes: data size 0 is out of range",
        ),
        (
            ["--mechanism", "aes-128-cbc", "--size", "4G"],
            "spec.data_sizes: data size 4294967296 is out of range (1 to 1073741824 bytes)",
        ),
        (
            ["--mechanism", "aes-128-cbc", "--size", "16", "--repetitions", "x"],
            "--repetitions 'x' is not an integer",
        ),
        (
            ["--mechanism", "aes-128-cbc", "--size", "16", "--repetitions", "0"],
            "spec.repetitions must be an integer in 1..10000",
        ),
    ],
)
def test_cli_exits_2_with_one_error_line_when_input_is_invalid(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code = bench(*argv)

    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    assert line.startswith(f"error: {message}")


def test_cli_refuses_to_append_to_an_existing_samples_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    existing = tmp_path / "old.csv"
    existing.write_text("keep me\n")

    code = bench("--mechanism", "null", "--size", "16", "--samples", str(existing))

    assert code == 2
    assert capsys.readouterr().err == f"error: --samples {existing} exists; give a new file\n"
    assert existing.read_text() == "keep me\n"


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("16", 16),
        ("8K", 8192),
        ("8k", 8192),
        ("1M", 1 << 20),
        ("100M", 100 << 20),
        ("1G", 1 << 30),
        ("64KiB", 64 << 10),
        ("2MB", 2 << 20),
    ],
)
def test_sizes_take_binary_suffixes(text: str, size: int) -> None:
    assert cli_bench.parse_size(text) == size
