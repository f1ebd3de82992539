"""results.plotdata against values computed by hand, with numpy and scipy as the references
where they define the same thing."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats  # type: ignore[import-untyped]

from results.plotdata import bandwidth, bin_edges, box, density, downsample, histogram


def test_histogram_counts_per_bin_and_outside_the_range():
    # Bins over [0, 2]: [0, .5) [.5, 1) [1, 1.5) [1.5, 2] -> 0 | 0.5 | 1 | 1.5, 2; 5 is above.
    counts, below, above = histogram(np.array([0, 0.5, 1, 1.5, 2, 5.0]), bins=4, low=0, high=2)
    assert counts.tolist() == [1, 1, 1, 2]
    assert (below, above) == (0, 1)
    assert bin_edges(bins=4, low=0, high=2).tolist() == [0, 0.5, 1, 1.5, 2]
    assert bin_edges(bins=2, low=3, high=3).tolist() == [2.5, 3, 3.5]  # widened by ±0.5


def test_box_statistics_match_hand_computed_tukey_whiskers():
    # 1..9 and 100 (n = 10): q1 at 2.25 -> 3.25; median at 4.5 -> 5.5; q3 at 6.75 -> 7.75.
    # IQR 4.5; fences 3.25 - 6.75 = -3.5 and 7.75 + 6.75 = 14.5: 100 is the one outlier,
    # whiskers at the last values inside, 1 and 9.
    b = box(np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 100.0]), sample_max=10)
    assert (b.q1, b.median, b.q3) == (3.25, 5.5, 7.75)
    assert (b.whisker_low, b.whisker_high) == (1, 9)
    assert b.outliers == 1
    assert b.outlier_sample.tolist() == [100]


def test_box_caps_the_outlier_sample_and_keeps_both_extremes():
    values = np.concatenate([np.full(1000, 5.0), np.arange(200.0, 500.0)])
    b = box(values, sample_max=50)
    assert b.outliers == 300
    assert len(b.outlier_sample) == 50
    assert (b.outlier_sample[0], b.outlier_sample[-1]) == (200, 499)


def test_bandwidth_is_silvermans_rule():
    # 1..10: s = 3.0276504, IQR = 7.75 - 3.25 = 4.5, 4.5 / 1.34 = 3.3582090 > s;
    # h = 0.9 * 3.0276504 * 10^(-1/5) = 2.7248853 * 0.6309573 = 1.7192864.
    assert bandwidth(np.arange(1.0, 11.0)) == pytest.approx(1.7192864, rel=1e-6)
    # A tail of outliers: the IQR, not s (~99), sets the width. 0, 1/999, ..., 1 and ten
    # 1000s (n = 1010): q1 at position 252.25 -> 252.25/999, q3 at 756.75 -> 756.75/999,
    # IQR = 504.5/999 = 0.5050050.
    values = np.concatenate([np.linspace(0, 1, 1000), np.full(10, 1000.0)])
    expected = 0.9 * (504.5 / 999 / 1.34) * 1010**-0.2
    assert bandwidth(values) == pytest.approx(expected, rel=1e-9)


def test_density_matches_scipys_kde_of_the_same_bandwidth_and_integrates_to_one():
    values = np.random.default_rng(0).normal(5.0, 1.0, 4000)
    grid = np.linspace(0, 10, 128)
    estimate = density(values, grid)
    assert estimate is not None
    # scipy's kernel sd is bw_method * s: give it the same bandwidth.
    exact = stats.gaussian_kde(values, bw_method=bandwidth(values) / values.std(ddof=1))(grid)
    assert np.abs(estimate - exact).max() < 0.01 * exact.max()
    assert np.trapezoid(estimate, grid) == pytest.approx(1.0, abs=0.01)
    assert density(np.full(10, 3.0), grid) is None  # no bandwidth
    assert density(np.array([3.0]), grid) is None


def test_downsample_gives_min_max_mean_per_equal_count_bucket():
    # 10 values in 3 buckets: positions [0, 3), [3, 6), [6, 10).
    s = downsample(np.arange(10), np.arange(1.0, 11.0), buckets=3)
    assert s.seq_first.tolist() == [0, 3, 6]
    assert s.seq_last.tolist() == [2, 5, 9]
    assert s.min.tolist() == [1, 4, 7]
    assert s.max.tolist() == [3, 6, 10]
    assert s.mean.tolist() == [2, 5, 8.5]
    few = downsample(np.array([4, 9]), np.array([1.0, 2.0]), buckets=200)
    assert few.seq_first.tolist() == [4, 9]  # never more buckets than values
    assert downsample(np.empty(0), np.empty(0), buckets=5).mean.size == 0


def test_histogram_by_binary_search_equals_numpys_even_on_the_edges():
    rng = np.random.default_rng(9)
    values = np.concatenate([rng.normal(0, 1, 5000), np.linspace(-2, 2, 41), [-3.0, 3.0]])
    counts, below, above = histogram(values, bins=40, low=-2, high=2)
    reference, _ = np.histogram(values, bins=40, range=(-2, 2))
    assert counts.tolist() == reference.tolist()
    assert below == int((values < -2).sum())
    assert above == int((values > 2).sum())


def test_box_of_presorted_and_unsorted_inputs_agree():
    values = np.random.default_rng(11).gamma(2.0, 3.0, 3001)
    ordered = np.sort(values)
    a, b = box(values, sample_max=20), box(ordered, sample_max=20, presorted=True)
    assert (a.q1, a.whisker_high, a.outliers) == (b.q1, b.whisker_high, b.outliers)
    assert a.outlier_sample.tolist() == b.outlier_sample.tolist()
