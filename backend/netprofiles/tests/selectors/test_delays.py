"""What a profile's delay distribution delivers, computed with the agent's tables module."""

from __future__ import annotations

import csv

import pytest

from netprofiles.models import NetworkProfile, ProfileKind
from netprofiles.selectors import HISTOGRAM_BINS, profile_delays
from netprofiles.services import CATALOGUE_DIR

pytestmark = pytest.mark.django_db

# Two tables' values do not average to 0 (their clipped tails are lopsided): the delay they
# deliver is off profile_info's µ by more than 1 % (relative deviation of the mean).
MEAN_OFF_MU = {"Movistar.good.4G.no_roaming": -0.015, "Telenor.medium.3G.no_roaming": -0.0246}


def test_every_tables_delivered_mean_is_within_1_percent_of_profile_info_mu_but_two():
    summary = {
        row["profile"]: row
        for row in csv.DictReader((CATALOGUE_DIR / "profiles_summary.csv").open(encoding="utf-8"))
    }
    profiles = NetworkProfile.objects.filter(kind=ProfileKind.MEASURED_TABLE)
    assert profiles.count() == 51
    for profile in profiles:
        [figures] = profile_delays(profile=profile)
        mu = profile.spec["egress"]["delay_ms"]
        assert figures.direction == "egress"
        assert figures.table == profile.name
        if profile.name in MEAN_OFF_MU:
            off = figures.delivered_mean_ms / mu - 1
            assert off == pytest.approx(MEAN_OFF_MU[profile.name], abs=0.0005)
        else:
            assert figures.delivered_mean_ms == pytest.approx(mu, rel=0.01), profile.name
        # The same mean as profiles_summary.csv, computed from the files independently.
        assert figures.delivered_mean_ms == pytest.approx(
            float(summary[profile.name]["mean_ms"]), abs=0.001
        )
        assert 0 < figures.delivered_std_ms <= figures.sigma_ms * 1.001
        assert len(figures.counts) == HISTOGRAM_BINS
        assert len(figures.edges_ms) == HISTOGRAM_BINS + 1
        assert sum(figures.counts) == figures.entries == 4096
        assert figures.edges_ms[0] == pytest.approx(
            float(summary[profile.name]["min_ms"]), abs=1e-3
        )
        assert figures.edges_ms[-1] == pytest.approx(
            float(summary[profile.name]["max_ms"]), abs=1e-3
        )


def test_tim_bad_3g_delivers_a_smaller_sigma_than_profile_info_says():
    profile = NetworkProfile.objects.get(name="TIM.bad.3G.no_roaming")
    [figures] = profile_delays(profile=profile)
    assert figures.sigma_ms == 40.359329
    assert figures.delivered_std_ms == pytest.approx(31.8, abs=0.1)  # docs/network-emulation.md


def test_a_fixed_delay_has_no_distribution_to_show():
    edge = NetworkProfile.objects.get(slug="srup-6-2g-edge", workspace__isnull=True)
    assert profile_delays(profile=edge) == []


def test_a_normal_jitter_on_both_directions_is_shown_once_from_netems_normal_table():
    profile = NetworkProfile(spec={"both": {"delay_ms": 100, "jitter_ms": 10}})
    [figures] = profile_delays(profile=profile)
    assert (figures.direction, figures.distribution, figures.table) == ("both", "normal", None)
    assert figures.delivered_mean_ms == pytest.approx(100, abs=0.1)
    assert figures.delivered_std_ms == pytest.approx(10, rel=0.02)


def test_draws_below_zero_are_counted_as_sent_at_once():
    profile = NetworkProfile(spec={"egress": {"delay_ms": 5, "jitter_ms": 10}})
    [figures] = profile_delays(profile=profile)
    assert figures.edges_ms[0] == 0
    assert figures.delivered_mean_ms > 5  # the negative half of the normal is cut at 0
