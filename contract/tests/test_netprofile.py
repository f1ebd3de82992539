"""Link profiles: what parses, and errors that name the field, the problem and what is
allowed."""

from __future__ import annotations

from typing import Any

import pytest

from iotsecbench_contract.errors import ProfileError
from iotsecbench_contract.netprofile import (
    DEFAULT_LIMIT,
    DirectionProfile,
    GilbertElliott,
    LinkProfile,
)

GPRS_LOSS = {"rate_kbit": 40, "delay_ms": 122.6, "jitter_ms": 40.6, "loss_pct": 10}


def test_both_applies_one_profile_to_each_direction() -> None:
    profile = LinkProfile.parse({"both": GPRS_LOSS})
    assert profile.egress == profile.ingress
    assert profile.egress.rate_kbit == 40.0
    assert profile.egress.distribution == "normal"  # tcset's and tc-netem(8)'s default
    assert profile.egress.limit == DEFAULT_LIMIT


def test_a_direction_left_out_is_not_shaped() -> None:
    profile = LinkProfile.parse({"egress": {"delay_ms": 5}})
    assert profile.egress.shaped
    assert not profile.ingress.shaped
    assert LinkProfile.parse({}) == LinkProfile()


def test_profile_round_trips_through_its_dict() -> None:
    data = {
        "egress": {
            "delay_ms": 122.649579,
            "jitter_ms": 40.359329,
            "distribution": "table",
            "table": "TIM.bad.3G.no_roaming",
        },
        "ingress": {
            "rate_kbit": 384,
            "loss_gemodel": {"p_pct": 1, "r_pct": 30},
            "duplicate_pct": 1,
            "reorder_pct": 5,
            "delay_ms": 10,
            "corrupt_pct": 0.1,
            "limit": 50,
        },
    }
    profile = LinkProfile.parse(data)
    assert LinkProfile.parse(profile.to_dict()) == profile
    assert profile.tables() == {"TIM.bad.3G.no_roaming"}


def test_gemodel_defaults_are_tc_netem_s() -> None:
    ge = LinkProfile.parse({"both": {"loss_gemodel": {"p_pct": 10}}}).egress.loss_gemodel
    assert ge == GilbertElliott(p_pct=10, r_pct=90, one_minus_h_pct=100, one_minus_k_pct=0)
    assert ge.mean_loss == pytest.approx(0.10)  # r = 1 - p: plain Bernoulli loss


def test_burst_loss_mean_is_the_stationary_bad_share() -> None:
    direction = DirectionProfile(loss_gemodel=GilbertElliott(p_pct=5, r_pct=45))
    assert direction.mean_loss == pytest.approx(0.05 / 0.50)


@pytest.mark.parametrize(
    ("data", "field", "words"),
    [
        ([], "profile", "not an object"),
        ({"uplink": {}}, "uplink", "unknown key"),
        ({"both": {}, "egress": {}}, "both", "together with egress/ingress"),
        ({"both": {"delay": 5}}, "both.delay", "unknown key"),
        ({"egress": {"loss_pct": -1}}, "egress.loss_pct", "below 0"),
        ({"egress": {"loss_pct": 101}}, "egress.loss_pct", "above 100"),
        ({"egress": {"loss_pct": True}}, "egress.loss_pct", "not a number"),
        ({"egress": {"delay_ms": "20ms"}}, "egress.delay_ms", "not a number"),
        ({"egress": {"delay_ms": float("nan")}}, "egress.delay_ms", "not finite"),
        ({"ingress": {"rate_kbit": 1e9}}, "ingress.rate_kbit", "above"),
        ({"ingress": {"limit": 0}}, "ingress.limit", "whole number"),
        ({"ingress": {"limit": 10.5}}, "ingress.limit", "whole number"),
        ({"both": {"distribution": "gauss", "jitter_ms": 1}}, "both.distribution", "not known"),
        ({"both": {"distribution": "pareto"}}, "both.distribution", "without jitter_ms"),
        (
            {"both": {"distribution": "table", "jitter_ms": 1, "delay_ms": 5}},
            "both.table",
            "not a table name",
        ),
        (
            {"both": {"distribution": "table", "jitter_ms": 1, "delay_ms": 5, "table": "../x"}},
            "both.table",
            "not a table name",
        ),
        (
            {"both": {"distribution": "table", "jitter_ms": 1, "table": "TIM"}},
            "both.delay_ms",
            "0 with a measured table",
        ),
        ({"both": {"table": "TIM"}}, "both.table", "without"),
        ({"both": {"reorder_pct": 25}}, "both.reorder_pct", "without delay_ms"),
        (
            {"both": {"loss_pct": 1, "loss_gemodel": {"p_pct": 1}}},
            "both.loss_gemodel",
            "together with loss_pct",
        ),
        ({"both": {"loss_gemodel": {"r_pct": 1}}}, "both.loss_gemodel.p_pct", "missing"),
        ({"both": {"loss_gemodel": {"p_pct": 1, "h": 1}}}, "both.loss_gemodel.h", "unknown"),
        ({"both": {"loss_gemodel": 5}}, "both.loss_gemodel", "not an object"),
    ],
)
def test_invalid_profile_error_names_field_problem_and_allowed(
    data: Any, field: str, words: str
) -> None:
    with pytest.raises(ProfileError) as caught:
        LinkProfile.parse(data)
    assert caught.value.field == field
    assert words in caught.value.problem
    assert caught.value.allowed
    assert str(caught.value).startswith(f"{field}: ")
    assert "allowed: " in str(caught.value)
