"""The two-stage bootstrap of repeated runs (results.hierarchical) on synthetic two-level
data whose truth is known: every run draws its own offset (run-to-run variation), then its
messages around it (skewed, as round trips are)."""

from __future__ import annotations

import numpy as np
import pytest

from results.hierarchical import (
    LEVEL_MESSAGES,
    LEVEL_RUNS,
    cell_difference,
    hierarchical_replicates,
    run_level_scale,
    run_stage_two,
    stage_one_replicates,
)

# Round trips of a run: its offset + log-normal noise (mean exp(sigma²/2), skewness ~6 at sigma 1).
BASE_MS = 2.0
RUN_SD_MS = 0.3
NOISE_SIGMA = 1.0
NOISE_SCALE_MS = 0.2
TRUE_MEAN_MS = BASE_MS + NOISE_SCALE_MS * np.exp(NOISE_SIGMA**2 / 2)


def _cell(rng: np.random.Generator, runs: int, messages: int) -> list[np.ndarray]:
    offsets = rng.normal(BASE_MS, RUN_SD_MS, size=runs)
    return [o + NOISE_SCALE_MS * rng.lognormal(0, NOISE_SIGMA, messages) for o in offsets]


@pytest.mark.parametrize("runs", [2, 3, 5])
def test_run_level_interval_of_the_mean_covers_the_truth_at_least_93_percent(runs):
    """At nominal 95 %: measured 100 % (2 runs), 97.5 % (3), 95.0 % (5) with this seed."""
    rng = np.random.default_rng(20)
    trials = 80
    covered = 0
    for trial in range(trials):
        reps = hierarchical_replicates(_cell(rng, runs, 200), resamples=1000, seed=trial)
        assert reps is not None
        assert reps.level == LEVEL_RUNS
        low, high = reps.mean_interval()
        covered += low <= TRUE_MEAN_MS <= high
    coverage = covered / trials
    print(f"coverage of the mean, {runs} runs: {coverage:.3f}")
    assert coverage >= 0.93


def test_overhead_interval_covers_the_true_difference_at_least_93_percent():
    """Two cells of 3 runs, the treatment 0.1 ms slower: the difference's interval covers
    0.1 ms at least 93 % of the time."""
    rng = np.random.default_rng(7)
    trials = 80
    covered = 0
    for trial in range(trials):
        base = hierarchical_replicates(_cell(rng, 3, 200), resamples=1000, seed=2 * trial)
        slower = [r + 0.1 for r in _cell(rng, 3, 200)]
        treat = hierarchical_replicates(slower, resamples=1000, seed=2 * trial + 1)
        assert base is not None
        assert treat is not None
        difference = cell_difference(base, treat)
        covered += difference.ci_low <= 0.1 <= difference.ci_high
    print(f"coverage of the difference, 3 + 3 runs: {covered / trials:.3f}")
    assert covered / trials >= 0.93


def test_message_level_interval_for_a_single_run_is_flagged_and_narrower():
    rng = np.random.default_rng(1)
    one = hierarchical_replicates(_cell(rng, 1, 300))
    three = hierarchical_replicates(_cell(rng, 3, 300))
    assert one is not None
    assert three is not None
    assert (one.level, one.runs, three.level, three.runs) == (LEVEL_MESSAGES, 1, LEVEL_RUNS, 3)
    one_low, one_high = one.mean_interval()
    three_low, three_high = three.mean_interval()
    assert one_low < one.mean < one_high
    assert one_high - one_low < three_high - three_low


def test_cell_mean_and_median_weigh_every_run_the_same():
    reps = hierarchical_replicates([[1.0, 1.0, 1.0, 1.0], [3.0, 5.0]])
    assert reps is not None
    assert (reps.mean, reps.median) == (2.5, 2.5)


def test_same_runs_give_the_same_interval_whatever_the_order_of_messages():
    a = hierarchical_replicates([[1.0, 2.0, 3.0, 9.0], [2.0, 4.0, 5.0]])
    b = hierarchical_replicates([[9.0, 3.0, 2.0, 1.0], [5.0, 2.0, 4.0]])
    assert a is not None
    assert b is not None
    assert a.mean_interval() == b.mean_interval()
    assert a.median_interval() == b.median_interval()


def test_a_difference_with_a_single_run_cell_is_message_level():
    single = hierarchical_replicates([[1.0, 2.0, 3.0]])
    repeated = hierarchical_replicates([[1.0, 2.0], [2.0, 3.0]])
    assert single is not None
    assert repeated is not None
    assert cell_difference(single, repeated).level == LEVEL_MESSAGES
    assert cell_difference(repeated, repeated).level == LEVEL_RUNS


def test_runs_without_values_are_left_out():
    assert hierarchical_replicates([[], []]) is None
    reps = hierarchical_replicates([[], [1.0, 2.0]])
    assert reps is not None
    assert reps.runs == 1


def test_widening_follows_t_over_z_for_few_runs():
    assert run_level_scale(1) == 1.0
    assert run_level_scale(2) == pytest.approx(9.17, abs=0.01)
    assert run_level_scale(3) == pytest.approx(2.69, abs=0.01)


