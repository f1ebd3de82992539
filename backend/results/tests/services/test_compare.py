"""Comparisons: automatic pairing of stored runs and the overhead of each pair."""

from __future__ import annotations

from typing import Any

import pytest

from experiments.models import Experiment, Run
from results.services import runs_compare
from results.tests.conftest import MS, messaging_spec

SIGNED = "rsa-2048-pkcs1v15"
# Baseline devices: 1, 2, 3 ms (mean 2) and 11, 12, 13 ms (mean 12): combined mean 7.
BASE = {"pi-1": [1 * MS, 2 * MS, 3 * MS], "pi-2": [11 * MS, 12 * MS, 13 * MS]}
# One device, 50 messages from 5 to 5.49 ms: a run whose mean its messages pin down well.
TIGHT = {"pi-1": [5 * MS + i * MS // 100 for i in range(50)]}


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
    # The two conditions pair with each other too (one parameter apart): keep security's.
    lan, cellular = [p for p in comparison.pairs if p.parameter == "security"]
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
    # One run a side: a message-level interval, and the verdict says what it cannot see.
    assert (lan.repeat, lan.interval_level, lan.verdict) == (1, "messages", "slower")
    assert "one run a side cannot show run-to-run variation" in lan.verdict_text
    assert not hasattr(lan, "p_value")
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


def _repeated(
    make_run: Any, experiment: Experiment | None, messages, security: str, repeat: int
) -> Run:
    """A completed run of `experiment` (a new one when None) as the matrix's cell `security`."""
    run = make_run(messages, spec=messaging_spec(security=security), experiment=experiment).run
    Run.objects.filter(pk=run.pk).update(repeat=repeat, cell_label=security)
    Experiment.objects.filter(pk=run.experiment_id).update(repeats=2)
    return Run.objects.select_related("experiment").get(pk=run.pk)


@pytest.mark.django_db
def test_two_repeats_a_side_make_one_pair_over_runs_labelled_by_parameters(make_run):
    first = _repeated(make_run, None, TIGHT, "none", 1)
    experiment = first.experiment
    runs = [
        _repeated(make_run, experiment, _shifted(TIGHT, 2.0), "aes-128-cbc", 2),
        first,
        _repeated(make_run, experiment, _shifted(TIGHT, 0.1), "none", 2),
        _repeated(make_run, experiment, _shifted(TIGHT, 2.1), "aes-128-cbc", 1),
    ]
    comparison = runs_compare(runs=runs)

    assert [r.label for r in comparison.runs] == [
        "aes-128-cbc · repeat 2",
        "none · repeat 1",
        "none · repeat 2",
        "aes-128-cbc · repeat 1",
    ]
    (pair,) = comparison.pairs  # not four: one over repeats, never across them one by one
    assert pair.repeat is None
    assert pair.interval_level == "runs"
    assert set(pair.baseline_run_ids) == {runs[1].pk, runs[2].pk}
    assert set(pair.treatment_run_ids) == {runs[0].pk, runs[3].pk}
    assert (pair.baseline_label, pair.treatment_label) == (
        "none · 2 repeats",
        "aes-128-cbc · 2 repeats",
    )
    # Means of run means: 5.295 and 7.295 ms; the runs agree, so the interval is above zero.
    assert pair.overhead_ms == pytest.approx(2.0)
    assert pair.ci_low_ms is not None
    assert pair.ci_low_ms > 0
    assert pair.verdict == "slower"
    assert pair.verdict_text == "slower than the baseline beyond run-to-run variation"
    assert pair.max_rate_hz == pytest.approx(500.0)


@pytest.mark.django_db
def test_run_to_run_noise_is_no_difference_and_gives_no_rate(make_run):
    # The "-0.273 ms, p 7e-13": runs of one condition differ by more than the cost.
    first = _repeated(make_run, None, TIGHT, "none", 1)
    experiment = first.experiment
    runs = [
        first,
        _repeated(make_run, experiment, _shifted(TIGHT, 2.0), "none", 2),
        _repeated(make_run, experiment, _shifted(TIGHT, 2.5), "aes-128-cbc", 1),
        _repeated(make_run, experiment, _shifted(TIGHT, 0.0), "aes-128-cbc", 2),
    ]
    (pair,) = runs_compare(runs=runs).pairs

    assert pair.overhead_ms == pytest.approx(0.25)
    assert pair.ci_low_ms is not None
    assert pair.ci_high_ms is not None
    assert pair.ci_low_ms < 0 < pair.ci_high_ms
    assert pair.verdict == "no_difference"
    assert pair.max_rate_hz is None  # an overhead whose interval holds zero sets no limit


@pytest.mark.django_db
def test_runs_of_two_experiments_are_labelled_with_the_experiment_name(make_run):
    plain = make_run(BASE, name="Plain").run
    signed = make_run(BASE, spec=messaging_spec(security=SIGNED), name="Signed").run
    comparison = runs_compare(runs=[plain, signed])
    assert next(r.label for r in comparison.runs).startswith("Plain · run of ")
    assert [r.label for r in comparison.runs][1].startswith("Signed · run of ")
