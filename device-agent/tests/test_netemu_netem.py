"""The netem backend's pure half (netemu/netem.py): the exact ``tc … netem`` arguments of
every profile feature, the .dist file of a table, the Gilbert-Elliott mapping, what netem
cannot express, and the check of ``tc -j -s qdisc show``'s read-back.

The JSON below is what iproute2 6.1's tc prints (the version installed here,
``tc -V``): key names and shapes from tc/q_netem.c ``netem_print_opt`` (``limit``;
``delay`` {delay, jitter, correlation} in seconds; ``loss-random`` {loss, correlation};
``loss-gemodel`` {p, r, 1-h, 1-k}; ``duplicate``/``reorder``/``corrupt`` {<name>,
correlation}; percentages as fractions of 1; ``rate`` {rate (bytes/s), packetoverhead,
cellsize, celloverhead}; ``ecn``; ``gap``) and the statistics of tc/tc_qdisc.c. This
kernel has no sch_netem, so no netem qdisc could be shown here: the netem entries are
written from that source; the ``ingress`` qdisc and the u32/mirred filter entries are
copied from this machine's tc.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from iotsecbench_contract.delaytables import (
    SYSTEM_TABLE_DIRS,
    DistTable,
    builtin_table,
    parse_table,
    resolve,
)
from iotsecbench_contract.netprofile import DirectionProfile, GilbertElliott, parse_direction

from iotsecbench_agent.netemu.netem import (
    NetemUnexpressible,
    ReadbackMismatch,
    check_readback,
    dist_file_text,
    find_qdisc,
    plan,
    qdisc_stats,
)
from iotsecbench_agent.netemu.netem_link import _redirects_to

UINT32_MAX = 2**32 - 1


def direction(**fields: Any) -> DirectionProfile:
    return parse_direction(fields, "egress")


def args_of(**fields: Any) -> list[str]:
    shape = direction(**fields)
    return list(plan("egress", shape, resolve(shape, [])).args)


# -- tc arguments ----------------------------------------------------------------------------


def test_plan_gives_limit_and_delay_in_whole_microseconds() -> None:
    # 115.6 ms is 115599.99… µs in double arithmetic: tc's get_time would truncate it.
    assert args_of(delay_ms=115.6) == ["limit", "1000", "delay", "115600us"]
    assert args_of(delay_ms=20, limit=50) == ["limit", "50", "delay", "20000us"]


@pytest.mark.parametrize("kind", ["normal", "pareto", "paretonormal"])
def test_plan_names_the_builtin_distribution_and_writes_its_table(kind: str) -> None:
    shape = direction(delay_ms=100, jitter_ms=10, distribution=kind)
    netem = plan("egress", shape, resolve(shape, []))
    assert list(netem.args) == [
        "limit", "1000", "delay", "100000us", "10000us", "distribution", kind,
    ]  # fmt: skip
    assert netem.dist_name == kind
    assert netem.dist_text is not None
    assert parse_table(netem.dist_text, kind).values == builtin_table(kind).values


def test_plan_sends_no_table_for_uniform_jitter() -> None:
    # Without a table the kernel draws uniformly in µ ± σ: that is netem's uniform.
    shape = direction(delay_ms=100, jitter_ms=10, distribution="uniform")
    netem = plan("egress", shape, resolve(shape, []))
    assert list(netem.args) == ["limit", "1000", "delay", "100000us", "10000us"]
    assert netem.dist_name is None
    assert netem.dist_text is None


def test_plan_names_a_measured_table_after_its_direction() -> None:
    shape = DirectionProfile(
        delay_ms=122.649579, jitter_ms=40.359329, distribution="table", table="TIM.bad.3G"
    )
    table = DistTable("TIM.bad.3G", (-8192, 0, 8192, 16384, -300, 7, 12, 4, 9))
    netem = plan("ingress", shape, table)
    assert list(netem.args) == [
        "limit", "1000", "delay", "122650us", "40359us", "distribution", "measured-ingress",
    ]  # fmt: skip
    assert netem.dist_text == (
        "# TIM.bad.3G: 9 values of (x - mu)/sigma * 8192\n-8192 0 8192 16384 -300 7 12 4\n9\n"
    )


def test_dist_file_text_reads_back_as_the_same_table_with_no_octal_looking_numbers() -> None:
    table = builtin_table("paretonormal")
    text = dist_file_text(table)
    assert parse_table(text, "x").values == table.values
    numbers = [w for line in text.splitlines()[1:] for w in line.split()]
    assert not [w for w in numbers if w.lstrip("-").startswith("0") and w not in ("0", "-0")]
    assert all(len(line.split()) <= 8 for line in text.splitlines()[1:])


def test_builtin_table_is_iproute2s_own_file_when_installed() -> None:
    for directory in SYSTEM_TABLE_DIRS:
        path = Path(directory, "normal.dist")
        if path.is_file():
            assert parse_table(path.read_text(), "normal").values == builtin_table("normal").values
            return
    pytest.skip("iproute2's normal.dist is not installed here")


@pytest.mark.parametrize(
    ("rate_kbit", "argument"),
    [(384, "384kbit"), (40, "40kbit"), (9.6, "9600bit"), (10_000_000, "10000000kbit")],
)
def test_plan_gives_the_rate_in_exact_units(rate_kbit: float, argument: str) -> None:
    assert args_of(rate_kbit=rate_kbit) == ["limit", "1000", "rate", argument]


def test_plan_gives_random_loss_duplication_reordering_and_corruption() -> None:
    assert args_of(loss_pct=10) == ["limit", "1000", "loss", "random", "10%"]
    assert args_of(loss_pct=0.00001) == ["limit", "1000", "loss", "random", "0.00001%"]
    assert args_of(
        delay_ms=50, duplicate_pct=1, reorder_pct=25, corrupt_pct=0.5, loss_pct=2.5
    ) == [
        "limit", "1000", "delay", "50000us", "loss", "random", "2.5%", "duplicate", "1%",
        "reorder", "25%", "corrupt", "0.5%",
    ]  # fmt: skip


def test_plan_gives_every_feature_at_once_in_a_fixed_order() -> None:
    assert args_of(
        rate_kbit=384, delay_ms=115.6, jitter_ms=20, limit=200, duplicate_pct=1,
        reorder_pct=2, corrupt_pct=3,
        loss_gemodel={"p_pct": 1, "r_pct": 10, "one_minus_h_pct": 70, "one_minus_k_pct": 0.1},
    ) == [
        "limit", "200", "delay", "115600us", "20000us", "distribution", "normal",
        "rate", "384kbit", "loss", "gemodel", "1%", "10%", "70%", "0.1%",
        "duplicate", "1%", "reorder", "2%", "corrupt", "3%",
    ]  # fmt: skip


def test_plan_spells_out_gemodel_defaults() -> None:
    # tc-netem(8) defaults, as the profile fills them in: r = 100 − p, 1-h = 100, 1-k = 0.
    assert args_of(loss_gemodel={"p_pct": 5}) == [
        "limit", "1000", "loss", "gemodel", "5%", "95%", "100%", "0%",
    ]  # fmt: skip


# -- Gilbert-Elliott: the project's fields are tc's arguments, in the kernel's meaning -------


def kernel_gemodel_loss(args: list[str], packets: int, seed: int) -> float:
    """sch_netem.c ``loss_gilb_ell`` (Linux 6.x) fed with what tc 6.1 stores for
    ``loss gemodel P R 1-H 1-K``: a1 = p, a2 = r, a3 = h = UINT32_MAX − (1-h), a4 = 1-k;
    good state: move to bad if rnd < a1, lose if rnd < a4; bad state: move to good if
    rnd < a2, lose if rnd > a3."""
    p, r, one_minus_h, one_minus_k = (round(float(a.rstrip("%")) / 100 * UINT32_MAX) for a in args)
    a1, a2, a3, a4 = p, r, UINT32_MAX - one_minus_h, one_minus_k
    rng = random.Random(seed)  # noqa: S311 (a loss simulation, not cryptography)
    good, lost = True, 0
    for _ in range(packets):
        if good:
            if rng.getrandbits(32) < a1:
                good = False
            lost += rng.getrandbits(32) < a4
        else:
            if rng.getrandbits(32) < a2:
                good = True
            lost += rng.getrandbits(32) > a3
    return lost / packets


@pytest.mark.parametrize(
    "model",
    [
        GilbertElliott(p_pct=1, r_pct=10, one_minus_h_pct=70, one_minus_k_pct=0.1),
        GilbertElliott(p_pct=5, r_pct=95),  # Bernoulli loss of 5 %
        GilbertElliott(p_pct=2, r_pct=30, one_minus_h_pct=50, one_minus_k_pct=1),
    ],
)
def test_gemodel_arguments_give_the_profiles_mean_loss_in_the_kernels_model(
    model: GilbertElliott,
) -> None:
    args = list(plan("egress", DirectionProfile(loss_gemodel=model), None).args)
    assert args[2:4] == ["loss", "gemodel"]
    measured = kernel_gemodel_loss(args[4:], packets=400_000, seed=7)
    assert measured == pytest.approx(model.mean_loss, abs=0.004)


# -- what netem cannot express ---------------------------------------------------------------


def test_plan_refuses_jitter_without_delay_naming_the_field() -> None:
    shape = direction(jitter_ms=5, distribution="uniform")
    with pytest.raises(NetemUnexpressible, match=r"^egress\.jitter_ms: netem needs delay_ms"):
        plan("egress", shape, None)


def test_plan_refuses_times_below_a_microsecond() -> None:
    with pytest.raises(NetemUnexpressible, match=r"egress\.delay_ms: 0\.0004 ms is below"):
        plan("egress", direction(delay_ms=0.0004), None)


def test_plan_refuses_a_rate_below_one_byte_per_second() -> None:
    with pytest.raises(NetemUnexpressible, match=r"egress\.rate_kbit: 0\.005 kbit/s"):
        plan("egress", direction(rate_kbit=0.005), None)


def test_dist_file_text_refuses_a_table_netem_cannot_load() -> None:
    with pytest.raises(NetemUnexpressible, match="16384"):
        dist_file_text(DistTable("big", (0,) * 16_385))


# -- read-back -------------------------------------------------------------------------------

FULL_PROFILE = direction(
    rate_kbit=384, delay_ms=115.6, jitter_ms=40.36, limit=200, duplicate_pct=1,
    reorder_pct=2, corrupt_pct=0.5,
    loss_gemodel={"p_pct": 1, "r_pct": 10, "one_minus_h_pct": 70, "one_minus_k_pct": 0.1},
)  # fmt: skip


def netem_entry(**options: Any) -> dict[str, Any]:
    """One entry of ``tc -j -s qdisc show dev isbd-x`` for a root netem (tc 6.1)."""
    return {
        "kind": "netem", "handle": "1:", "root": True, "refcnt": 2,
        "options": {"limit": 1000, **options, "ecn": False, "gap": options.pop("gap", 0)},
        "bytes": 7400, "packets": 100, "drops": 3, "overlimits": 0, "requeues": 0,
        "backlog": 148, "qlen": 2,
    }  # fmt: skip


def full_entry() -> dict[str, Any]:
    entry = netem_entry(
        delay={"delay": 0.1156, "jitter": 0.04036, "correlation": 0},
        **{"loss-gemodel": {"p": 0.01, "r": 0.1, "1-h": 0.7, "1-k": 0.001}},
        duplicate={"duplicate": 0.01, "correlation": 0},
        reorder={"reorder": 0.02, "correlation": 0},
        corrupt={"corrupt": 0.005, "correlation": 0},
        rate={"rate": 48000, "packetoverhead": 0, "cellsize": 0, "celloverhead": 0},
        gap=1,
    )
    entry["options"]["limit"] = 200
    return entry


def test_readback_of_every_feature_matches_the_profile() -> None:
    options = check_readback("egress", FULL_PROFILE, full_entry())
    assert options["rate"]["rate"] == 48000
    assert options["loss-gemodel"]["1-h"] == 0.7


def test_readback_tolerates_tcs_unit_rounding() -> None:
    # 20.0015 ms → 20002 µs asked; 312531 ticks of 64 ns read back as 20001 µs, and %g
    # prints 6 digits; a rate of 1001 bit/s is stored as 125 bytes/s.
    profile = direction(delay_ms=20.0015, rate_kbit=1.001, loss_pct=33.3333333)
    entry = netem_entry(
        delay={"delay": 0.020001, "jitter": 0, "correlation": 0},
        rate={"rate": 125, "packetoverhead": 0, "cellsize": 0, "celloverhead": 0},
        **{"loss-random": {"loss": 0.333333, "correlation": 0}},
    )
    check_readback("egress", profile, entry)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda o: o.update(limit=1000), r"egress\.limit: asked 200, the kernel reports 1000"),
        (lambda o: o["delay"].update(delay=0.1166), r"egress\.delay_ms: asked 115\.6 ms"),
        (lambda o: o["delay"].update(jitter=0), r"egress\.jitter_ms: asked 40\.36 ms"),
        (lambda o: o.pop("rate"), r"egress\.rate_kbit: asked 48000 bytes/s"),
        (lambda o: o["loss-gemodel"].update({"1-h": 0.3}), r"egress\.loss_gemodel 1-h"),
        (lambda o: o.pop("loss-gemodel"), r"egress\.loss_gemodel: asked a Gilbert"),
        (lambda o: o.pop("reorder"), r"egress\.reorder_pct: asked 2 %, the kernel reports"),
        (lambda o: o["corrupt"].update(correlation=0.25), r"egress\.corrupt_pct correlation"),
        (lambda o: o.update(gap=5), r"egress\.gap: asked 1"),
        (lambda o: o.update(ecn=True), r"egress\.ecn"),
        (lambda o: o.update({"loss-random": {"loss": 0.1}}), r"egress\.loss_pct: asked none"),
    ],
)
def test_readback_mismatch_names_the_field(change: Any, field: str) -> None:
    entry = full_entry()
    change(entry["options"])
    with pytest.raises(ReadbackMismatch, match=field):
        check_readback("egress", FULL_PROFILE, entry)


def test_readback_fails_when_no_netem_qdisc_is_installed() -> None:
    # veth's default when nothing was installed: what this kernel answers.
    noqueue = [{"kind": "noqueue", "handle": "0:", "root": True, "refcnt": 2, "options": {}}]
    with pytest.raises(ReadbackMismatch, match=r"no netem qdisc installed .*'noqueue'"):
        check_readback("egress", FULL_PROFILE, find_qdisc(noqueue, root=True))
    with pytest.raises(ReadbackMismatch, match=r"ingress: no netem qdisc installed \(nothing"):
        check_readback("ingress", FULL_PROFILE, find_qdisc([], root=True))


def test_readback_of_an_unexpected_delay_fails() -> None:
    entry = netem_entry(delay={"delay": 0.005, "jitter": 0, "correlation": 0})
    with pytest.raises(ReadbackMismatch, match=r"egress\.delay_ms: asked no delay"):
        check_readback("egress", direction(loss_pct=0, limit=1000, rate_kbit=1), entry)


# This machine's tc 6.1, `tc -j -s qdisc show dev isbd-…` after `qdisc add … handle ffff:
# ingress`, and `tc -j filter show dev isbd-… parent ffff:` after the u32/mirred filter.
INGRESS_QDISCS = [
    {"kind": "ingress", "handle": "ffff:", "parent": "ffff:fff1", "options": {}, "bytes": 0,
     "packets": 0, "drops": 0, "overlimits": 0, "requeues": 0, "backlog": 0, "qlen": 0},
]  # fmt: skip
FILTERS = [
    {"protocol": "all", "pref": 49152, "kind": "u32", "chain": 0},
    {"protocol": "all", "pref": 49152, "kind": "u32", "chain": 0,
     "options": {"fh": "800:", "ht_divisor": 1}},
    {"protocol": "all", "pref": 49152, "kind": "u32", "chain": 0,
     "options": {"fh": "800::800", "order": 2048, "key_ht": "800", "bkt": "0",
                 "not_in_hw": True, "match": {"value": "0", "mask": "0", "offmask": "",
                                              "off": 0},
                 "actions": [{"order": 1, "kind": "mirred", "mirred_action": "redirect",
                              "direction": "egress", "to_dev": "isbi-x",
                              "control_action": {"type": "stolen"}, "index": 1, "ref": 1,
                              "bind": 1}]}},
]  # fmt: skip


def test_ingress_redirect_is_recognised_in_real_tc_output() -> None:
    assert find_qdisc(INGRESS_QDISCS, kind="ingress", handle="ffff:") is not None
    assert find_qdisc(INGRESS_QDISCS, root=True) is None
    assert [_redirects_to(f, "isbi-x") for f in FILTERS] == [False, False, True]
    assert not any(_redirects_to(f, "isbi-y") for f in FILTERS)


def test_qdisc_stats_are_the_counters_tc_prints() -> None:
    assert qdisc_stats(full_entry()) == {
        "bytes": 7400, "packets": 100, "drops": 3, "overlimits": 0, "requeues": 0,
        "backlog": 148, "qlen": 2,
    }  # fmt: skip
    assert qdisc_stats(None) is None