def _gathered_stage_two(
    x: np.ndarray, rng: np.random.Generator, resamples: int, draw_max: int
) -> tuple[np.ndarray, np.ndarray]:
    """Stage 2 as first written: gather the drawn values, np.mean and np.median per resample."""
    n = x.size
    m = min(n, draw_max)
    scale = np.sqrt(m / n)
    drawn = x[rng.integers(0, n, size=(resamples, m))]
    means, medians = drawn.mean(axis=1), np.median(drawn, axis=1)
    return x.mean() + (means - x.mean()) * scale, np.median(x) + (medians - np.median(x)) * scale


@pytest.mark.parametrize("messages", [1, 2, 37, 200, 499, 500, 1300])
def test_indexed_stage_two_gives_the_same_resamples_as_gathering_the_values(messages):
    """Odd and even counts, ties (values rounded to 0.1 ms), and m-out-of-n above 500."""
    values = np.round(NOISE_SCALE_MS * np.random.default_rng(3).lognormal(0, 1, messages), 1)
    x = np.sort(values)
    expected_means, expected_medians = _gathered_stage_two(x, np.random.default_rng(9), 400, 500)
    stage = run_stage_two(values, seed=9, resamples=400, draw_max=500)
    assert stage is not None
    np.testing.assert_array_equal(stage.medians, expected_medians)
    np.testing.assert_array_equal(stage.means, expected_means)


@pytest.mark.parametrize("runs", [2, 3, 5])
def test_cell_bootstrap_over_each_runs_own_stage_two_covers_the_truth_at_least_93_percent(runs):
    """The experiment results' path: each run's stage 2 with its own seed (computed once
    per run), stage 1 over them with the cell's seed."""
    rng = np.random.default_rng(21)
    trials = 80
    covered = 0
    for trial in range(trials):
        stages = [
            run_stage_two(values, seed=1000 * trial + n, resamples=1000)
            for n, values in enumerate(_cell(rng, runs, 200))
        ]
        reps = stage_one_replicates(stages, seed=trial)
        assert reps is not None
        assert (reps.level, reps.runs) == (LEVEL_RUNS, runs)
        low, high = reps.mean_interval()
        covered += low <= TRUE_MEAN_MS <= high
    print(f"coverage of the mean over per-run stage 2, {runs} runs: {covered / trials:.3f}")
    assert covered / trials >= 0.93


def test_cell_bootstrap_over_stage_two_leaves_runs_without_values_out():
    stages = [run_stage_two([], seed=1), run_stage_two([1.0, 3.0], seed=2)]
    assert stages[0] is None
    reps = stage_one_replicates(stages, seed=3)
    assert reps is not None
    assert (reps.level, reps.runs, reps.mean, reps.median) == (LEVEL_MESSAGES, 1, 2.0, 2.0)
    assert stage_one_replicates([None], seed=3) is None


def _noisy_two_runs(rng: np.random.Generator) -> list[np.ndarray]:
    """Two runs of a delay on a noisy host: run offsets far apart (0.1 to 3 ms)."""
    offsets = rng.uniform(0.1, 3.0, size=2)
    return [o + 0.05 * rng.lognormal(0, 1.0, 100) for o in offsets]


def test_a_positive_quantitys_interval_never_goes_below_zero_on_noisy_two_run_data():
    rng = np.random.default_rng(3)
    clipped = 0
    for trial in range(40):
        runs = _noisy_two_runs(rng)
        reps = hierarchical_replicates(runs, resamples=500, seed=trial, positive=True)
        plain = hierarchical_replicates(runs, resamples=500, seed=trial)
        assert reps is not None
        assert plain is not None
        assert reps.mean_interval()[0] >= 0
        assert reps.median_interval()[0] >= 0
        # Clipping moves the lower end only, and says so.
        assert reps.mean_interval()[1] == plain.mean_interval()[1]
        assert reps.clipped() == (min(plain.mean_interval()[0], plain.median_interval()[0]) < 0)
        clipped += reps.clipped()
    assert clipped > 0  # the widening for two runs does reach below zero on such data


def test_a_positive_quantity_clipped_at_zero_keeps_its_coverage_and_differences_stay_signed():
    rng = np.random.default_rng(20)
    covered = negative_difference = 0
    trials = 80
    for trial in range(trials):
        base = hierarchical_replicates(
            _cell(rng, 2, 200), resamples=1000, seed=2 * trial, positive=True
        )
        treat = hierarchical_replicates(
            _cell(rng, 2, 200), resamples=1000, seed=2 * trial + 1, positive=True
        )
        assert base is not None
        assert treat is not None
        low, high = base.mean_interval()
        covered += low <= TRUE_MEAN_MS <= high
        negative_difference += cell_difference(base, treat).ci_low < 0
    assert covered / trials >= 0.93
    assert negative_difference > 0  # overheads are never clipped


def test_values_at_or_below_zero_are_not_treated_as_a_positive_quantity():
    runs = [np.array([-0.5, -0.2, 0.1]), np.array([0.3, 0.6, 0.9])]
    reps = hierarchical_replicates(runs, resamples=200, positive=True)
    assert reps is not None
    assert not reps.positive
    assert reps.mean_interval()[0] < 0
