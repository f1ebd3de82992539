"""Distribution tables: netem's maketable format, the measured tables and their µ/σ,
iproute2's built-in tables (read or regenerated), and draws as the kernel's tabledist."""

from __future__ import annotations

import csv
import random
import statistics
from pathlib import Path

import pytest

from iotsecbench_contract.delaytables import (
    BUILTIN,
    NETEM_DIST_SCALE,
    SYSTEM_TABLE_DIRS,
    DelaySampler,
    catalogue_dir,
    find_measured,
    generate_table,
    load_table,
    parse_table,
    read_profile_info,
    resolve,
)
from iotsecbench_contract.errors import TableError
from iotsecbench_contract.netprofile import DirectionProfile

TIM = "TIM.bad.3G.no_roaming"


@pytest.fixture
def table_dir() -> Path:
    return catalogue_dir()


def test_measured_table_has_4096_values_and_its_mu_sigma(table_dir: Path) -> None:
    measured = find_measured(TIM, [table_dir])
    assert len(measured.table.values) == 4096
    assert (measured.mu_ms, measured.sigma_ms) == read_profile_info(table_dir / "profile_info.txt")[
        TIM
    ]
    assert measured.mu_ms == pytest.approx(122.65, abs=0.01)
    assert measured.sigma_ms == pytest.approx(40.36, abs=0.01)


def test_draws_from_the_tim_table_have_its_mean_and_its_clipped_sigma(table_dir: Path) -> None:
    measured = find_measured(TIM, [table_dir])
    sampler = DelaySampler(measured.direction(), measured.table, random.Random(5))  # noqa: S311 (emulation draws, not cryptography)
    draws = [sampler.draw() / 1e6 for _ in range(100_000)]
    # The mean matches profile_info's µ within 1 %...
    assert statistics.fmean(draws) == pytest.approx(measured.mu_ms, rel=0.01)
    # ...but σ does not: maketable clips values at 32767 (µ + 4σ), which cuts this
    # table's long tail, so netem itself delivers σ ≈ 0.79 · 40.36 ms with these files.
    assert max(measured.table.values) == 32767
    assert statistics.pstdev(draws) == pytest.approx(
        measured.sigma_ms * measured.table.stdev, rel=0.02
    )
    assert 0.75 < measured.table.stdev < 0.82


def test_table_quantiles_match_the_shared_summary(table_dir: Path) -> None:
    with (table_dir / "profiles_summary.csv").open() as f:
        row = next(r for r in csv.DictReader(f) if r["profile"] == TIM)
    measured = find_measured(TIM, [table_dir])
    for q, column in ((0.5, "p50_ms"), (0.95, "p95_ms")):
        got = measured.table.quantile_ms(q, measured.mu_ms, measured.sigma_ms)
        assert got == pytest.approx(float(row[column]), abs=0.5)


@pytest.mark.parametrize("kind", BUILTIN)
def test_generated_builtin_table_equals_iproute2_s(kind: str) -> None:
    installed = [
        Path(d, f"{kind}.dist") for d in SYSTEM_TABLE_DIRS if Path(d, f"{kind}.dist").is_file()
    ]
    if not installed:
        pytest.skip(f"iproute2's {kind}.dist is not installed here: nothing to compare")
    assert generate_table(kind).values == load_table(installed[0]).values


def test_normal_draws_have_mu_and_sigma() -> None:
    direction = DirectionProfile(delay_ms=50, jitter_ms=10, distribution="normal")
    sampler = DelaySampler(direction, resolve(direction), random.Random(1))  # noqa: S311 (emulation draws, not cryptography)
    draws = [sampler.draw() / 1e6 for _ in range(50_000)]
    assert statistics.fmean(draws) == pytest.approx(50, abs=0.2)
    assert statistics.pstdev(draws) == pytest.approx(10, rel=0.03)


def test_uniform_draws_stay_within_mu_plus_minus_sigma() -> None:
    direction = DirectionProfile(delay_ms=50, jitter_ms=10, distribution="uniform")
    assert resolve(direction) is None  # netem without a table
    sampler = DelaySampler(direction, None, random.Random(2))  # noqa: S311 (emulation draws, not cryptography)
    draws = [sampler.draw() / 1e6 for _ in range(20_000)]
    assert 40 <= min(draws) < 40.1
    assert 59.9 < max(draws) <= 60


def test_table_parse_error_names_the_line() -> None:
    with pytest.raises(TableError, match=r"x, line 2: '1.5' is not an integer"):
        parse_table("# comment\n1 2 1.5\n", "x")
    with pytest.raises(TableError, match=r"line 1: 40000 is outside"):
        parse_table("40000", "x")
    with pytest.raises(TableError, match="no values"):
        parse_table("# only a comment\n", "x")


def test_comments_are_ignored_and_scale_is_8192() -> None:
    table = parse_table("# head\n-8192 8192 # tail\n0 0\n", "t")
    assert table.values == (-8192, 8192, 0, 0)
    assert table.stdev == pytest.approx(8192 / NETEM_DIST_SCALE / 2**0.5)


def test_missing_measured_table_says_where_it_looked(tmp_path: Path) -> None:
    direction = DirectionProfile(delay_ms=5, jitter_ms=1, distribution="table", table="nope")
    with pytest.raises(TableError, match=f"'nope' not found in {tmp_path}"):
        resolve(direction, [tmp_path])
    with pytest.raises(TableError, match="not found"):
        find_measured("nope", [tmp_path])
