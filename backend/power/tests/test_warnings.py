"""Warnings about windows that are computed right but barely measured (issue #19)."""

from __future__ import annotations

import numpy as np
import pytest

from power import warnings as w


def test_one_sample_of_a_1_hz_meter_in_a_tenth_of_a_second_warns_twice() -> None:
    found = w.window_warnings(t_s=np.array([4.0]), window_s=0.1, trace_period_s=1.0)
    assert [x["code"] for x in found] == [w.FEW_SAMPLES, w.SAMPLE_PERIOD_EXCEEDS_WINDOW]
    assert "1 sample (fewer than 10)" in found[0]["message"]
    assert "(1 s) is longer than the window (0.1 s)" in found[1]["message"]


def test_a_well_sampled_window_has_no_warnings() -> None:
    t = np.arange(0, 100) * 0.01
    assert w.window_warnings(t_s=t, window_s=1.0, trace_period_s=0.01) == []


def test_nine_samples_warn_and_ten_do_not() -> None:
    nine = w.window_warnings(t_s=np.arange(9) * 0.1, window_s=1.0, trace_period_s=0.1)
    ten = w.window_warnings(t_s=np.arange(10) * 0.1, window_s=1.0, trace_period_s=0.1)
    assert ([x["code"] for x in nine], ten) == ([w.FEW_SAMPLES], [])


@pytest.mark.parametrize(
    ("start", "end", "gap"),
    [
        (5.0, 15.0, 0.0),
        (-10.0, -4.0, 4.0),
        (130.0, 140.0, 30.0),
        (86_127_404.0, 86_127_405.0, 86_127_304.0),
    ],
)
def test_alignment_gap_is_the_distance_outside_the_trace(start, end, gap) -> None:
    assert w.alignment_gap_s(start_s=start, end_s=end, duration_s=100.0) == gap


def test_a_run_two_years_from_its_trace_says_how_to_align_by_hand() -> None:
    found = w.alignment_warnings(
        trace_id="abc",
        start_s=86_127_404.0,
        end_s=86_127_405.0,
        duration_s=60.0,
        alignment="absolute",
    )
    assert [x["code"] for x in found] == [w.ALIGNMENT_FAR]
    assert "996.8 days apart" in found[0]["message"]
    assert "offset_s" in found[0]["message"]


def test_a_manual_offset_is_never_second_guessed() -> None:
    found = w.alignment_warnings(
        trace_id="abc", start_s=1e9, end_s=1e9 + 1, duration_s=60.0, alignment="manual"
    )
    assert found == []
