"""``iotsecbench-agent throughput``: the table, the JSON, the samples file and usage errors
(one stderr line, exit status 2)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from iotsecbench_agent.cli.main import main as cli_main
from iotsecbench_agent.storage.samplelog import HEADER, read_samples
from iotsecbench_agent.throughput import cli as cli_throughput

FAST = ["--window-ms", "30"]


def throughput(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="iotsecbench-agent")
    cli_throughput.add_parser(parser.add_subparsers(dest="command"))
    return cli_throughput.main(parser.parse_args(["throughput", *argv]))


def test_cli_prints_one_row_per_mechanism_operation_and_size_with_the_relative_cost(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = throughput(
        "--mechanism", "none", "--mechanism", "aes-128-cbc", "--size", "1", "--size", "1280",
        "--repetitions", "2", *FAST,
    )  # fmt: skip

    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert out[0].split() == [
        "mechanism", "operation", "bytes", "n", "packets/s", "std", "packets/s", "relative",
        "cost", "CPU", "%",
    ]  # fmt: skip
    rows = [line.split() for line in out[1:]]
    mechanisms, sizes, operations = ("none", "aes-128-cbc"), ("1", "1280"), ("secure", "send")
    assert [(r[0], r[1], r[2], r[3]) for r in rows] == [
        (m, op, size, "2") for m in mechanisms for size in sizes for op in operations
    ]
    rates = {(r[0], r[1], r[2]): float(r[4]) for r in rows}
    for r in rows:
        assert float(r[4]) > 0
        assert float(r[5]) >= 0
        assert 0 < float(r[7]) <= 400  # several threads can add up to more than one CPU
        baseline = rates[("none", r[1], r[2])]
        assert float(r[6]) == pytest.approx(baseline / float(r[4]), rel=0.01, abs=0.01)
    assert {r[6] for r in rows if r[0] == "none"} == {"1.00"}


def test_cli_prints_the_statistics_as_json_and_writes_the_samples_when_asked(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    samples = tmp_path / "samples.csv"

    code = cli_main(
        ["throughput", "--mechanism", "present-80-cbc", "--size", "16", "--repetitions", "1",
         "--json", "--samples", str(samples), *FAST]
    )  # fmt: skip

    assert code == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["mechanism"], r["operation"], r["data_bytes"], r["n"]) for r in rows] == [
        ("present-80-cbc", "secure", 16, 1),
        ("present-80-cbc", "send", 16, 1),
    ]
    assert set(rows[0]) == {
        "mechanism",
        "operation",
        "data_bytes",
        "n",
        "packets_per_s_mean",
        "packets_per_s_std",
        "relative_cost",
        "cpu_share_mean",
    }
    assert rows[0]["packets_per_s_std"] is None  # one window
    assert rows[0]["relative_cost"] is None  # no `none` to compare with
    written = read_samples(samples)
    assert samples.read_text().splitlines()[0] == HEADER
    assert [s.operation for s in written] == ["secure", "send"]
    secure = written[0]
    assert secure.packets is not None
    assert rows[0]["packets_per_s_mean"] == pytest.approx(secure.packets * 1e9 / secure.wall_ns)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--size", "1"], "give at least one --mechanism (known: none, null, aes-128-cbc"),
        (["--mechanism", "none"], "give at least one --size"),
        (["--mechanism", "rot13", "--size", "1"], "spec.mechanisms: unknown mechanism 'rot13'"),
        (["--mechanism", "none", "--size", "1X"], "--size '1X' is not a size"),
        (["--mechanism", "none", "--size", "0"], "spec.data_sizes: payload size 0 is out of range"),
        (
            ["--mechanism", "none", "--size", "65508"],
            "spec.data_sizes: payload size 65508 is out of range",
        ),
        (
            ["--mechanism", "none", "--mechanism", "aes-128-cbc", "--size", "64K"],
            "spec.data_sizes: payload size 65536 is out of range",
        ),
        (
            ["--mechanism", "ed25519", "--size", "65500"],
            "ed25519 makes a 65500-byte payload a 65564-byte frame, above the 65507-byte",
        ),
        (["--mechanism", "none", "--size", "1", "--repetitions", "x"], "--repetitions 'x' is"),
        (
            ["--mechanism", "none", "--size", "1", "--repetitions", "0"],
            "spec.repetitions must be an integer in 1..1000",
        ),
        (["--mechanism", "none", "--size", "1", "--window-ms", "2s"], "--window-ms '2s' is not"),
        (
            ["--mechanism", "none", "--size", "1", "--window-ms", "5"],
            "spec.window_ms must be an integer in 10..10000",
        ),
        (
            ["--mechanism", "none", "--size", "1", "--target", "udp://host"],
            "spec.target 'udp://host' is not udp://host:port",
        ),
        (
            ["--mechanism", "none", "--mechanism", "none", "--size", "1"],
            "spec.mechanisms must not repeat",
        ),
    ],
)
def test_cli_exits_2_with_one_error_line_when_input_is_invalid(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code = throughput(*argv)

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

    code = throughput("--mechanism", "none", "--size", "1", "--samples", str(existing))

    assert code == 2
    assert capsys.readouterr().err == f"error: --samples {existing} exists; give a new file\n"
    assert existing.read_text() == "keep me\n"


def test_cli_exits_1_when_sending_fails(capsys: pytest.CaptureFixture[str]) -> None:
    # The limited broadcast address without SO_BROADCAST: EACCES (or ENETUNREACH without
    # a route), not a full queue, so the run fails.
    code = throughput(
        "--mechanism", "none", "--size", "1", "--target", "udp://255.255.255.255:9", *FAST
    )  # fmt: skip

    captured = capsys.readouterr()
    assert code == 1
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    assert line.startswith("error: sending to ('255.255.255.255', 9) failed: [Errno")
