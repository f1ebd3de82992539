"""Comparisons: automatic pairing of stored runs and the overhead of each pair."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats  # type: ignore[import-untyped]

from results.services import runs_compare
from results.tests.conftest import MS, messaging_spec

SIGNED = "rsa-2048-pkcs1v15"
# Baseline devices: 1, 2, 3 ms (mean 2) and 11, 12, 13 ms (mean 12): combined mean 7.
BASE = {"pi-1": [1 * MS, 2 * MS, 3 * MS], "pi-2": [11 * MS, 12 * MS, 13 * MS]}


def _shifted(messages: dict[str, list[int]], ms: float) -> dict[str, list[int]]:
    return {name: [v + int(ms * MS) for v in values] for name, values in messages.items()}


@pytest.mark.django_db
def test_signed_runs_pair_with_plain_ones_per_condition_and_give_the_srup_overhead(make_run):
    runs = [
        make_run(BASE, spec=messaging_spec(network_profile="lan")).run,
        make_run(
            _shifted(BASE, 56.1), spec=messaging_spec(network_profile="lan", security=SIGNED)
        ).run,
        make_run(BASE, spec=messaging_spec(network_profile="4g")).run,
        make_run(
            _shifted(BASE, 40.0), spec=messaging_spec(network_profile="4g", security=SIGNED)
        ).run,
    ]
    comparison = runs_compare(runs=runs)

    assert [r.run_id for r in comparison.runs] == [r.pk for r in runs]
    assert comparison.runs[1].treatment["security"] == SIGNED
    assert comparison.runs[1].conditions["network_profile"] == "lan"
    lan, cellular = comparison.pairs
    assert (lan.baseline_run_id, lan.treatment_run_id) == (runs[0].pk, runs[1].pk)
    assert (cellular.baseline_run_id, cellular.treatment_run_id) == (runs[2].pk, runs[3].pk)
    assert [(d.key, d.baseline, d.treatment) for d in lan.differs_in] == [
        ("security", "none", SIGNED)
    ]
    # Combined means 7 and 63.1 ms: overhead 56.1 ms, 56.1 / 7 = 801.43 % more, and
    # 1 / 56.1 ms = 17.8 Hz (the SRUP paper's worst case).
    assert lan.baseline_mean_ms == pytest.approx(7)
    assert lan.treatment_mean_ms == pytest.approx(63.1)
    assert lan.overhead_ms == pytest.approx(56.1)
    assert lan.relative_overhead_pct == pytest.approx(801.428571)
    assert lan.max_rate_hz == pytest.approx(17.825, abs=0.001)
    assert lan.ci_low_ms is not None
    assert lan.ci_high_ms is not None
    assert lan.ci_low_ms <= 56.1 <= lan.ci_high_ms
    pooled_base = np.array([1, 2, 3, 11, 12, 13.0])
    ref = stats.mannwhitneyu(pooled_base + 56.1, pooled_base, alternative="two-sided")
    assert lan.mann_whitney_u == ref.statistic == 36  # every signed value is the larger
    assert lan.p_value == pytest.approx(ref.pvalue)
    assert cellular.overhead_ms == pytest.approx(40.0)
    assert (comparison.resamples, comparison.seed) == (2000, 2021)


@pytest.mark.django_db
def test_a_pair_with_nothing_delivered_on_one_side_has_no_overhead(make_run):
    plain = make_run(BASE).run
    dead = make_run({"pi-1": [None], "pi-2": [None]}, spec=messaging_spec(security=SIGNED)).run
    (pair,) = runs_compare(runs=[dead, plain]).pairs
    assert pair.baseline_run_id == plain.pk
    assert pair.baseline_mean_ms == pytest.approx(7)
    assert (pair.treatment_mean_ms, pair.overhead_ms, pair.max_rate_hz) == (None, None, None)


@pytest.mark.django_db
def test_faster_treatment_has_a_negative_overhead_and_no_rate_limit(make_run):
    plain = make_run(BASE).run
    faster = make_run(_shifted(BASE, -0.5), spec=messaging_spec(transport="tls1.3")).run
    (pair,) = runs_compare(runs=[plain, faster]).pairs
    assert pair.overhead_ms == pytest.approx(-0.5)
    assert pair.relative_overhead_pct == pytest.approx(-0.5 / 7 * 100)
    assert pair.max_rate_hz is None
