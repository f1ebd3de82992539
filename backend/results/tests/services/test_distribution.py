"""Plot data: shared histogram range, box statistics, violin density, downsampled series."""

from __future__ import annotations

import numpy as np
import pytest

from results.services import run_distribution_compute
from results.services.distribution import OUTLIER_SAMPLE_MAX, PLOT_STEPS, SERIES_BUCKETS, Span
from results.tests.conftest import MS

# pi-a: 1..9 ms and one 100 ms outlier, in this send order; pi-b: 5 ms four times, one lost.
SEND_ORDER = (4, 1, 9, 100, 2, 8, 3, 7, 5, 6)
PI_A = [v * MS for v in SEND_ORDER]
PI_B = [5 * MS, 5 * MS, None, 5 * MS, 5 * MS]


@pytest.mark.django_db
def test_distribution_shares_the_range_and_matches_hand_computed_boxes(make_run):
    made = make_run({"pi-a": PI_A, "pi-b": PI_B})
    result = run_distribution_compute(run=made.run, bins=99)

    # Range over both devices: 1 to 100 ms in 99 bins of 1 ms.
    assert (result.low_ms, result.high_ms) == (1, 100)
    assert result.edges_ms[:3] == [1, 2, 3]
    assert len(result.edges_ms) == 100
    a, b = result.devices
    assert (a.device_name, a.n, b.n) == ("pi-a", 10, 4)
    assert sum(a.counts) == 10
    assert a.counts[0] == 1  # [1, 2)
    assert a.counts[-1] == 1  # [99, 100]
    assert b.counts[4] == 4  # [5, 6)
    # Box of pi-a as in test_statistics: quartiles 3.25 / 5.5 / 7.75, whiskers 1 and 9,
    # one outlier (100).
    assert a.box is not None
    assert (a.box.q1, a.box.median, a.box.q3) == (3.25, 5.5, 7.75)
    assert (a.box.whisker_low, a.box.whisker_high, a.box.outliers) == (1, 9, 1)
    assert a.box.outlier_sample.tolist() == [100]
    assert b.box is not None
    assert (b.box.q1, b.box.q3, b.box.outliers) == (5, 5, 0)
    # Violin: a density for pi-a on the shared grid; none for a constant pi-b.
    assert a.density is not None
    assert len(a.density) == len(result.grid_ms)
    assert b.density is None
    # Series: 10 values in at most 200 buckets -> one per value; pi-b skips the lost seq 2.
    assert a.series.mean.tolist() == list(SEND_ORDER)
    assert b.series.seq_first.tolist() == [0, 1, 3, 4]


@pytest.mark.django_db
def test_a_range_given_counts_what_falls_outside(make_run):
    made = make_run({"pi-a": PI_A})
    result = run_distribution_compute(run=made.run, bins=4, low_ms=2, high_ms=10)
    (a,) = result.devices
    assert result.edges_ms == [2, 4, 6, 8, 10]
    assert (a.below, a.above, sum(a.counts)) == (1, 1, 8)


@pytest.mark.django_db
def test_the_whiskers_range_shows_the_bulk_and_counts_outliers_above(make_run):
    made = make_run({"pi-a": PI_A, "pi-b": PI_B})
    result = run_distribution_compute(run=made.run, bins=8, span=Span.WHISKERS)
    # Whiskers: pi-a 1 to 9 (as above), pi-b 5 to 5 -> the range is 1 to 9 ms.
    assert (result.low_ms, result.high_ms) == (1, 9)
    a, b = result.devices
    assert (sum(a.counts), a.above, sum(b.counts)) == (9, 1, 4)


@pytest.mark.django_db
def test_one_end_beyond_the_data_gives_a_unit_wide_range_not_an_error(make_run):
    made = make_run({"pi-a": PI_A})
    result = run_distribution_compute(run=made.run, bins=2, low_ms=500)
    assert (result.low_ms, result.high_ms) == (499.5, 500.5)
    assert result.devices[0].below == 10


@pytest.mark.django_db
def test_plot_data_stays_the_same_size_whatever_the_number_of_records(make_run):
    rtts = (np.random.default_rng(2).gamma(3.0, 1.0, 30_000) * MS).astype(int).tolist()
    made = make_run({"pi-a": rtts})
    result = run_distribution_compute(run=made.run, bins=200)
    (a,) = result.devices
    assert a.n == 30_000
    assert sum(a.counts) == 30_000
    assert len(a.series.mean) == SERIES_BUCKETS
    assert a.series.seq_first[0] == 0
    assert a.series.seq_last[-1] == 29_999
    assert a.box is not None
    assert len(a.box.outlier_sample) <= OUTLIER_SAMPLE_MAX
    # Bucket means are the means of 150 values each, rounded to 1/10,000 of the range.
    expected = np.asarray(rtts[:150]).mean() / MS
    step = (result.high_ms - result.low_ms) / PLOT_STEPS
    assert a.series.mean[0] == pytest.approx(expected, abs=step)
