from __future__ import annotations

import statistics

import pytest

from iotsecbench_contract.intervals import interval_sampler

MEAN_MS = 20.0
SAMPLES = 20_000


def _gaps(distribution: str, seed: int | None = 7) -> list[int]:
    sample = interval_sampler(distribution, MEAN_MS, seed)
    return [sample() for _ in range(SAMPLES)]


def test_fixed_interval_is_always_the_mean() -> None:
    assert set(_gaps("fixed")) == {20_000_000}


def test_uniform_interval_spans_zero_to_twice_the_mean_with_that_mean() -> None:
    gaps = _gaps("uniform")
    assert 0 <= min(gaps) < 1_000_000
    assert 39_000_000 < max(gaps) <= 40_000_000
    assert statistics.fmean(gaps) == pytest.approx(20_000_000, rel=0.02)


def test_exponential_interval_has_the_mean_and_std_of_a_poisson_process() -> None:
    gaps = _gaps("exponential")
    assert statistics.fmean(gaps) == pytest.approx(20_000_000, rel=0.03)
    # For an exponential distribution the standard deviation equals the mean.
    assert statistics.pstdev(gaps) == pytest.approx(20_000_000, rel=0.05)


def test_same_seed_gives_the_same_schedule_on_any_device() -> None:
    assert _gaps("exponential", seed=42)[:50] == _gaps("exponential", seed=42)[:50]
    assert _gaps("exponential", seed=42)[:50] != _gaps("exponential", seed=43)[:50]


def test_unknown_distribution_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="fixed, uniform, exponential"):
        interval_sampler("gaussian", MEAN_MS, None)
