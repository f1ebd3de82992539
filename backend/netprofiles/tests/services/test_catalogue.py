"""The built-in catalogue: loaded by the data migration from the contract's package data."""

from __future__ import annotations

import pytest
from iotsecbench_contract.delaytables import read_profile_info
from iotsecbench_contract.netprofile import LinkProfile

from netprofiles.models import DelayTable, NetworkProfile, ProfileKind
from netprofiles.services import CATALOGUE_DIR, builtin_id, catalogue_load

pytestmark = pytest.mark.django_db

PROFILE_INFO = read_profile_info(CATALOGUE_DIR / "profile_info.txt")

# Poulter & Cox 2021 (IoT 2, 549-563), Table A1, typed from the paper: experiment →
# (measured table, or tc settings as rate kbit/s, delay ms, delay-distro ms, loss %).
TABLE_A1_DISTRIBUTIONS = {
    2: "H3G_Access_AB.good.4G.no_roaming",
    3: "TIM.medium.4G.no_roaming",
    4: "TIM.good.3G.no_roaming",
    5: "TIM.bad.3G.no_roaming",
}
TABLE_A1_TC = {
    6: (384, 115.6, None, None),
    7: (115, 122.6, 40.6, None),
    8: (40, 122.6, 40.6, None),
    9: (115, 122.6, 40.6, 5),
    10: (40, 122.6, 40.6, 10),
}


def _conditions() -> dict[int, NetworkProfile]:
    rows = NetworkProfile.objects.filter(kind=ProfileKind.BUILTIN_CONDITION)
    return {row.position: row for row in rows}


def test_catalogue_holds_exactly_ten_srup_conditions_and_51_tables_after_migrate():
    builtins = NetworkProfile.objects.filter(workspace__isnull=True)
    assert builtins.filter(kind=ProfileKind.BUILTIN_CONDITION).count() == 10
    assert builtins.filter(kind=ProfileKind.MEASURED_TABLE).count() == 51
    assert builtins.count() == 61
    assert DelayTable.objects.count() == 51
    assert set(DelayTable.objects.values_list("name", flat=True)) == set(PROFILE_INFO)
    assert sorted(_conditions()) == list(range(1, 11))


def test_every_builtin_spec_is_read_unchanged_by_the_agents_parser():
    for profile in NetworkProfile.objects.filter(workspace__isnull=True):
        link = LinkProfile.parse(profile.spec)
        assert link.tables() <= set(PROFILE_INFO), profile.name


def test_srup_lan_condition_shapes_nothing():
    lan = _conditions()[1]
    assert lan.spec == {}
    assert not LinkProfile.parse(lan.spec).egress.shaped
    assert "Table A1, experiment 1" in lan.citation


@pytest.mark.parametrize("experiment", sorted(TABLE_A1_DISTRIBUTIONS))
def test_srup_table_condition_uses_the_papers_table_with_profile_info_mu_sigma(experiment):
    condition = _conditions()[experiment]
    name = TABLE_A1_DISTRIBUTIONS[experiment]
    mu, sigma = PROFILE_INFO[name]
    assert condition.spec == {
        "ingress": {"delay_ms": mu, "jitter_ms": sigma, "distribution": "table", "table": name}
    }
    assert f"Table A1, experiment {experiment}" in condition.citation
    assert name in condition.citation


@pytest.mark.parametrize("experiment", sorted(TABLE_A1_TC))
def test_srup_tc_condition_has_the_papers_rate_delay_jitter_and_loss(experiment):
    condition = _conditions()[experiment]
    rate, delay, jitter, loss = TABLE_A1_TC[experiment]
    link = LinkProfile.parse(condition.spec)
    assert not link.egress.shaped  # one direction only, as tc on one interface
    shaped = link.ingress
    assert shaped.rate_kbit == rate
    assert shaped.delay_ms == delay
    assert shaped.jitter_ms == (jitter or 0)
    assert shaped.distribution == "normal"  # tcset's --delay-distro
    assert shaped.loss_pct == (loss or 0)
    assert f"-rate {rate} Kbps -delay {delay} ms" in condition.citation


def test_measured_table_profiles_apply_the_table_on_egress_with_profile_info_mu_sigma():
    profile = NetworkProfile.objects.get(
        kind=ProfileKind.MEASURED_TABLE, name="TIM.bad.3G.no_roaming"
    )
    assert profile.slug == "table-tim-bad-3g-no-roaming"
    assert profile.spec == {
        "egress": {
            "delay_ms": 122.649579,
            "jitter_ms": 40.359329,
            "distribution": "table",
            "table": "TIM.bad.3G.no_roaming",
        }
    }
    assert "mobile-latency-emulator" in profile.citation
    assert "GPL-3.0" in profile.citation
    table = DelayTable.objects.get(name="TIM.bad.3G.no_roaming")
    assert (table.mu_ms, table.sigma_ms) == (122.649579, 40.359329)
    assert len(table.values) == 4096
    assert table.values[:3] == [-9063, -8860, -8759]  # the file's first values, in order


def test_loading_the_catalogue_again_changes_nothing():
    before = {
        p.pk: (p.spec, p.updated_at) for p in NetworkProfile.objects.filter(workspace__isnull=True)
    }
    result = catalogue_load()
    assert not result.changed
    after = {
        p.pk: (p.spec, p.updated_at) for p in NetworkProfile.objects.filter(workspace__isnull=True)
    }
    assert after == before


def test_loading_repairs_a_changed_builtin_and_keeps_its_id():
    pk = builtin_id("srup-6-2g-edge")
    NetworkProfile.objects.filter(pk=pk).update(spec={"both": {"delay_ms": 1}})
    DelayTable.objects.filter(name="TIM.bad.3G.no_roaming").update(mu_ms=1.0)
    result = catalogue_load()
    assert (result.profiles_updated, result.tables_updated, result.profiles_created) == (1, 1, 0)
    assert NetworkProfile.objects.get(pk=pk).spec == {
        "ingress": {"rate_kbit": 384, "delay_ms": 115.6}
    }
    assert DelayTable.objects.get(name="TIM.bad.3G.no_roaming").mu_ms == 122.649579
