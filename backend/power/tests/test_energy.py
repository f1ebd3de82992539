"""Energy maths against hand-computed values and the papers' own figures."""

from __future__ import annotations

import numpy as np
import pytest

from power import energy


def test_trapezoid_energy_of_a_ramp_is_the_area_under_it() -> None:
    t = np.array([0.0, 1.0, 2.0, 4.0])
    p = np.array([1.0, 3.0, 3.0, 1.0], dtype=np.float32)
    # (1+3)/2*1 + (3+3)/2*1 + (3+1)/2*2 = 2 + 3 + 4
    assert energy.trapezoid_energy_j(t, p) == pytest.approx(9.0)


def test_mean_power_is_energy_over_duration_when_the_meter_speeds_up() -> None:
    # Issue #19: 1 W at 1 Hz for 10 s, then 2 W at 100 Hz for 1 s.
    slow = np.arange(0, 11) * 1.0  # t = 0, 1, ..., 10 s at 1 W (11 samples)
    fast = 10.0 + np.arange(1, 101) * 0.01  # t = 10.01, ..., 11.00 s at 2 W (100 samples)
    t = np.concatenate([slow, fast])
    p = np.concatenate([np.full(11, 1.0), np.full(100, 2.0)]).astype(np.float32)
    # By hand, trapezoids: 10 s x 1 W, the step 10.00 -> 10.01 s at (1+2)/2 W, then
    # 0.99 s x 2 W: 10 + 0.015 + 1.98 = 11.995 J over 11 s.
    hand_energy = 10.0 + 0.01 * 1.5 + 0.99 * 2.0
    fig = energy.window_figures(t, p)
    assert fig.energy_j == pytest.approx(hand_energy)
    assert fig.duration_s == pytest.approx(11.0)
    assert fig.mean_w == pytest.approx(hand_energy / 11.0)  # 1.0905 W
    # The plain average weights the 1 s burst 100 to 11: (11 x 1 + 100 x 2) / 111 W,
    # 74 % above the power the battery sees.
    assert fig.sample_mean_w == pytest.approx(211 / 111)
    assert fig.sample_mean_w / fig.mean_w - 1 == pytest.approx(0.743, abs=0.001)


def test_mean_power_of_one_sample_is_that_sample() -> None:
    fig = energy.window_figures(np.array([3.0]), np.array([1.5], dtype=np.float32))
    assert (fig.energy_j, fig.duration_s, fig.mean_w, fig.sample_mean_w) == (0.0, 0.0, 1.5, 1.5)


def test_battery_gauge_charge_in_joules_is_the_papers_rule() -> None:
    # The MQTT vs CoAP paper: J = mAh x 3.6 x 3.82 (V).
    assert energy.mah_to_joules(10.0, 3.82) == pytest.approx(10 * 3.6 * 3.82)


def test_window_figures_of_uneven_samples() -> None:
    t = np.array([0.0, 0.5, 1.0, 2.0])
    p = np.array([2.0, 4.0, 1.0, 3.0], dtype=np.float32)
    i = p / 5.0  # at 5 V
    fig = energy.window_figures(t, p, i)
    assert fig.samples == 4
    assert fig.duration_s == 2.0
    assert fig.mean_w == pytest.approx(4.75 / 2.0)  # energy / duration
    assert fig.sample_mean_w == pytest.approx(2.5)
    assert fig.median_w == pytest.approx(2.5)
    assert (fig.min_w, fig.max_w) == (1.0, 4.0)
    # 0.5*(2+4)/2 + 0.5*(4+1)/2 + 1*(1+3)/2 = 1.5 + 1.25 + 2
    assert fig.energy_j == pytest.approx(4.75)
    # charge: energy / 5 V in coulombs, / 3.6 for mAh
    assert fig.charge_mah == pytest.approx(4.75 / 5 / 3.6)


def test_a_single_sample_window_has_no_energy() -> None:
    fig = energy.window_figures(np.array([3.0]), np.array([1.5], dtype=np.float32))
    assert (fig.energy_j, fig.duration_s, fig.mean_w, fig.charge_mah) == (0.0, 0.0, 1.5, None)


def test_an_empty_window_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one sample"):
        energy.window_figures(np.array([]), np.array([], dtype=np.float32))


def test_mah_and_joules_convert_as_the_mqtt_vs_coap_paper() -> None:
    # Energy (J) = mAh x 3.6 x V, with the paper's 3.82 V smartphone battery.
    assert energy.mah_to_joules(10.0, 3.82) == pytest.approx(137.52)
    assert energy.joules_to_mah(137.52, 3.82) == pytest.approx(10.0)


def test_srup_paper_power_overhead_and_battery_life() -> None:
    # Mean 1.31 W (MQTT) vs 2.04 W (SRUP), +728 mW (paper: 55.5 %, Equation 2, computed
    # from unrounded means; 0.728 / 1.31 = 55.57 %).
    assert energy.overhead_pct(1.31 + 0.728, 1.31) == pytest.approx(55.57, abs=0.01)
    # 10,000 mAh at 5 V = 50 Wh; 50 Wh / 1.31 W = 38.1 h, 50 Wh / 2.04 W = 24.5 h.
    capacity = energy.capacity_wh(mah=10_000, volts=5.0)
    assert capacity == 50.0
    assert energy.hours_continuous(capacity, 1.31) == pytest.approx(38.17, abs=0.01)
    assert energy.hours_continuous(capacity, 2.04) == pytest.approx(24.51, abs=0.01)


def test_capacity_needs_wh_or_mah_with_volts() -> None:
    assert energy.capacity_wh(wh=12.5) == 12.5
    with pytest.raises(ValueError, match="mAh with a voltage"):
        energy.capacity_wh(mah=1000)


def test_duty_cycled_life_falls_with_the_message_rate() -> None:
    # 50 Wh, idle 1 W, 0.6 J per message: at 0, 60 and 600 msg/min the draw is 1, 1.6, 7 W.
    hours = energy.hours_duty_cycled(50.0, 1.0, 0.6, np.array([0.0, 60.0, 600.0]))
    assert hours.tolist() == pytest.approx([50.0, 31.25, 50 / 7])


def test_zero_draw_lasts_forever() -> None:
    assert energy.hours_duty_cycled(50.0, 0.0, 0.5, np.array([0.0]))[0] == np.inf
    assert energy.hours_continuous(50.0, 0.0) == np.inf
